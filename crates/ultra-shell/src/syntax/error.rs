//! Parse errors: one typed variant per failure, each with a stable [`ParseError::code`] and
//! the position it names.

use std::fmt;

/// A position in the input: byte offset plus 1-based line and column (the column counts
/// Unicode scalar values from the start of the line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    /// Byte offset into the input.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

impl Pos {
    /// The position of byte `offset` in `src` (clamped to the input, snapped back to a char
    /// boundary).
    pub fn at(src: &str, offset: usize) -> Pos {
        let mut offset = offset.min(src.len());
        while !src.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &src[..offset];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        Pos {
            offset,
            line: before.matches('\n').count() + 1,
            column: before[line_start..].chars().count() + 1,
        }
    }
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// Why an input is not a valid script. `Display` gives `LINE:COL: message`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ParseError {
    /// A `'`, `"` or `${` with no closing counterpart.
    #[error("{pos}: unterminated {what}")]
    UnterminatedQuote {
        /// "single quote", "double quote" or "`${`".
        what: &'static str,
        /// Where the opening quote is.
        pos: Pos,
    },
    /// Valid shell syntax that Ultra's shell deliberately does not support.
    #[error("{pos}: {what} is not supported")]
    Unsupported {
        /// The construct, e.g. "command substitution `$(...)`".
        what: String,
        /// Where it starts.
        pos: Pos,
    },
    /// A token where something else was required (e.g. a redirect with no target).
    #[error("{pos}: unexpected {found}; expected {expected}")]
    UnexpectedToken {
        /// What was found, e.g. "end of input" or "`|`".
        found: String,
        /// What was required.
        expected: &'static str,
        /// Where it was found.
        pos: Pos,
    },
    /// A here-document whose terminator line never comes.
    #[error("{pos}: here-document has no terminator line `{delimiter}`")]
    MissingHeredocTerminator {
        /// The delimiter that was expected.
        delimiter: String,
        /// Where the `<<` is.
        pos: Pos,
    },
    /// An operator with no command on one side (`| b`, `a &&`, `; ;`).
    #[error("{pos}: `{op}` has no command {side} it")]
    EmptyCommand {
        /// The operator.
        op: &'static str,
        /// "before" or "after".
        side: &'static str,
        /// Where the operator is.
        pos: Pos,
    },
    /// The input is longer than [`crate::MAX_INPUT`] bytes.
    #[error("{pos}: input is {len} bytes; the limit is {limit}")]
    InputTooLarge {
        /// The input length.
        len: usize,
        /// The limit.
        limit: usize,
        /// Always 1:1.
        pos: Pos,
    },
    /// More than [`crate::MAX_COMMANDS`] simple commands.
    #[error("{pos}: more than {limit} commands")]
    TooManyCommands {
        /// The limit.
        limit: usize,
        /// Where the first command over the limit starts.
        pos: Pos,
    },
    /// More than [`crate::MAX_TOKENS`] tokens.
    #[error("{pos}: more than {limit} tokens")]
    TooManyTokens {
        /// The limit.
        limit: usize,
        /// Where the first token over the limit starts.
        pos: Pos,
    },
    /// A word longer than [`crate::MAX_WORD`] bytes.
    #[error("{pos}: word is longer than {limit} bytes")]
    WordTooLong {
        /// The limit.
        limit: usize,
        /// Where the word starts.
        pos: Pos,
    },
}

impl ParseError {
    /// A stable machine-readable code; released codes never change.
    pub fn code(&self) -> &'static str {
        match self {
            ParseError::UnterminatedQuote { .. } => "unterminated_quote",
            ParseError::Unsupported { .. } => "unsupported_syntax",
            ParseError::UnexpectedToken { .. } => "unexpected_token",
            ParseError::MissingHeredocTerminator { .. } => "missing_heredoc_terminator",
            ParseError::EmptyCommand { .. } => "empty_command",
            ParseError::InputTooLarge { .. } => "input_too_large",
            ParseError::TooManyCommands { .. } => "too_many_commands",
            ParseError::TooManyTokens { .. } => "too_many_tokens",
            ParseError::WordTooLong { .. } => "word_too_long",
        }
    }

    /// The position the error names.
    /// The same error, naming `at` instead (an error inside backquotes names the backquote).
    pub fn at(mut self, at: Pos) -> ParseError {
        *self.pos_mut() = at;
        self
    }

    pub fn pos(&self) -> Pos {
        *self.clone().pos_mut()
    }

    fn pos_mut(&mut self) -> &mut Pos {
        match self {
            ParseError::UnterminatedQuote { pos, .. }
            | ParseError::Unsupported { pos, .. }
            | ParseError::UnexpectedToken { pos, .. }
            | ParseError::MissingHeredocTerminator { pos, .. }
            | ParseError::EmptyCommand { pos, .. }
            | ParseError::InputTooLarge { pos, .. }
            | ParseError::TooManyCommands { pos, .. }
            | ParseError::TooManyTokens { pos, .. }
            | ParseError::WordTooLong { pos, .. } => pos,
        }
    }
}
