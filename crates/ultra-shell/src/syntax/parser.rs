//! The parser: tokens to a [`Script`].
//!
//! Grammar (a bash subset):
//!
//! ```text
//! script   := list EOF
//! list     := sep* (and_or ((';' | '\n') sep*)*)?        -- stops before a closing word
//! and_or   := pipeline (('&&' | '||') '\n'* pipeline)*
//! pipeline := '!'? command ('|' '\n'* command)*
//! command  := simple | compound redirect* | NAME '(' ')' compound
//! compound := '{' list '}' | '(' list ')' | if | for | while | until | case | '[[' cond ']]'
//! simple   := (assignment | redirect)* (word | redirect)*     -- at least one item
//! ```
//!
//! Reserved words (`if`, `then`, `done`, `{`, `}`, ...) are recognised in command position
//! only; as arguments they are ordinary words, as in bash.

use crate::syntax::ast::{
    AndOr, AndOrOp, Assignment, Command, Pipeline, Redirect, RedirectTarget, Script, SimpleCommand,
    Span, Word, WordPart,
};
use crate::syntax::error::{ParseError, Pos};
use crate::syntax::lexer::{Tok, Token};
use crate::{MAX_COMMANDS, MAX_NESTING};

mod compound;

/// Words that end a list in command position: they are never a command's name.
const CLOSERS: &[&str] = &["then", "else", "elif", "fi", "do", "done", "esac", "}"];

pub(crate) struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pub(super) i: usize,
    commands: usize,
    /// Compound commands and substitutions enclosing the current position.
    depth: usize,
}

pub(super) fn op_name(t: &Tok) -> &'static str {
    match t {
        Tok::Pipe => "|",
        Tok::AndIf => "&&",
        Tok::OrIf => "||",
        Tok::Semi => ";",
        Tok::DSemi => ";;",
        Tok::LParen => "(",
        Tok::RParen => ")",
        Tok::Newline => "newline",
        Tok::Word(_) => "word",
        Tok::Redir { .. } => "redirect",
    }
}

/// Splits `NAME=value` off a word whose first part is an unquoted literal.
fn split_assignment(w: &Word) -> Option<Assignment> {
    let Some(WordPart::Literal {
        text,
        quoted: false,
    }) = w.parts.first()
    else {
        return None;
    };
    let eq = text.find('=')?;
    let name = &text[..eq];
    if !super::is_name(name) {
        return None;
    }
    let mut parts = Vec::new();
    if eq + 1 < text.len() {
        parts.push(WordPart::Literal {
            text: text[eq + 1..].to_string(),
            quoted: false,
        });
    }
    parts.extend(w.parts[1..].iter().cloned());
    Some(Assignment {
        name: name.to_string(),
        value: Word {
            parts,
            span: Span {
                start: w.span.start + eq + 1,
                end: w.span.end,
            },
        },
        span: w.span,
    })
}

