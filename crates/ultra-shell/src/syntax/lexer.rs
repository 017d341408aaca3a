//! The lexer: input text to tokens (words, operators, redirects, newlines).
//!
//! Quoting, escapes, parameters and globs are resolved here into [`WordPart`]s, and
//! here-document bodies are read when the newline ending their command's line is reached,
//! so the parser only sees complete tokens. Every loop advances by at least one character
//! and every look-ahead is bounded, so lexing is linear in the input.

use crate::syntax::ast::{HereDoc, RedirectKind, RedirectTarget, Span, Word, WordPart};
use crate::syntax::error::{ParseError, Pos};
use crate::{MAX_TOKENS, MAX_WORD};

mod expansion;

/// How far ahead a `[` looks for its closing `]` before being taken literally.
const MAX_BRACKET: usize = 256;

/// A token kind.
#[derive(Debug, Clone)]
pub(crate) enum Tok {
    Word(Word),
    Pipe,
    AndIf,
    OrIf,
    Semi,
    /// `;;`, ending a `case` arm.
    DSemi,
    Newline,
    LParen,
    RParen,
    /// A redirect operator; `target` is filled for `>&N` and here-documents, and `None` when
    /// the next token must be the target word.
    Redir {
        fd: u32,
        kind: RedirectKind,
        target: Option<RedirectTarget>,
    },
}

/// A token and its bytes.
#[derive(Debug, Clone)]
pub(crate) struct Token {
    pub tok: Tok,
    pub span: Span,
}

struct Pending {
    tok: usize,
    start: usize,
    delimiter: String,
    strip: bool,
    expand: bool,
}

pub(crate) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    toks: Vec<Token>,
    pending: Vec<Pending>,
    /// How many substitutions enclose this lexer.
    depth: usize,
    /// Lexing the inside of `$(`: stop before the `)` that closes it.
    nested: bool,
    /// Parentheses opened and not closed (inside `$(`).
    parens: usize,
    /// `case` commands opened and not closed: their patterns' `)` do not end a `$(`.
    cases: usize,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Characters that end an unquoted word.
fn is_meta(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\n' | '|' | '&' | ';' | '<' | '>' | '(' | ')'
    )
}

/// Appends literal text, merging with a previous literal of the same quoting.
fn push_lit(parts: &mut Vec<WordPart>, s: &str, q: bool) {
    if let Some(WordPart::Literal { text, quoted }) = parts.last_mut()
        && *quoted == q
    {
        text.push_str(s);
        return;
    }
    parts.push(WordPart::Literal {
        text: s.to_string(),
        quoted: q,
    });
}

fn push_char(parts: &mut Vec<WordPart>, c: char, q: bool) {
    let mut buf = [0u8; 4];
    push_lit(parts, c.encode_utf8(&mut buf), q);
}

impl<'a> Lexer<'a> {
    pub(crate) fn new(src: &'a str, depth: usize) -> Self {
        Lexer {
            src,
            pos: 0,
            toks: Vec::new(),
            pending: Vec::new(),
            depth,
            nested: false,
            parens: 0,
            cases: 0,
        }
    }

