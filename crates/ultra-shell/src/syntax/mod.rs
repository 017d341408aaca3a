//! The shell language: lexer, parser and syntax tree. Parsing only: nothing here reads,
//! writes or runs anything, and nothing panics on any input.

pub mod ast;
pub mod error;
pub(crate) mod lexer;
pub(crate) mod parser;
