//! Compound commands, function definitions and `[[ ]]` expressions.

use std::sync::Arc;

use super::Parser;
use crate::syntax::ast::RedirectKind;
use crate::syntax::ast::{
    CaseArm, Command, Compound, CompoundCommand, CondExpr, FunctionDef, Span, Word, WordPart,
};
use crate::syntax::error::ParseError;
use crate::syntax::lexer::{Tok, Token};

/// `[[ ]]`'s operators that take one operand.
const COND_UNARY: &[&str] = &[
    "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-L", "-n", "-p", "-r", "-s", "-S", "-t",
    "-u", "-w", "-x", "-z", "-O", "-G", "-N", "-v",
];
/// `[[ ]]`'s operators between two operands (`<` and `>` come as redirect tokens).
const COND_BINARY: &[&str] = &[
    "=", "==", "!=", "=~", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef",
];

/// Whether `name` may name a function.
fn function_name(name: &str) -> bool {
    !name.is_empty()
        && !name.bytes().all(|b| b.is_ascii_digit())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':'))
}

impl Parser<'_> {
    /// A compound command or a function definition at the current token, if one starts here.
    pub(super) fn compound_or_function(&mut self) -> Result<Option<Command>, ParseError> {
        let start = self.here();
        if let Some(Tok::LParen) = self.peek() {
            if self.adjacent_parens() {
                return Err(ParseError::Unsupported {
                    what: "the arithmetic command `((...))` (write `n=$((n + 1))`, or `[ $((a < b)) = 1 ]` for a test)".into(),
                    pos: self.pos(start),
                });
            }
            self.i += 1;
            self.enter()?;
            let body = self.body(&[], "a command inside `( )`")?;
            if !matches!(self.peek(), Some(Tok::RParen)) {
                return Err(self.unexpected("`)` closing the subshell"));
            }
            self.i += 1;
            self.leave();
            return self.finish(Compound::Subshell(body), start).map(Some);
        }
        let Some(word) = self.peek_plain() else {
            return Ok(None);
        };
        let kind = match word {
            "if" | "for" | "while" | "until" | "case" | "{" | "[[" => word.to_string(),
            "function" => return self.function(start, true).map(Some),
            "select" | "coproc" => {
                return Err(ParseError::Unsupported {
                    what: format!("`{word}`"),
                    pos: self.pos(start),
                });
            }
            _ => {
                let paren = |k| matches!(self.toks.get(self.i + k), Some(Token { tok, .. }) if matches!((k, tok), (1, Tok::LParen) | (2, Tok::RParen)));
                if paren(1) && paren(2) {
                    return self.function(start, false).map(Some);
                }
                return Ok(None);
            }
        };
        self.i += 1;
        self.enter()?;
        let compound = match kind.as_str() {
            "if" => self.if_clause()?,
            "for" => self.for_clause()?,
            "while" => self.loop_clause(false)?,
            "until" => self.loop_clause(true)?,
            "case" => self.case_clause()?,
            "{" => {
                let body = self.body(&["}"], "a command inside `{ }`")?;
                self.expect("}", "`}` closing the brace group")?;
                Compound::Brace(body)
            }
            _ => {
                let e = self.cond_or()?;
                self.expect("]]", "`]]` closing the test")?;
                Compound::Cond(e)
            }
        };
        self.leave();
        self.finish(compound, start).map(Some)
    }

    /// Whether the current token and the next are `((` written together.
    fn adjacent_parens(&self) -> bool {
        match (self.toks.get(self.i), self.toks.get(self.i + 1)) {
            (
                Some(Token {
                    tok: Tok::LParen,
                    span: a,
                }),
                Some(Token {
                    tok: Tok::LParen,
                    span: b,
                }),
            ) => a.end == b.start,
            _ => false,
        }
    }

    /// The redirects after a compound command.
    fn finish(&mut self, kind: Compound, start: usize) -> Result<Command, ParseError> {
        let mut redirects = Vec::new();
        while let Some(Tok::Redir { .. }) = self.peek() {
            redirects.push(self.redirect()?);
        }
        Ok(Command::Compound(CompoundCommand {
            kind,
            redirects,
            span: Span {
                start,
                end: self.prev_end(),
            },
        }))
    }

    /// `name() body` or `function name [()] body`.
    fn function(&mut self, start: usize, keyword: bool) -> Result<Command, ParseError> {
        if keyword {
            self.i += 1;
        }
        let name = match self.peek_plain() {
            Some(n) if function_name(n) => n.to_string(),
            _ => return Err(self.unexpected("a function name")),
        };
        self.i += 1;
        if matches!(self.peek(), Some(Tok::LParen)) {
            self.i += 1;
            if !matches!(self.peek(), Some(Tok::RParen)) {
                return Err(self.unexpected("`)` after `(` in a function definition"));
            }
            self.i += 1;
        } else if !keyword {
            return Err(self.unexpected("`()` after the function name"));
        }
        self.skip_newlines();
        self.enter()?;
        let body = match self.compound_or_function()? {
            Some(Command::Compound(c)) => c,
            _ => return Err(self.unexpected("a function body such as `{ ...; }`")),
        };
        self.leave();
        Ok(Command::Function(FunctionDef {
            name,
            body: Arc::new(body),
            span: Span {
                start,
                end: self.prev_end(),
            },
        }))
    }

    fn if_clause(&mut self) -> Result<Compound, ParseError> {
        let mut branches = Vec::new();
        loop {
            let cond = self.body(&["then"], "a condition after `if`")?;
            self.expect("then", "`then`")?;
            let body = self.body(&["elif", "else", "fi"], "a command after `then`")?;
            branches.push((cond, body));
            match self.peek_plain() {
                Some("elif") => self.i += 1,
                Some("else") => {
                    self.i += 1;
                    let otherwise = self.body(&["fi"], "a command after `else`")?;
                    self.expect("fi", "`fi` closing the `if`")?;
                    return Ok(Compound::If {
                        branches,
                        otherwise: Some(otherwise),
                    });
                }
                _ => {
                    self.expect("fi", "`fi` closing the `if`")?;
                    return Ok(Compound::If {
                        branches,
                        otherwise: None,
                    });
                }
            }
        }
    }

    fn for_clause(&mut self) -> Result<Compound, ParseError> {
        if self.adjacent_parens() {
            return Err(ParseError::Unsupported {
                what: "C-style `for ((...))` (write `for i in $(seq 0 2)`)".into(),
                pos: self.pos(self.here()),
            });
        }
        let var = match self.peek_plain() {
            Some(v) if crate::syntax::is_name(v) => v.to_string(),
            _ => return Err(self.unexpected("a variable name after `for`")),
        };
        self.i += 1;
        self.skip_newlines();
        let mut words = None;
        if self.peek_plain() == Some("in") {
            self.i += 1;
            let mut list = Vec::new();
            while let Some(Tok::Word(w)) = self.peek() {
                list.push(w.clone());
                self.i += 1;
            }
            if !matches!(self.peek(), Some(Tok::Semi | Tok::Newline)) {
                return Err(self.unexpected("`;` or a newline after the words of `for`"));
            }
            self.i += 1;
            words = Some(list);
        } else if matches!(self.peek(), Some(Tok::Semi)) {
            self.i += 1;
        }
        self.skip_newlines();
        self.expect("do", "`do`")?;
        let body = self.body(&["done"], "a command after `do`")?;
        self.expect("done", "`done` closing the loop")?;
        Ok(Compound::For { var, words, body })
    }

    fn loop_clause(&mut self, until: bool) -> Result<Compound, ParseError> {
        let cond = self.body(&["do"], "a condition for the loop")?;
        self.expect("do", "`do`")?;
        let body = self.body(&["done"], "a command after `do`")?;
        self.expect("done", "`done` closing the loop")?;
        Ok(Compound::Loop { until, cond, body })
    }

    fn case_clause(&mut self) -> Result<Compound, ParseError> {
        let word = match self.peek() {
            Some(Tok::Word(w)) => w.clone(),
            _ => return Err(self.unexpected("a word after `case`")),
        };
        self.i += 1;
        self.skip_newlines();
        self.expect("in", "`in` after the word of `case`")?;
        let mut arms = Vec::new();
        loop {
            self.skip_newlines();
            if self.peek_plain() == Some("esac") {
                self.i += 1;
                return Ok(Compound::Case { word, arms });
            }
            if matches!(self.peek(), Some(Tok::LParen)) {
                self.i += 1;
            }
            let mut patterns = Vec::new();
            loop {
                match self.peek() {
                    Some(Tok::Word(w)) => patterns.push(w.clone()),
                    _ => return Err(self.unexpected("a pattern or `esac`")),
                }
                self.i += 1;
                match self.peek() {
                    Some(Tok::Pipe) => self.i += 1,
                    Some(Tok::RParen) => {
                        self.i += 1;
                        break;
                    }
                    _ => return Err(self.unexpected("`)` after the pattern")),
                }
            }
            let body = self.list(&["esac"])?;
            arms.push(CaseArm { patterns, body });
            match self.peek() {
                Some(Tok::DSemi) => self.i += 1,
                _ if self.peek_plain() == Some("esac") => {}
                _ => return Err(self.unexpected("`;;` or `esac`")),
            }
        }
    }

    fn cond_or(&mut self) -> Result<CondExpr, ParseError> {
        let mut left = self.cond_and()?;
        while matches!(self.peek(), Some(Tok::OrIf)) {
            self.i += 1;
            self.skip_newlines();
            left = CondExpr::Or(Box::new(left), Box::new(self.cond_and()?));
        }
        Ok(left)
    }

    fn cond_and(&mut self) -> Result<CondExpr, ParseError> {
        let mut left = self.cond_not()?;
        while matches!(self.peek(), Some(Tok::AndIf)) {
            self.i += 1;
            self.skip_newlines();
            left = CondExpr::And(Box::new(left), Box::new(self.cond_not()?));
        }
        Ok(left)
    }

    fn cond_not(&mut self) -> Result<CondExpr, ParseError> {
        if self.peek_plain() == Some("!") {
            self.i += 1;
            self.enter()?;
            let e = self.cond_not()?;
            self.leave();
            return Ok(CondExpr::Not(Box::new(e)));
        }
        self.cond_primary()
    }

    fn cond_word(&mut self) -> Result<Word, ParseError> {
        match self.peek() {
            Some(Tok::Word(w)) if w.as_plain() != Some("]]") => {
                let w = w.clone();
                self.i += 1;
                Ok(w)
            }
            _ => Err(self.unexpected("an operand inside `[[ ]]`")),
        }
    }

    fn cond_primary(&mut self) -> Result<CondExpr, ParseError> {
        if matches!(self.peek(), Some(Tok::LParen)) {
            self.i += 1;
            self.enter()?;
            let e = self.cond_or()?;
            self.leave();
            if !matches!(self.peek(), Some(Tok::RParen)) {
                return Err(self.unexpected("`)` inside `[[ ]]`"));
            }
            self.i += 1;
            return Ok(e);
        }
        let first = self.cond_word()?;
        if let Some(op) = first.as_plain()
            && COND_UNARY.contains(&op)
            && matches!(self.peek(), Some(Tok::Word(w)) if w.as_plain() != Some("]]"))
        {
            let op = op.to_string();
            return Ok(CondExpr::Unary(op, self.cond_word()?));
        }
        let op = match self.peek() {
            Some(Tok::Word(w)) => match w.as_plain() {
                Some(op) if COND_BINARY.contains(&op) => op.to_string(),
                _ => return Ok(CondExpr::Word(first)),
            },
            Some(Tok::Redir {
                fd: 0,
                kind: RedirectKind::Read,
                target: None,
            }) => "<".to_string(),
            Some(Tok::Redir {
                fd: 1,
                kind: RedirectKind::Write,
                target: None,
            }) => ">".to_string(),
            _ => return Ok(CondExpr::Word(first)),
        };
        self.i += 1;
        let right = if op == "=~" {
            self.regex_operand()?
        } else {
            self.cond_word()?
        };
        Ok(CondExpr::Binary(first, op, right))
    }

    /// The right side of `=~`: one word, or (when it holds `(`, `|` or `)`, which split
    /// words elsewhere) its source text up to `]]`, `&&` or `||` taken literally.
    fn regex_operand(&mut self) -> Result<Word, ParseError> {
        let from = self.i;
        let mut depth = 0usize;
        while let Some(t) = self.peek() {
            match t {
                Tok::LParen => depth += 1,
                Tok::RParen if depth > 0 => depth -= 1,
                Tok::AndIf | Tok::OrIf | Tok::RParen if depth == 0 => break,
                Tok::Word(w) if depth == 0 && w.as_plain() == Some("]]") => break,
                Tok::Word(_) | Tok::Pipe | Tok::RParen => {}
                _ => return Err(self.unexpected("a regular expression after `=~`")),
            }
            self.i += 1;
        }
        match self.i - from {
            0 => Err(self.unexpected("a regular expression after `=~`")),
            1 => match &self.toks[from].tok {
                Tok::Word(w) => Ok(w.clone()),
                _ => Err(self.unexpected("a regular expression after `=~`")),
            },
            _ => {
                let span = Span {
                    start: self.toks[from].span.start,
                    end: self.prev_end(),
                };
                let text = &self.src[span.start..span.end];
                let expands = text.contains(['\'', '"', '`'])
                    || text.match_indices('$').any(|(i, _)| {
                        text[i + 1..].starts_with(|c: char| {
                            c.is_ascii_alphanumeric() || "_{(@#?*".contains(c)
                        })
                    });
                if expands {
                    return Err(ParseError::Unsupported {
                        what: "quotes or expansions in a regular expression with `(`, `|` or `)` (put the regex in a variable: re='^(a|b)$'; [[ $x =~ $re ]])".into(),
                        pos: self.pos(span.start),
                    });
                }
                Ok(Word {
                    parts: vec![WordPart::Literal {
                        text: text.to_string(),
                        quoted: false,
                    }],
                    span,
                })
            }
        }
    }
}
