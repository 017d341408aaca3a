//! The shell language: lexer, parser and syntax tree. Parsing only: nothing here reads,
//! writes or runs anything, and nothing panics on any input.

pub mod ast;
pub mod error;
pub(crate) mod lexer;
pub(crate) mod parser;

use ast::Script;
use error::ParseError;

/// Whether `s` is a shell variable name: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn is_name(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Parses `input` (within the size limits the caller checked) as a script nested `depth`
/// substitutions deep.
pub(crate) fn parse_at(input: &str, depth: usize) -> Result<Script, ParseError> {
    match lexer::Lexer::new(input, depth).run() {
        Ok(toks) => parser::Parser::new(input, toks, depth).script(),
        Err((toks, e)) => {
            // A construct the parser refuses before the lexical error explains it better.
            match parser::Parser::new(input, toks, depth).script() {
                Err(k @ ParseError::Unsupported { .. }) if k.pos().offset < e.pos().offset => {
                    Err(k)
                }
                _ => Err(e),
            }
        }
    }
}
