//! Stable error codes and the structured error every surface returns.
//!
//! A code's string never changes once released; clients match on it. Each code also maps to
//! a JSON-RPC numeric code: the standard ones, and seed 003's custom range.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

macro_rules! error_codes {
    ($( $(#[doc = $doc:literal])* $name:ident = ($s:literal, $rpc:expr, $recoverable:expr) ),* $(,)?) => {
        /// A stable, machine-matchable error code.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
        pub enum ErrorCode {
            $( $(#[doc = $doc])* #[serde(rename = $s)] $name, )*
            /// A code this build does not know (from a newer peer).
            #[serde(other, rename = "UNKNOWN")]
            Unknown,
        }

        impl ErrorCode {
            /// Every known code.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$name),*];

            /// The stable string, e.g. `"FILE_NOT_FOUND"`.
            pub fn as_str(self) -> &'static str {
                match self { $(ErrorCode::$name => $s,)* ErrorCode::Unknown => "UNKNOWN" }
            }

            /// The JSON-RPC numeric code for this error.
            pub fn rpc_code(self) -> i64 {
                match self { $(ErrorCode::$name => $rpc,)* ErrorCode::Unknown => -32603 }
            }

            /// Whether the caller can get past the error itself, by fixing its input or
            /// re-reading state and trying again. False for faults in Ultra or the machine,
            /// and for refusals by configuration or policy that no retry gets past (a path
            /// outside the workspace, a protected path, a denied source, command or file
            /// access): only a person changing the configuration can.
            pub fn recoverable(self) -> bool {
                match self { $(ErrorCode::$name => $recoverable,)* ErrorCode::Unknown => false }
            }
        }
    };
}

error_codes! {
    /// The request was not valid JSON.
    ParseError = ("PARSE_ERROR", -32700, true),
    /// The request was JSON but not a valid request object.
    InvalidRequest = ("INVALID_REQUEST", -32600, true),
    /// No command or method has this name.
    UnknownCommand = ("UNKNOWN_COMMAND", -32601, true),
    /// The arguments do not match the command's schema.
    InvalidArguments = ("INVALID_ARGUMENTS", -32602, true),
    /// A bug or an unexpected failure inside Ultra.
    InternalError = ("INTERNAL_ERROR", -32603, false),
    /// The operating system refused an I/O operation.
    IoError = ("IO_ERROR", -32603, false),
    /// Authentication is missing or wrong.
    Unauthorized = ("UNAUTHORIZED", -32001, true),
    /// The caller's source kind may not run this command.
    SourceNotAllowed = ("SOURCE_NOT_ALLOWED", -32001, false),
    /// The security settings do not allow agents this command (terminals, command
    /// execution, `restrictedCommands`).
    AccessDenied = ("ACCESS_DENIED", -32001, false),
    /// The security settings do not allow agents to touch files.
    FileAccessDenied = ("FILE_ACCESS_DENIED", -32003, false),
    /// The file or directory does not exist.
    FileNotFound = ("FILE_NOT_FOUND", -32002, true),
    /// The path resolves outside the workspace root.
    PathOutsideWorkspace = ("PATH_OUTSIDE_WORKSPACE", -32003, false),
    /// The path is inside the workspace but protected (`.git/`, configured restricted paths).
    RestrictedPath = ("RESTRICTED_PATH", -32003, false),
    /// The path is not a regular file (directory, FIFO, device, hard-linked file).
    NotAFile = ("NOT_A_FILE", -32003, true),
    /// The path names something that is not a directory where one is needed.
    NotADirectory = ("NOT_A_DIRECTORY", -32003, true),
    /// No terminal has this id (or it was disposed).
    TerminalNotFound = ("TERMINAL_NOT_FOUND", -32004, true),
    /// No test watch has this id (or it was stopped).
    WatchNotFound = ("WATCH_NOT_FOUND", -32004, true),
    /// No buffer is active and the command needs one.
    NoActiveBuffer = ("NO_ACTIVE_BUFFER", -32005, true),
    /// A person denied the pending confirmation.
    ConfirmationDenied = ("CONFIRMATION_DENIED", -32006, true),
    /// Nobody answered the pending confirmation in time.
    ConfirmationTimeout = ("CONFIRMATION_TIMEOUT", -32006, true),
    /// Policy says "ask" but no person can be asked on this path.
    ConfirmationRequired = ("CONFIRMATION_REQUIRED", -32006, true),
    /// No pending confirmation has this id.
    ConfirmationNotFound = ("CONFIRMATION_NOT_FOUND", -32006, true),
    /// Too many requests.
    RateLimited = ("RATE_LIMITED", -32007, true),
    /// The caller's version or hash is not the current one.
    StaleVersion = ("STALE_VERSION", -32010, true),
    /// A validator blocked the command.
    ValidationFailed = ("VALIDATION_FAILED", -32011, true),
    /// A validator blocked the content an edit would write.
    ContentValidationFailed = ("CONTENT_VALIDATION_FAILED", -32011, true),
    /// A validator blocked a create, delete, rename or move.
    FileOperationValidationFailed = ("FILE_OPERATION_VALIDATION_FAILED", -32011, true),
    /// A validator failed; AI calls are blocked when that happens (fail closed).
    ValidatorError = ("VALIDATOR_ERROR", -32011, false),
    /// Policy denies this command for this source.
    PolicyDenied = ("POLICY_DENIED", -32012, false),
    /// Anchor text was not found.
    NoMatch = ("NO_MATCH", -32013, true),
    /// Anchor text matched more than once.
    AmbiguousMatch = ("AMBIGUOUS_MATCH", -32013, true),
    /// The file already exists.
    FileExists = ("FILE_EXISTS", -32014, true),
    /// The directory is not empty.
    DirectoryNotEmpty = ("DIRECTORY_NOT_EMPTY", -32014, true),
    /// The file or request is over a size limit.
    TooLarge = ("TOO_LARGE", -32016, true),
    /// The file is not UTF-8 text.
    BinaryFile = ("BINARY_FILE", -32016, true),
    /// The buffer has unsaved changes and the command would discard them.
    BufferDirty = ("BUFFER_DIRTY", -32017, true),
    /// Nothing to undo or redo for the given filter.
    NothingToUndo = ("NOTHING_TO_UNDO", -32018, true),
    /// Later edits overlap the change being undone or redone.
    UndoConflict = ("UNDO_CONFLICT", -32018, true),
    /// A position or range is outside the buffer.
    InvalidPosition = ("INVALID_POSITION", -32602, true),
    /// A line range that is not in the file.
    InvalidRange = ("INVALID_RANGE", -32602, true),
    /// The workspace root is not the top of a git repository.
    NotARepository = ("NOT_A_GIT_REPOSITORY", -32020, false),
    /// A commit would record no change.
    NothingToCommit = ("NOTHING_TO_COMMIT", -32020, true),
    /// libgit2 refused an operation (its message says why).
    GitFailed = ("GIT_FAILED", -32020, true),
    /// No symbol (function, class, definition) has this name; suggestions come with it.
    SymbolNotFound = ("SYMBOL_NOT_FOUND", -32019, true),
    /// A shell script does not parse (or uses syntax the built-in shell does not support).
    ShellSyntax = ("SHELL_SYNTAX_ERROR", -32602, true),
    /// The IPC request type is unknown.
    UnknownRequest = ("UNKNOWN_REQUEST", -32600, true),
    /// A dry run (`ultra -c ... --dry-run`) writes nothing and starts nothing.
    DryRun = ("DRY_RUN", -32021, true),
    /// No language server answered (none configured or found, starting, or failed) for
    /// something only one can do, such as a rename.
    LanguageServerUnavailable = ("LANGUAGE_SERVER_UNAVAILABLE", -32022, true),
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A structured error: stable code, message, and what an agent can do about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommandError {
    pub code: ErrorCode,
    pub message: String,
    /// Code-specific data (current version and hash, candidate lines, schema issues, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<Box<serde_json::Value>>,
    /// What to do instead.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
    /// The caller can fix its input or re-read state and try again; false for faults and
    /// for refusals by configuration or policy ([`ErrorCode::recoverable`]).
    pub recoverable: bool,
    /// The same call may succeed later unchanged.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub retryable: bool,
}

impl CommandError {
    /// An error with a code and message; `recoverable` follows the code.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> CommandError {
        CommandError {
            code,
            message: message.into(),
            details: None,
            suggestion: None,
            recoverable: code.recoverable(),
            retryable: matches!(
                code,
                ErrorCode::RateLimited | ErrorCode::ConfirmationTimeout
            ),
        }
    }

    /// Attach details.
    pub fn with_details(mut self, details: serde_json::Value) -> CommandError {
        self.details = Some(Box::new(details));
        self
    }

    /// Attach a suggestion.
    pub fn with_suggestion(mut self, suggestion: impl Into<String>) -> CommandError {
        self.suggestion = Some(suggestion.into());
        self
    }
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for CommandError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for code in ErrorCode::ALL {
            assert!(seen.insert(code.as_str()), "duplicate code {code}");
            let json = serde_json::to_string(code).unwrap();
            assert_eq!(json, format!("\"{}\"", code.as_str()));
            let back: ErrorCode = serde_json::from_str(&json).unwrap();
            assert_eq!(back, *code);
        }
        let unknown: ErrorCode = serde_json::from_str("\"SOMETHING_NEW\"").unwrap();
        assert_eq!(unknown, ErrorCode::Unknown);
    }

    #[test]
    fn refusals_no_retry_fixes_are_not_recoverable() {
        use ErrorCode::*;
        for code in [
            PathOutsideWorkspace,
            RestrictedPath,
            PolicyDenied,
            AccessDenied,
            FileAccessDenied,
            SourceNotAllowed,
        ] {
            assert!(!code.recoverable(), "{code}");
            assert!(!CommandError::new(code, "no").recoverable, "{code}");
        }
        for code in [FileNotFound, StaleVersion, InvalidArguments, Unauthorized] {
            assert!(code.recoverable(), "{code}");
        }
    }
}
