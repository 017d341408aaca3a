//! `ultra.replaceText` (seed 000): find and replace in one buffer, through the one edit path.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::{Command, Cx};
use ultra_protocol::{CommandError, ErrorCode};
use ultra_workspace::workspace::{EditOp, FileEdits};

use super::{Edited, Finish, HELLO, apply_reported, single_reported};
use ultra_services::Services;
use ultra_services::util::target;

/// Result of `ultra.replaceText`: the edit, and seed 000's `count`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Replaced {
    #[serde(flatten)]
    pub edited: Edited,
    /// How many occurrences were replaced (seed 000's name for `replaced`).
    pub count: usize,
}

/// Arguments of `ultra.replaceText`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReplaceTextArgs {
    /// Text (or a regex with `regex: true`) to find.
    pub search: String,
    /// Replacement; with `regex`, `$1` / `${name}` refer to groups.
    pub replace: String,
    /// Replace every occurrence (default: the first).
    #[serde(default)]
    pub all: bool,
    /// Treat `search` as a regular expression.
    #[serde(default)]
    pub regex: bool,
    /// The file (default: the active buffer).
    pub path: Option<String>,
    pub expected_version: Option<u64>,
    pub expected_hash: Option<String>,
}

/// `ultra.replaceText`.
pub struct ReplaceText;

impl Command<Services> for ReplaceText {
    type Args = ReplaceTextArgs;
    type Output = Replaced;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.replaceText",
        "Replace Text",
        "Edit",
        "Find and replace in one buffer: the first occurrence, or all with all: true; literal text, or a regex with regex: true. Zero matches is NO_MATCH. `count` (seed 000) is how many were replaced.",
    )
    .touches(Touches::WRITE)
    .keybinding("ctrl+h")
    .more_keys(&[("ctrl+r", "{}")])
    .examples(&[
        Example {
            description: "Replace every `x` identifier with a regex",
            args: r#"{"path": "src/app.ts", "search": "\\bx\\b", "replace": "total", "all": true, "regex": true}"#,
            files: HELLO,
            expect: Some(r#"{"count": 2, "replaced": 2}"#),
            ..Example::EMPTY
        },
        Example {
            description: "Replace the first occurrence of literal text",
            args: r#"{"path": "src/app.ts", "search": "console.log", "replace": "logger.debug"}"#,
            files: HELLO,
            expect: Some(r#"{"count": 1, "replaced": 1}"#),
            ..Example::EMPTY
        },
    ]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: ReplaceTextArgs,
    ) -> Result<Replaced, CommandError> {
        let pattern = if args.regex {
            args.search.clone()
        } else {
            regex::escape(&args.search)
        };
        let re = regex::RegexBuilder::new(&pattern)
            .size_limit(1 << 22)
            .build()
            .map_err(|e| {
                CommandError::new(ErrorCode::InvalidArguments, format!("bad regex: {e}"))
                    .with_suggestion("fix the pattern, or pass regex: false for literal text")
            })?;
        let services = cx.services;
        let mut ws = services.ws();
        let (path, edits) = {
            let path = target(cx, &ws, args.path.as_deref(), true)?;
            ws.open_buffer(&path)?;
            let buf = ws
                .buffer(&path)
                .ok_or_else(|| CommandError::new(ErrorCode::InternalError, "buffer vanished"))?;
            let hay = buf.rope.to_string();
            let mut edits = Vec::new();
            for caps in re.captures_iter(&hay) {
                let Some(m) = caps.get(0) else { continue };
                let mut with = String::new();
                if args.regex {
                    caps.expand(&args.replace, &mut with);
                } else {
                    with = args.replace.clone();
                }
                edits.push(EditOp::Chars {
                    start: buf.rope.byte_to_char(m.start()),
                    end: buf.rope.byte_to_char(m.end()),
                    text: with,
                });
                if !args.all {
                    break;
                }
            }
            if edits.is_empty() {
                return Err(CommandError::new(
                    ErrorCode::NoMatch,
                    format!("`{}` was not found in {path}", args.search),
                )
                .with_suggestion("re-read the file; with regex: false the search is literal"));
            }
            (path, edits)
        };
        let n = edits.len();
        let file = FileEdits {
            path,
            expected_version: args.expected_version,
            expected_hash: args.expected_hash,
            edits,
        };
        let mut edited = single_reported(apply_reported(cx, ws, vec![file], Finish::Commit)?)?;
        edited.replaced = n;
        Ok(Replaced { edited, count: n })
    }
}
