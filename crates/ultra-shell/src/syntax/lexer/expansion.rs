//! Expansions inside words: `$X`, `${X op word}`, `$((...))`, `$(...)` and backquotes.

use super::{Lexer, is_ident, is_ident_start, push_char, push_lit};
use crate::MAX_NESTING;
use crate::syntax::ast::{ParamOp, WordPart};
use crate::syntax::error::{ParseError, Pos};
use crate::syntax::parser::Parser;

impl Lexer<'_> {
    /// The byte offset of the `}` that closes the `${` being lexed (`self.pos` just past
    /// the `{`), past quotes, escapes and nested `${...}`.
    fn closing_brace(&self) -> Option<usize> {
        let b = self.src.as_bytes();
        let mut i = self.pos;
        let mut depth = 0usize;
        let mut in_double = false;
        while i < b.len() {
            match b[i] {
                b'\\' => i += 1,
                b'\'' if !in_double => {
                    i += 1;
                    while i < b.len() && b[i] != b'\'' {
                        i += 1;
                    }
                }
                b'"' => in_double = !in_double,
                b'$' if b.get(i + 1) == Some(&b'{') => {
                    depth += 1;
                    i += 1;
                }
                b'}' if !in_double || depth > 0 => {
                    if depth == 0 {
                        return Some(i);
                    }
                    depth -= 1;
                }
                _ => {}
            }
            i += 1;
        }
        None
    }

    /// Lexes the word after a `${X op` operator up to `end` (its closing brace): quotes,
    /// escapes and expansions as in a word; other text is quoted when the `${...}` is,
    /// unless it is a pattern.
    fn operand(
        &mut self,
        end: usize,
        quoted: bool,
        pattern: bool,
        parts: &mut Vec<WordPart>,
    ) -> Result<(), ParseError> {
        // A pattern (`"${f%.*}"`) stays a pattern inside double quotes.
        let plain_quoted = quoted && !pattern;
        while self.pos < end {
            let Some(c) = self.peek() else { break };
            match c {
                '\'' if !quoted => {
                    let q = self.pos;
                    self.pos += 1;
                    let Some(len) = self.src[self.pos..end].find('\'') else {
                        return Err(ParseError::UnterminatedQuote {
                            what: "single quote",
                            pos: Pos::at(self.src, q),
                        });
                    };
                    push_lit(parts, &self.src[self.pos..self.pos + len], true);
                    self.pos += len + 1;
                }
                '"' => {
                    let q = self.pos;
                    self.pos += 1;
                    self.double_quoted_body(end, false, parts)?;
                    if self.peek() != Some('"') {
                        return Err(ParseError::UnterminatedQuote {
                            what: "double quote",
                            pos: Pos::at(self.src, q),
                        });
                    }
                    self.pos += 1;
                }
                '\\' => {
                    self.pos += 1;
                    if let Some(e) = self.bump() {
                        push_char(parts, e, true);
                    }
                }
                '$' => self.dollar(quoted, parts)?,
                '`' => self.backquote(quoted, parts)?,
                _ => {
                    self.pos += c.len_utf8();
                    push_char(parts, c, plain_quoted);
                }
            }
        }
        Ok(())
    }

    fn too_deep(&self, at: usize) -> Option<ParseError> {
        (self.depth >= MAX_NESTING).then(|| {
            self.unsupported(
                format!("nesting deeper than {MAX_NESTING} levels of substitutions and compound commands"),
                at,
            )
        })
    }

    /// Lexes `$(...)` with `self.pos` at its `(`: the inside is lexed and parsed as a script,
    /// up to the `)` that closes it.
    fn command_sub(
        &mut self,
        start: usize,
        quoted: bool,
        parts: &mut Vec<WordPart>,
    ) -> Result<(), ParseError> {
        if let Some(e) = self.too_deep(start) {
            return Err(e);
        }
        let mut inner = Lexer::new(self.src, self.depth + 1);
        inner.pos = self.pos + 1;
        inner.nested = true;
        inner.lex().map_err(|e| match e {
            ParseError::UnterminatedQuote { what: "`$(`", .. } => ParseError::UnterminatedQuote {
                what: "`$(`",
                pos: Pos::at(self.src, start),
            },
            e => e,
        })?;
        let script = Parser::new(self.src, inner.toks, self.depth + 1).script()?;
        self.pos = inner.pos + 1;
        parts.push(WordPart::CommandSub {
            script: Box::new(script),
            quoted,
        });
        Ok(())
    }

    /// Lexes `` `...` `` at `self.pos`: backslash quotes `$`, `` ` `` and `\\` (and `"`
    /// inside double quotes); the rest is parsed as a script.
    pub(super) fn backquote(
        &mut self,
        quoted: bool,
        parts: &mut Vec<WordPart>,
    ) -> Result<(), ParseError> {
        let start = self.pos;
        if let Some(e) = self.too_deep(start) {
            return Err(e);
        }
        self.pos += 1;
        let mut inner = String::new();
        loop {
            match self.bump() {
                None => {
                    return Err(ParseError::UnterminatedQuote {
                        what: "backquote",
                        pos: Pos::at(self.src, start),
                    });
                }
                Some('`') => break,
                Some('\\') => match self.peek() {
                    Some(c @ ('$' | '`' | '\\')) => {
                        self.pos += 1;
                        inner.push(c);
                    }
                    Some('"') if quoted => {
                        self.pos += 1;
                        inner.push('"');
                    }
                    _ => inner.push('\\'),
                },
                Some(c) => inner.push(c),
            }
        }
        // Positions inside name the backquote: the text parsed is not the input's.
        let script = super::super::parse_at(&inner, self.depth + 1)
            .map_err(|e| e.at(Pos::at(self.src, start)))?;
        parts.push(WordPart::CommandSub {
            script: Box::new(script),
            quoted,
        });
        Ok(())
    }

    /// Lexes `$...` at `self.pos`.
    pub(super) fn dollar(
        &mut self,
        quoted: bool,
        parts: &mut Vec<WordPart>,
    ) -> Result<(), ParseError> {
        let start = self.pos;
        self.pos += 1;
        let param = |parts: &mut Vec<WordPart>, name: &str| {
            parts.push(WordPart::Param {
                name: name.to_string(),
                quoted,
            })
        };
        match self.peek() {
            Some('(') if self.peek2() == Some('(') => {
                // The expression runs to the `))` that closes `$((`, past balanced
                // parentheses inside it.
                let body = &self.rest()[2..];
                let mut depth = 0usize;
                let mut end = None;
                for (i, c) in body.char_indices() {
                    match c {
                        '(' => depth += 1,
                        ')' if depth > 0 => depth -= 1,
                        ')' => {
                            if body[i + 1..].starts_with(')') {
                                end = Some(i);
                            }
                            break;
                        }
                        _ => {}
                    }
                }
                let Some(len) = end else {
                    return Err(ParseError::UnterminatedQuote {
                        what: "`$((`",
                        pos: Pos::at(self.src, start),
                    });
                };
                // Parameters and substitutions inside are expanded first, as in double
                // quotes.
                let expr_start = self.pos + 2;
                let expr_end = expr_start + len;
                let mut expr = Vec::new();
                self.pos = expr_start;
                self.double_quoted_body(expr_end, true, &mut expr)?;
                self.pos = expr_end + 2;
                parts.push(WordPart::Arith { expr, quoted });
                Ok(())
            }
            Some('(') => self.command_sub(start, quoted, parts),
            Some('\'') if !quoted => Err(self.unsupported("ANSI-C quoting `$'...'`", start)),
            Some('"') if !quoted => Err(self.unsupported("locale quoting `$\"...\"`", start)),
            Some('{') => {
                self.pos += 1;
                let rest = self.rest();
                let len = match rest.chars().next() {
                    Some(c) if is_ident_start(c) => {
                        rest.find(|c| !is_ident(c)).unwrap_or(rest.len())
                    }
                    Some(c) if c.is_ascii_digit() => rest
                        .find(|c: char| !c.is_ascii_digit())
                        .unwrap_or(rest.len()),
                    Some('?' | '@' | '#' | '*' | '$' | '!' | '-') => 1,
                    _ => 0,
                };
                let name = &rest[..len];
                if len > 0 && rest[len..].starts_with('}') {
                    self.pos += len + 1;
                    param(parts, name);
                    return Ok(());
                }
                let Some(close) = self.closing_brace() else {
                    return Err(ParseError::UnterminatedQuote {
                        what: "`${`",
                        pos: Pos::at(self.src, start),
                    });
                };
                // `${#X}`: a length, unless `#` is the parameter itself (`${#}`, `${##}`).
                if rest.starts_with('#') {
                    let inner = &rest[1..close - self.pos];
                    let n = inner.find(|c| !is_ident(c)).unwrap_or(inner.len());
                    let special = matches!(inner, "?" | "@" | "*" | "$" | "!" | "-");
                    if (n > 0 && n == inner.len()) || special {
                        parts.push(WordPart::ParamOp {
                            name: inner.to_string(),
                            op: ParamOp::Length,
                            arg: Vec::new(),
                            quoted,
                        });
                        self.pos = close + 1;
                        return Ok(());
                    }
                }
                let after = &rest[len..];
                let ops: &[(&str, ParamOp)] = &[
                    (":-", ParamOp::Default { colon: true }),
                    (":+", ParamOp::Alternative { colon: true }),
                    (":?", ParamOp::Error { colon: true }),
                    ("%%", ParamOp::TrimSuffix { longest: true }),
                    ("##", ParamOp::TrimPrefix { longest: true }),
                    ("-", ParamOp::Default { colon: false }),
                    ("+", ParamOp::Alternative { colon: false }),
                    ("?", ParamOp::Error { colon: false }),
                    ("%", ParamOp::TrimSuffix { longest: false }),
                    ("#", ParamOp::TrimPrefix { longest: false }),
                ];
                let found = ops.iter().find(|(text, _)| after.starts_with(*text));
                let Some((text, op)) = found.filter(|_| len > 0) else {
                    return Err(self.unsupported(
                        "this `${...}` form (supported: `${X:-w}` `${X:+w}` `${X:?w}` `${#X}` `${X%p}` `${X%%p}` `${X#p}` `${X##p}`, with or without `:`)",
                        start,
                    ));
                };
                let name = name.to_string();
                self.pos += len + text.len();
                let mut arg = Vec::new();
                let pattern = matches!(op, ParamOp::TrimSuffix { .. } | ParamOp::TrimPrefix { .. });
                self.operand(close, quoted, pattern, &mut arg)?;
                self.pos = close + 1;
                parts.push(WordPart::ParamOp {
                    name,
                    op: *op,
                    arg,
                    quoted,
                });
                Ok(())
            }
            Some(c) if is_ident_start(c) => {
                let rest = self.rest();
                let len = rest.find(|c| !is_ident(c)).unwrap_or(rest.len());
                self.pos += len;
                param(parts, &rest[..len]);
                Ok(())
            }
            Some(c @ ('0'..='9' | '?' | '@' | '#' | '*' | '$' | '!' | '-')) => {
                self.pos += 1;
                param(parts, c.encode_utf8(&mut [0u8; 4]));
                Ok(())
            }
            _ => {
                push_lit(parts, "$", quoted);
                Ok(())
            }
        }
    }
}