    /// Whether the next word would be in command position (where `case` and `esac` are
    /// keywords), judged from the previous token.
    fn command_position(&self) -> bool {
        match self.toks.last().map(|t| &t.tok) {
            None => true,
            Some(Tok::Word(w)) => matches!(
                w.as_plain(),
                Some("then" | "do" | "else" | "elif" | "{" | "!" | "if" | "while" | "until")
            ),
            Some(Tok::Redir { .. }) => false,
            Some(_) => true,
        }
    }

    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek2(&self) -> Option<char> {
        self.rest().chars().nth(1)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn unsupported(&self, what: impl Into<String>, at: usize) -> ParseError {
        ParseError::Unsupported {
            what: what.into(),
            pos: Pos::at(self.src, at),
        }
    }

    fn push(&mut self, tok: Tok, start: usize) {
        self.toks.push(Token {
            tok,
            span: Span {
                start,
                end: self.pos,
            },
        });
    }

    /// Lexes the whole input. On error, also returns the tokens lexed before it, so the
    /// parser can report an earlier unsupported keyword (`case x in a) ...`) instead.
    pub(crate) fn run(mut self) -> Result<Vec<Token>, (Vec<Token>, ParseError)> {
        match self.lex() {
            Ok(()) => Ok(self.toks),
            Err(e) => Err((self.toks, e)),
        }
    }

    fn lex(&mut self) -> Result<(), ParseError> {
        while let Some(c) = self.peek() {
            let start = self.pos;
            if self.toks.len() >= MAX_TOKENS && !matches!(c, ' ' | '\t') {
                return Err(ParseError::TooManyTokens {
                    limit: MAX_TOKENS,
                    pos: Pos::at(self.src, start),
                });
            }
            match c {
                ' ' | '\t' => self.pos += 1,
                '\\' if self.peek2() == Some('\n') => self.pos += 2,
                '\n' => {
                    self.pos += 1;
                    self.push(Tok::Newline, start);
                    self.read_heredocs()?;
                }
                '#' => {
                    let len = self.rest().find('\n').unwrap_or(self.rest().len());
                    self.pos += len;
                }
                '|' => {
                    if self.rest().starts_with("||") {
                        self.pos += 2;
                        self.push(Tok::OrIf, start);
                    } else if self.rest().starts_with("|&") {
                        return Err(self.unsupported("`|&`", start));
                    } else {
                        self.pos += 1;
                        self.push(Tok::Pipe, start);
                    }
                }
                '&' => {
                    if self.rest().starts_with("&&") {
                        self.pos += 2;
                        self.push(Tok::AndIf, start);
                    } else if self.rest().starts_with("&>>") {
                        self.pos += 3;
                        self.push_redir(1, RedirectKind::AppendBoth, None, start);
                    } else if self.rest().starts_with("&>") {
                        self.pos += 2;
                        self.push_redir(1, RedirectKind::WriteBoth, None, start);
                    } else {
                        return Err(self.unsupported("background `&`", start));
                    }
                }
                ';' => {
                    if self.rest().starts_with(";;&") || self.rest().starts_with(";&") {
                        return Err(self.unsupported(
                            "`case` fall-through (`;&`, `;;&`); end each arm with `;;`",
                            start,
                        ));
                    }
                    if self.rest().starts_with(";;") {
                        self.pos += 2;
                        self.push(Tok::DSemi, start);
                    } else {
                        self.pos += 1;
                        self.push(Tok::Semi, start);
                    }
                }
                '(' => {
                    self.pos += 1;
                    self.parens += 1;
                    self.push(Tok::LParen, start);
                }
                ')' => {
                    if self.nested && self.parens == 0 && self.cases == 0 {
                        // The end of the `$(` being lexed; the caller steps over it.
                        return self.end_nested();
                    }
                    self.parens = self.parens.saturating_sub(1);
                    self.pos += 1;
                    self.push(Tok::RParen, start);
                }
                '<' | '>' => self.redirect(None, start)?,
                '0'..='9' => {
                    let digits = self.rest().bytes().take_while(u8::is_ascii_digit).count();
                    let after = self.rest()[digits..].chars().next();
                    if matches!(after, Some('<' | '>')) {
                        let fd = self.rest()[..digits]
                            .parse::<u32>()
                            .ok()
                            .filter(|n| *n < 256);
                        let Some(fd) = fd else {
                            return Err(self.unsupported("a file descriptor above 255", start));
                        };
                        self.pos += digits;
                        self.redirect(Some(fd), start)?;
                    } else {
                        let w = self.word()?;
                        self.push(Tok::Word(w), start);
                    }
                }
                _ => {
                    let keyword = self.command_position();
                    let w = self.word()?;
                    if keyword {
                        match w.as_plain() {
                            Some("case") => self.cases += 1,
                            Some("esac") => self.cases = self.cases.saturating_sub(1),
                            _ => {}
                        }
                    }
                    self.push(Tok::Word(w), start);
                }
            }
        }
        if self.nested {
            return Err(ParseError::UnterminatedQuote {
                what: "`$(`",
                pos: Pos::at(
                    self.src,
                    self.toks.first().map_or(self.pos, |t| t.span.start),
                ),
            });
        }
        self.end_nested()
    }

    /// The end of the input (or of a `$(...)`): every here-document must have its body.
    fn end_nested(&self) -> Result<(), ParseError> {
        if let Some(p) = self.pending.first() {
            return Err(ParseError::MissingHeredocTerminator {
                delimiter: p.delimiter.clone(),
                pos: Pos::at(self.src, p.start),
            });
        }
        Ok(())
    }

    fn push_redir(
        &mut self,
        fd: u32,
        kind: RedirectKind,
        target: Option<RedirectTarget>,
        start: usize,
    ) {
        self.push(Tok::Redir { fd, kind, target }, start);
    }

    /// Lexes a redirect operator at `self.pos` (`<` or `>`), after an optional fd prefix.
    fn redirect(&mut self, fd: Option<u32>, start: usize) -> Result<(), ParseError> {
        let rest = self.rest();
        let op_at = self.pos;
        if rest.starts_with("<<<") {
            return Err(self.unsupported("here-string `<<<`", op_at));
        }
        if rest.starts_with("<(") || rest.starts_with(">(") {
            return Err(self.unsupported("process substitution", op_at));
        }
        if rest.starts_with("<>") {
            return Err(self.unsupported("read-write redirect `<>`", op_at));
        }
        if rest.starts_with("<&") {
            return Err(self.unsupported("input duplication `<&`", op_at));
        }
        if rest.starts_with("<<") {
            let strip = rest.starts_with("<<-");
            self.pos += if strip { 3 } else { 2 };
            return self.heredoc(fd.unwrap_or(0), strip, start);
        }
        if rest.starts_with("<") {
            self.pos += 1;
            self.push_redir(fd.unwrap_or(0), RedirectKind::Read, None, start);
            return Ok(());
        }
        if rest.starts_with(">>") {
            self.pos += 2;
            self.push_redir(fd.unwrap_or(1), RedirectKind::Append, None, start);
            return Ok(());
        }
        if let Some(tail) = rest.strip_prefix(">&") {
            let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
            let n = tail[..digits].parse::<u32>().ok().filter(|n| *n < 256);
            let after = tail[digits..].chars().next();
            match n {
                Some(n) if after.is_none_or(is_meta) => {
                    self.pos += 2 + digits;
                    let target = Some(RedirectTarget::Fd(n));
                    self.push_redir(fd.unwrap_or(1), RedirectKind::Dup, target, start);
                    return Ok(());
                }
                _ => {
                    return Err(self.unsupported(
                        "`>&` without a file descriptor number (use `&>` for both streams)",
                        op_at,
                    ));
                }
            }
        }
        // `>` or `>|`.
        self.pos += if rest.starts_with(">|") { 2 } else { 1 };
        self.push_redir(fd.unwrap_or(1), RedirectKind::Write, None, start);
        Ok(())
    }

    /// Lexes a here-document delimiter after `<<`/`<<-` and queues its body.
    fn heredoc(&mut self, fd: u32, strip: bool, start: usize) -> Result<(), ParseError> {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.pos += 1;
        }
        match self.peek() {
            Some(c) if !is_meta(c) => {}
            other => {
                return Err(ParseError::UnexpectedToken {
                    found: other.map_or("end of input".into(), |c| format!("`{c}`")),
                    expected: "a here-document delimiter",
                    pos: Pos::at(self.src, self.pos),
                });
            }
        }
        let word = self.word()?;
        let mut delimiter = String::new();
        let mut expand = true;
        for p in &word.parts {
            match p {
                WordPart::Literal { text, quoted } => {
                    expand &= !quoted;
                    delimiter.push_str(text);
                }
                WordPart::Glob { pattern } => delimiter.push_str(pattern),
                WordPart::Param { .. }
                | WordPart::ParamOp { .. }
                | WordPart::Arith { .. }
                | WordPart::CommandSub { .. } => {
                    return Err(self.unsupported(
                        "an expansion in a here-document delimiter",
                        word.span.start,
                    ));
                }
            }
        }
        self.pending.push(Pending {
            tok: self.toks.len(),
            start,
            delimiter: delimiter.clone(),
            strip,
            expand,
        });
        let target = RedirectTarget::HereDoc(HereDoc {
            delimiter,
            body: String::new(),
            expand,
            parts: Vec::new(),
        });
        self.push_redir(
            fd,
            RedirectKind::HereDoc { strip_tabs: strip },
            Some(target),
            start,
        );
        Ok(())
    }