impl<'a> Parser<'a> {
    pub(crate) fn new(src: &'a str, toks: Vec<Token>, depth: usize) -> Self {
        Parser {
            src,
            toks,
            i: 0,
            commands: 0,
            depth,
        }
    }

    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }

    /// The next token's text when it is a plain (unquoted, literal) word.
    pub(super) fn peek_plain(&self) -> Option<&str> {
        match self.peek() {
            Some(Tok::Word(w)) => w.as_plain(),
            _ => None,
        }
    }

    pub(super) fn pos(&self, offset: usize) -> Pos {
        Pos::at(self.src, offset)
    }

    pub(super) fn here(&self) -> usize {
        self.toks
            .get(self.i)
            .map_or(self.src.len(), |t| t.span.start)
    }

    /// Where the last token taken ends.
    pub(super) fn prev_end(&self) -> usize {
        self.i
            .checked_sub(1)
            .and_then(|i| self.toks.get(i))
            .map_or(0, |t| t.span.end)
    }

    pub(super) fn skip_newlines(&mut self) {
        while matches!(self.peek(), Some(Tok::Newline)) {
            self.i += 1;
        }
    }

    fn starts_command(&self) -> bool {
        matches!(
            self.peek(),
            Some(Tok::Word(_) | Tok::Redir { .. } | Tok::LParen)
        )
    }

    /// What the next token is, for an error message.
    pub(super) fn found(&self) -> String {
        match self.toks.get(self.i) {
            None => "end of input".into(),
            Some(Token {
                tok: Tok::Word(w), ..
            }) => match w.as_plain() {
                Some(text) => format!("`{text}`"),
                None => "a word".into(),
            },
            Some(t) => format!("`{}`", op_name(&t.tok)),
        }
    }

    pub(super) fn unexpected(&self, expected: &'static str) -> ParseError {
        ParseError::UnexpectedToken {
            found: self.found(),
            expected,
            pos: self.pos(self.here()),
        }
    }

    /// Takes the plain word `word` (a reserved word such as `then`), or fails naming it.
    pub(super) fn expect(
        &mut self,
        word: &'static str,
        expected: &'static str,
    ) -> Result<(), ParseError> {
        if self.peek_plain() == Some(word) {
            self.i += 1;
            Ok(())
        } else {
            Err(self.unexpected(expected))
        }
    }

    /// One level deeper into a compound command; refused past [`MAX_NESTING`].
    pub(super) fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return Err(ParseError::Unsupported {
                what: format!(
                    "nesting deeper than {MAX_NESTING} levels of substitutions and compound commands"
                ),
                pos: self.pos(self.here()),
            });
        }
        Ok(())
    }

    pub(super) fn leave(&mut self) {
        self.depth -= 1;
    }

    pub(crate) fn script(mut self) -> Result<Script, ParseError> {
        let script = self.list(&[])?;
        match self.peek() {
            None => Ok(script),
            Some(_) => Err(self.unexpected("a command")),
        }
    }

    /// And-or lists separated by `;` or newlines, up to the end of input, a `)` or `;;`, or
    /// one of the reserved words `ends` in command position (which is not taken).
    pub(super) fn list(&mut self, ends: &[&str]) -> Result<Script, ParseError> {
        let mut items = Vec::new();
        loop {
            self.skip_newlines();
            match self.peek() {
                None | Some(Tok::RParen | Tok::DSemi) => break,
                Some(Tok::Word(w)) if w.as_plain().is_some_and(|t| ends.contains(&t)) => break,
                Some(t) if !self.starts_command() => {
                    return Err(ParseError::EmptyCommand {
                        op: op_name(t),
                        side: "before",
                        pos: self.pos(self.here()),
                    });
                }
                _ => {}
            }
            items.push(self.and_or()?);
            match self.peek() {
                Some(Tok::Semi | Tok::Newline) => self.i += 1,
                None | Some(Tok::RParen | Tok::DSemi) => break,
                Some(_) => return Err(self.unexpected("`;` or a newline")),
            }
        }
        Ok(Script { items })
    }

    /// A [`Parser::list`] that must hold a command (the body of `then`, `do`, `{`, ...).
    pub(super) fn body(
        &mut self,
        ends: &[&str],
        expected: &'static str,
    ) -> Result<Script, ParseError> {
        let list = self.list(ends)?;
        if list.items.is_empty() {
            return Err(self.unexpected(expected));
        }
        Ok(list)
    }

    /// After a binary operator at `op_at`: skip newlines and require a command.
    fn after_op(&mut self, op: &'static str, op_at: usize) -> Result<(), ParseError> {
        self.skip_newlines();
        if self.starts_command() {
            Ok(())
        } else {
            Err(ParseError::EmptyCommand {
                op,
                side: "after",
                pos: self.pos(op_at),
            })
        }
    }

    fn and_or(&mut self) -> Result<AndOr, ParseError> {
        let first = self.pipeline()?;
        let mut rest = Vec::new();
        loop {
            let (op, name) = match self.peek() {
                Some(Tok::AndIf) => (AndOrOp::And, "&&"),
                Some(Tok::OrIf) => (AndOrOp::Or, "||"),
                _ => break,
            };
            let at = self.here();
            self.i += 1;
            self.after_op(name, at)?;
            rest.push((op, self.pipeline()?));
        }
        Ok(AndOr { first, rest })
    }

    fn pipeline(&mut self) -> Result<Pipeline, ParseError> {
        let negated = self.peek_plain() == Some("!");
        if negated {
            let at = self.here();
            self.i += 1;
            if !self.starts_command() {
                return Err(ParseError::EmptyCommand {
                    op: "!",
                    side: "after",
                    pos: self.pos(at),
                });
            }
        }
        let mut commands = vec![self.command()?];
        while matches!(self.peek(), Some(Tok::Pipe)) {
            let at = self.here();
            self.i += 1;
            self.after_op("|", at)?;
            commands.push(self.command()?);
        }
        Ok(Pipeline { negated, commands })
    }

    fn command(&mut self) -> Result<Command, ParseError> {
        let start = self.here();
        self.commands += 1;
        if self.commands > MAX_COMMANDS {
            return Err(ParseError::TooManyCommands {
                limit: MAX_COMMANDS,
                pos: self.pos(start),
            });
        }
        if let Some(c) = self.compound_or_function()? {
            return Ok(c);
        }
        if let Some(k) = self.peek_plain()
            && CLOSERS.contains(&k)
        {
            return Err(self.unexpected("a command"));
        }
        self.simple().map(Command::Simple)
    }

    fn simple(&mut self) -> Result<SimpleCommand, ParseError> {
        let start = self.here();
        let mut cmd = SimpleCommand {
            assignments: Vec::new(),
            words: Vec::new(),
            redirects: Vec::new(),
            span: Span { start, end: start },
        };
        while let Some(tok) = self.toks.get(self.i) {
            let span = tok.span;
            match &tok.tok {
                Tok::Word(w) => {
                    let w = w.clone();
                    self.i += 1;
                    if cmd.words.is_empty()
                        && let Some(a) = split_assignment(&w)
                    {
                        if a.value.parts.is_empty()
                            && matches!(self.toks.get(self.i), Some(Token { tok: Tok::LParen, span: p }) if p.start == span.end)
                        {
                            return Err(ParseError::Unsupported {
                                what: "arrays (`X=(a b)`); use a string of words and `for x in $X`"
                                    .into(),
                                pos: self.pos(a.value.span.start),
                            });
                        }
                        cmd.assignments.push(a);
                        cmd.span.end = span.end;
                        continue;
                    }
                    cmd.words.push(w);
                }
                Tok::Redir { .. } => {
                    let r = self.redirect()?;
                    cmd.span.end = r.span.end;
                    cmd.redirects.push(r);
                    continue;
                }
                _ => break,
            }
            cmd.span.end = span.end;
        }
        Ok(cmd)
    }

    /// The redirect at the current token (which must be one).
    pub(super) fn redirect(&mut self) -> Result<Redirect, ParseError> {
        let Some(Token {
            tok: Tok::Redir { fd, kind, target },
            span,
        }) = self.toks.get(self.i)
        else {
            return Err(self.unexpected("a redirect"));
        };
        let (fd, kind, mut span) = (*fd, *kind, *span);
        let target = match target.clone() {
            Some(t) => {
                self.i += 1;
                t
            }
            None => {
                self.i += 1;
                match self.toks.get(self.i) {
                    Some(Token {
                        tok: Tok::Word(w),
                        span: ws,
                    }) => {
                        span.end = ws.end;
                        self.i += 1;
                        RedirectTarget::Word(w.clone())
                    }
                    _ => return Err(self.unexpected("a file name after the redirect")),
                }
            }
        };
        Ok(Redirect {
            fd,
            kind,
            target,
            span,
        })
    }
}
