//! The edits a key press makes at every cursor: delete left or right, a new line that
//! keeps the indentation, a tab. Each is one transaction; a selection is replaced. (Typed
//! characters are `ultra.insertText` without a position.)

use schemars::JsonSchema;
use serde::Deserialize;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::CommandError;
use ultra_workspace::buffer::Buffer;
use ultra_workspace::workspace::{EditOp, FileEdits};

use crate::edit::{Edited, Finish, apply_reported, single_reported};
use ultra_services::Services;
use ultra_services::util::target;

/// Register the typing commands.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    for k in KINDS {
        r.register(Typing(k))?;
    }
    Ok(())
}

const HELLO: &[(&str, &str)] = &[("src/app.ts", "const x = 1;\n  console.log(x);\n")];
const OPEN: &[(&str, &str)] = &[("ultra.openFile", r#"{"path": "src/app.ts"}"#)];

/// Arguments of the typing commands.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TypingArgs {
    /// The file (default: the active buffer).
    pub path: Option<String>,
    /// Refuse with STALE_VERSION unless the buffer is at this version.
    pub expected_version: Option<u64>,
}

#[derive(Debug, Clone, Copy)]
enum Kind {
    DeleteLeft,
    DeleteRight,
    NewLine,
    Tab,
}

/// One typing command.
pub struct Typing(&'static (CommandSpec, Kind));

static KINDS: &[&(CommandSpec, Kind)] = &[
    &(
        CommandSpec::new(
            "ultra.deleteLeft",
            "Delete Left",
            "Edit",
            "Delete the character before every cursor, or the selected text (Backspace).",
        )
        .touches(Touches::WRITE)
        .keybinding("backspace")
        .examples(&[
            Example {
                description: "Backspace after `const`",
                setup: &[
                    ("ultra.openFile", r#"{"path": "src/app.ts"}"#),
                    ("ultra.cursorRight", r#"{"count": 5}"#),
                ],
                files: HELLO,
                expect: Some(r#"{"version": 2, "lineCount": 3}"#),
                ..Example::EMPTY
            },
            Example {
                description: "At two cursors, joining the lines at the second",
                setup: &[
                    ("ultra.openFile", r#"{"path": "src/app.ts"}"#),
                    ("ultra.goToLine", r#"{"line": 1, "column": 6}"#),
                    (
                        "ultra.addCursor",
                        r#"{"position": {"line": 1, "character": 0}}"#,
                    ),
                ],
                files: HELLO,
                expect: Some(r#"{"version": 2, "lineCount": 2, "changedLines": [1, 1]}"#),
                ..Example::EMPTY
            },
        ]),
        Kind::DeleteLeft,
    ),
    &(
        CommandSpec::new(
            "ultra.deleteRight",
            "Delete Right",
            "Edit",
            "Delete the character after every cursor, or the selected text (Delete).",
        )
        .touches(Touches::WRITE)
        .keybinding("delete")
        .examples(&[Example {
            description: "Delete at the start",
            setup: OPEN,
            files: HELLO,
            expect: Some(r#"{"version": 2, "changedLines": [1, 1]}"#),
            ..Example::EMPTY
        }]),
        Kind::DeleteRight,
    ),
    &(
        CommandSpec::new(
            "ultra.newLine",
            "New Line",
            "Edit",
            "Break the line at every cursor, indenting the new line as the current one is (Enter).",
        )
        .touches(Touches::WRITE)
        .keybinding("enter")
        .examples(&[Example {
            description: "Enter at the end of an indented line",
            setup: &[
                ("ultra.openFile", r#"{"path": "src/app.ts"}"#),
                ("ultra.goToLine", r#"{"line": 2, "column": 17}"#),
            ],
            files: HELLO,
            expect: Some(r#"{"lineCount": 4}"#),
            ..Example::EMPTY
        }]),
        Kind::NewLine,
    ),
    &(
        CommandSpec::new(
            "ultra.insertTab",
            "Insert Tab",
            "Edit",
            "Insert spaces to the next multiple of four columns at every cursor (Tab).",
        )
        .touches(Touches::WRITE)
        .keybinding("tab")
        .examples(&[Example {
            description: "Tab at the start",
            setup: OPEN,
            files: HELLO,
            expect: Some(r#"{"version": 2}"#),
            ..Example::EMPTY
        }]),
        Kind::Tab,
    ),
];

/// The edits `kind` makes at each selection of `buf`, merged where they would overlap.
fn edits(buf: &Buffer, kind: Kind) -> Vec<EditOp> {
    let rope = &buf.rope;
    let len = rope.len_chars();
    let mut spans: Vec<(usize, usize, String)> = buf
        .selections
        .iter()
        .map(|s| {
            let (start, end) = s.span();
            let line = rope.char_to_line(start);
            let line_start = rope.line_to_char(line);
            match kind {
                Kind::DeleteLeft if start == end => {
                    // A line break written \r\n goes as one.
                    let back = if start >= 2
                        && rope.char(start - 1) == '\n'
                        && rope.char(start - 2) == '\r'
                    {
                        2
                    } else {
                        1
                    };
                    (start.saturating_sub(back), end, String::new())
                }
                Kind::DeleteRight if start == end => {
                    let fwd = if start + 1 < len
                        && rope.char(start) == '\r'
                        && rope.char(start + 1) == '\n'
                    {
                        2
                    } else {
                        1
                    };
                    (start, (end + fwd).min(len), String::new())
                }
                Kind::DeleteLeft | Kind::DeleteRight => (start, end, String::new()),
                Kind::NewLine => {
                    let indent: String = rope
                        .line(line)
                        .chars()
                        .take(start - line_start)
                        .take_while(|c| *c == ' ' || *c == '\t')
                        .collect();
                    (start, end, format!("\n{indent}"))
                }
                Kind::Tab => {
                    let col = start - line_start;
                    (start, end, " ".repeat(4 - col % 4))
                }
            }
        })
        .filter(|(s, e, t)| s != e || !t.is_empty())
        .collect();
    spans.sort_by_key(|(s, e, _)| (*s, *e));
    let mut merged: Vec<(usize, usize, String)> = Vec::with_capacity(spans.len());
    for (s, e, t) in spans {
        match merged.last_mut() {
            Some(last) if s < last.1 => {
                last.1 = last.1.max(e);
            }
            _ => merged.push((s, e, t)),
        }
    }
    merged
        .into_iter()
        .map(|(start, end, text)| EditOp::Chars { start, end, text })
        .collect()
}

impl Command<Services> for Typing {
    type Args = TypingArgs;
    type Output = Edited;

    fn spec(&self) -> &'static CommandSpec {
        &self.0.0
    }

    fn run(&self, cx: &mut Cx<'_, Services>, a: TypingArgs) -> Result<Edited, CommandError> {
        let services = cx.services;
        let mut ws = services.ws();
        let (path, ops) = {
            let path = target(cx, &ws, a.path.as_deref(), true)?;
            ws.open_buffer(&path)?;
            let buf = ws
                .buffer(&path)
                .ok_or_else(|| ultra_workspace::WsError::NotFound(path.to_string()))?;
            let ops = edits(buf, self.0.1);
            if ops.is_empty() {
                // Backspace at the very start, Delete at the very end: nothing to do.
                return Ok(Edited {
                    txn_id: 0,
                    path: path.to_string(),
                    version: buf.version,
                    hash: None,
                    line_count: buf.rope.len_lines(),
                    replaced: 0,
                    match_level: None,
                    changed_lines: None,
                    diagnostics: Default::default(),
                });
            }
            (path, ops)
        };
        let file = FileEdits {
            path,
            expected_version: a.expected_version,
            expected_hash: None,
            edits: ops,
        };
        single_reported(apply_reported(cx, ws, vec![file], Finish::Commit)?)
    }
}