    /// Reads the bodies of the queued here-documents, in order, from `self.pos` (just after a
    /// newline).
    fn read_heredocs(&mut self) -> Result<(), ParseError> {
        for p in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            let mut parts = Vec::new();
            loop {
                if self.pos >= self.src.len() {
                    return Err(ParseError::MissingHeredocTerminator {
                        delimiter: p.delimiter,
                        pos: Pos::at(self.src, p.start),
                    });
                }
                let line_end = self
                    .rest()
                    .find('\n')
                    .map_or(self.src.len(), |i| self.pos + i);
                let next = (line_end + 1).min(self.src.len());
                let mut content = self.pos;
                if p.strip {
                    content += self.src[content..line_end]
                        .bytes()
                        .take_while(|b| *b == b'\t')
                        .count();
                }
                if self.src[content..line_end] == p.delimiter {
                    self.pos = next;
                    break;
                }
                body.push_str(&self.src[content..next]);
                if p.expand {
                    self.pos = content;
                    self.double_quoted_body(next, true, &mut parts)?;
                }
                self.pos = next;
            }
            if !p.expand && !body.is_empty() {
                parts.push(WordPart::Literal {
                    text: body.clone(),
                    quoted: true,
                });
            }
            if let Some(Token {
                tok:
                    Tok::Redir {
                        target: Some(RedirectTarget::HereDoc(h)),
                        ..
                    },
                ..
            }) = self.toks.get_mut(p.tok)
            {
                h.body = body;
                h.parts = parts;
            }
        }
        Ok(())
    }

    /// Lexes one word starting at `self.pos`.
    fn word(&mut self) -> Result<Word, ParseError> {
        let start = self.pos;
        let mut parts = Vec::new();
        while let Some(c) = self.peek() {
            if self.pos - start > MAX_WORD {
                return Err(ParseError::WordTooLong {
                    limit: MAX_WORD,
                    pos: Pos::at(self.src, start),
                });
            }
            if is_meta(c) {
                break;
            }
            match c {
                '\'' => {
                    let q = self.pos;
                    let Some(len) = self.rest()[1..].find('\'') else {
                        return Err(ParseError::UnterminatedQuote {
                            what: "single quote",
                            pos: Pos::at(self.src, q),
                        });
                    };
                    push_lit(&mut parts, &self.src[q + 1..q + 1 + len], true);
                    self.pos = q + len + 2;
                }
                '"' => {
                    let q = self.pos;
                    self.pos += 1;
                    let before = parts.len();
                    self.double_quoted_body(self.src.len(), false, &mut parts)?;
                    if self.peek() != Some('"') {
                        return Err(ParseError::UnterminatedQuote {
                            what: "double quote",
                            pos: Pos::at(self.src, q),
                        });
                    }
                    self.pos += 1;
                    if parts.len() == before {
                        push_lit(&mut parts, "", true);
                    }
                }
                '\\' => {
                    self.pos += 1;
                    match self.bump() {
                        None => push_lit(&mut parts, "\\", true),
                        Some('\n') => {}
                        Some(e) => push_char(&mut parts, e, true),
                    }
                }
                '$' => self.dollar(false, &mut parts)?,
                '`' => self.backquote(false, &mut parts)?,
                '*' | '?' => {
                    self.pos += 1;
                    parts.push(WordPart::Glob {
                        pattern: c.to_string(),
                    });
                }
                '[' => {
                    if let Some(len) = self.bracket_len() {
                        parts.push(WordPart::Glob {
                            pattern: self.rest()[..len].to_string(),
                        });
                        self.pos += len;
                    } else {
                        self.pos += 1;
                        push_lit(&mut parts, "[", false);
                    }
                }
                _ => {
                    self.pos += c.len_utf8();
                    push_char(&mut parts, c, false);
                }
            }
        }
        if self.pos - start > MAX_WORD {
            return Err(ParseError::WordTooLong {
                limit: MAX_WORD,
                pos: Pos::at(self.src, start),
            });
        }
        Ok(Word {
            parts,
            span: Span {
                start,
                end: self.pos,
            },
        })
    }

    /// The byte length of a bracket expression `[...]` at `self.pos`, if it closes within the
    /// word (and within [`MAX_BRACKET`] bytes) without quotes, escapes or parameters.
    fn bracket_len(&self) -> Option<usize> {
        let b = self.rest().as_bytes();
        let mut i = 1;
        if matches!(b.get(i), Some(b'!' | b'^')) {
            i += 1;
        }
        if b.get(i) == Some(&b']') {
            i += 1;
        }
        while i < b.len() && i < MAX_BRACKET {
            match b[i] {
                b']' => return Some(i + 1),
                b'\'' | b'"' | b'\\' | b'$' | b'`' | b'[' => return None,
                c if c.is_ascii() && is_meta(c as char) => return None,
                _ => i += 1,
            }
        }
        None
    }

    /// Lexes the inside of double quotes (stopping before the closing `"`, or at `end`) or,
    /// with `heredoc`, an expanding here-document line up to `end`.
    fn double_quoted_body(
        &mut self,
        end: usize,
        heredoc: bool,
        parts: &mut Vec<WordPart>,
    ) -> Result<(), ParseError> {
        while self.pos < end {
            let Some(c) = self.peek() else { break };
            match c {
                '"' if !heredoc => return Ok(()),
                '\\' => {
                    let e = self.peek2();
                    match e {
                        Some('$' | '`' | '\\') => {
                            self.pos += 2;
                            push_char(parts, e.unwrap_or('\\'), true);
                        }
                        Some('"') if !heredoc => {
                            self.pos += 2;
                            push_lit(parts, "\"", true);
                        }
                        Some('\n') => self.pos += 2,
                        _ => {
                            self.pos += 1;
                            push_lit(parts, "\\", true);
                        }
                    }
                }
                '$' => self.dollar(true, parts)?,
                '`' => self.backquote(true, parts)?,
                _ => {
                    self.pos += c.len_utf8();
                    push_char(parts, c, true);
                }
            }
        }
        Ok(())
    }
}
