//! The parser: tokens to a [`Script`].
//!
//! Grammar (a bash subset):
//!
//! ```text
//! script   := sep* (and_or ((';' | '\n') sep*)*)?
//! and_or   := pipeline (('&&' | '||') '\n'* pipeline)*
//! pipeline := command ('|' '\n'* command)*
//! command  := (assignment | redirect)* (word | redirect)*     -- at least one item
//! ```
//!
//! Control-flow keywords, `{`, `}`, `!` and `[[` are refused in command position only; as
//! arguments they are ordinary words.

use crate::MAX_COMMANDS;
use crate::syntax::ast::{
    AndOr, AndOrOp, Assignment, Pipeline, Redirect, RedirectTarget, Script, SimpleCommand, Span,
    Word, WordPart,
};
use crate::syntax::error::{ParseError, Pos};
use crate::syntax::lexer::{Tok, Token};

/// Words that start control flow or compound commands in bash.
const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
    "select", "function", "in",
];

pub(crate) struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    i: usize,
    commands: usize,
}

fn op_name(t: &Tok) -> &'static str {
    match t {
        Tok::Pipe => "|",
        Tok::AndIf => "&&",
        Tok::OrIf => "||",
        Tok::Semi => ";",
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
    let mut chars = name.chars();
    if !chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        || !chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
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
    pub(crate) fn new(src: &'a str, toks: Vec<Token>) -> Self {
        Parser {
            src,
            toks,
            i: 0,
            commands: 0,
        }
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }

    fn pos(&self, offset: usize) -> Pos {
        Pos::at(self.src, offset)
    }

    fn here(&self) -> usize {
        self.toks
            .get(self.i)
            .map_or(self.src.len(), |t| t.span.start)
    }

    fn skip_newlines(&mut self) {
        while matches!(self.peek(), Some(Tok::Newline)) {
            self.i += 1;
        }
    }

    fn starts_command(&self) -> bool {
        matches!(self.peek(), Some(Tok::Word(_) | Tok::Redir { .. }))
    }

    pub(crate) fn script(mut self) -> Result<Script, ParseError> {
        let mut items = Vec::new();
        loop {
            self.skip_newlines();
            let Some(t) = self.peek() else { break };
            if !self.starts_command() {
                return Err(ParseError::EmptyCommand {
                    op: op_name(t),
                    side: "before",
                    pos: self.pos(self.here()),
                });
            }
            items.push(self.and_or()?);
            match self.peek() {
                None => break,
                Some(Tok::Semi | Tok::Newline) => self.i += 1,
                Some(t) => {
                    return Err(ParseError::UnexpectedToken {
                        found: format!("`{}`", op_name(t)),
                        expected: "`;` or a newline",
                        pos: self.pos(self.here()),
                    });
                }
            }
        }
        Ok(Script { items })
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
        let mut commands = vec![self.command()?];
        while matches!(self.peek(), Some(Tok::Pipe)) {
            let at = self.here();
            self.i += 1;
            self.after_op("|", at)?;
            commands.push(self.command()?);
        }
        Ok(Pipeline { commands })
    }

    fn command(&mut self) -> Result<SimpleCommand, ParseError> {
        let start = self.here();
        self.commands += 1;
        if self.commands > MAX_COMMANDS {
            return Err(ParseError::TooManyCommands {
                limit: MAX_COMMANDS,
                pos: self.pos(start),
            });
        }
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
                    if cmd.words.is_empty() {
                        if let Some(a) = split_assignment(&w) {
                            cmd.assignments.push(a);
                            cmd.span.end = span.end;
                            continue;
                        }
                        if cmd.assignments.is_empty() {
                            self.check_command_word(&w)?;
                        }
                    }
                    cmd.words.push(w);
                }
                Tok::Redir { fd, kind, target } => {
                    let (fd, kind) = (*fd, *kind);
                    let mut span = span;
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
                                other => {
                                    return Err(ParseError::UnexpectedToken {
                                        found: other.map_or("end of input".into(), |t| {
                                            format!("`{}`", op_name(&t.tok))
                                        }),
                                        expected: "a file name after the redirect",
                                        pos: self
                                            .pos(other.map_or(self.src.len(), |t| t.span.start)),
                                    });
                                }
                            }
                        }
                    };
                    cmd.redirects.push(Redirect {
                        fd,
                        kind,
                        target,
                        span,
                    });
                    cmd.span.end = span.end;
                    continue;
                }
                _ => break,
            }
            cmd.span.end = span.end;
        }
        Ok(cmd)
    }

    /// Refuses keywords and compound-command punctuation in command position.
    fn check_command_word(&self, w: &Word) -> Result<(), ParseError> {
        let Some(text) = w.as_plain() else {
            return Ok(());
        };
        let what = if KEYWORDS.contains(&text) {
            format!("control flow (`{text}`)")
        } else {
            match text {
                "{" | "}" => "brace groups `{ ...; }`".to_string(),
                "!" => "pipeline negation `!`".to_string(),
                "[[" => "`[[ ... ]]` tests (use `test` or `[`)".to_string(),
                _ => return Ok(()),
            }
        };
        Err(ParseError::Unsupported {
            what,
            pos: self.pos(w.span.start),
        })
    }
}
