//! Selections and multiple cursors.

use schemars::JsonSchema;
use serde::Deserialize;
use ultra_core::command::{CommandSpec, Example};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, ErrorCode, Position, PositionEncoding, Range};
use ultra_workspace::buffer::{Buffer, Selection};
use ultra_workspace::text;

use crate::Services;
use crate::navigation::{Cursors, cursors, dedup, with_buffer};

/// Register the selection commands.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(SetSelection)?;
    r.register(AddCursor)?;
    r.register(SelectAll)?;
    r.register(SingleCursor)?;
    Ok(())
}

const HELLO: &[(&str, &str)] = &[("src/app.ts", "const x = 1;\nconsole.log(x);\n")];
const OPEN: &[(&str, &str)] = &[("ultra.openFile", r#"{"path": "src/app.ts"}"#)];

/// Arguments of `ultra.setSelection`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SetSelectionArgs {
    /// One selection (0-based).
    pub range: Option<Range>,
    /// Several selections, primary first (multiple cursors).
    pub ranges: Option<Vec<Range>>,
    /// The cursor sits at the start of each range instead of its end.
    #[serde(default)]
    pub reversed: bool,
    /// The file (default: the active buffer).
    pub path: Option<String>,
}

/// `ultra.setSelection`.
pub struct SetSelection;

static SET_SELECTION: CommandSpec = CommandSpec::new(
    "ultra.setSelection",
    "Set Selection",
    "Selection",
    "Replace the selections with one range or several (multiple cursors, primary first). Positions are 0-based.",
)
.idempotent()
.examples(&[Example {
    description: "Select `console` and `x` on two lines",
    args: r#"{"ranges": [{"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 7}}, {"start": {"line": 0, "character": 6}, "end": {"line": 0, "character": 7}}]}"#,
    files: HELLO,
    setup: OPEN,
    expect: Some(r#"{"cursor": {"line": 1, "character": 7}}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for SetSelection {
    type Args = SetSelectionArgs;
    type Output = Cursors;

    fn spec(&self) -> &'static CommandSpec {
        &SET_SELECTION
    }

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: SetSelectionArgs,
    ) -> Result<Cursors, CommandError> {
        let ranges: Vec<Range> = match (args.range, args.ranges) {
            (Some(r), None) => vec![r],
            (None, Some(rs)) if !rs.is_empty() && rs.len() <= 10_000 => rs,
            _ => {
                return Err(CommandError::new(ErrorCode::InvalidArguments, "give `range` or a non-empty `ranges` (at most 10000)")
                    .with_suggestion(r#"{"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}}"#));
            }
        };
        with_buffer(cx, args.path.as_deref(), |buf, enc| {
            set_ranges(buf, &ranges, args.reversed, enc)?;
            Ok(cursors(buf, enc))
        })
    }
}

/// Replace a buffer's selections with `ranges` (0-based, primary first). Nothing changes
/// if any position is invalid.
pub(crate) fn set_ranges(
    buf: &mut Buffer,
    ranges: &[Range],
    reversed: bool,
    enc: PositionEncoding,
) -> Result<(), CommandError> {
    let mut sels = Vec::with_capacity(ranges.len());
    for r in ranges {
        let s = text::to_char(&buf.rope, r.start, enc)?;
        let e = text::to_char(&buf.rope, r.end, enc)?;
        sels.push(if reversed {
            Selection { anchor: e, head: s }
        } else {
            Selection { anchor: s, head: e }
        });
    }
    dedup(&mut sels);
    buf.selections = sels;
    Ok(())
}

/// Arguments of `ultra.addCursor`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AddCursorArgs {
    /// Where the new cursor goes (0-based).
    pub position: Position,
    /// The file (default: the active buffer).
    pub path: Option<String>,
}

/// `ultra.addCursor`.
pub struct AddCursor;

static ADD_CURSOR: CommandSpec = CommandSpec::new("ultra.addCursor", "Add Cursor", "Selection", "Add a cursor; typing with ultra.insertText then inserts at every cursor.")
    .keybinding("ctrl+alt+down")
    .examples(&[Example {
        description: "Add a cursor on line 2",
        args: r#"{"position": {"line": 1, "character": 0}}"#,
        files: HELLO,
        setup: OPEN,
        expect: Some(r#"{"selections": [{"start": {"line": 0, "character": 0}}, {"start": {"line": 1, "character": 0}}]}"#),
        ..Example::EMPTY
    }]);

impl Command<Services> for AddCursor {
    type Args = AddCursorArgs;
    type Output = Cursors;

    fn spec(&self) -> &'static CommandSpec {
        &ADD_CURSOR
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: AddCursorArgs) -> Result<Cursors, CommandError> {
        with_buffer(cx, args.path.as_deref(), |buf, enc| {
            let at = text::to_char(&buf.rope, args.position, enc)?;
            buf.selections.push(Selection::cursor(at));
            dedup(&mut buf.selections);
            Ok(cursors(buf, enc))
        })
    }
}

/// Arguments with only an optional path.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PathArg {
    /// The file (default: the active buffer).
    pub path: Option<String>,
}

/// `ultra.selectAll`.
pub struct SelectAll;

static SELECT_ALL: CommandSpec = CommandSpec::new(
    "ultra.selectAll",
    "Select All",
    "Selection",
    "Select the whole buffer as one selection.",
)
.keybinding("ctrl+a")
.idempotent()
.examples(&[Example {
    description: "Select everything",
    args: "{}",
    files: HELLO,
    setup: OPEN,
    expect: Some(r#"{"cursor": {"line": 2, "character": 0}}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for SelectAll {
    type Args = PathArg;
    type Output = Cursors;

    fn spec(&self) -> &'static CommandSpec {
        &SELECT_ALL
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: PathArg) -> Result<Cursors, CommandError> {
        with_buffer(cx, args.path.as_deref(), |buf, enc| {
            buf.selections = vec![Selection {
                anchor: 0,
                head: buf.rope.len_chars(),
            }];
            Ok(cursors(buf, enc))
        })
    }
}

/// `ultra.singleCursor`.
pub struct SingleCursor;

static SINGLE_CURSOR: CommandSpec = CommandSpec::new(
    "ultra.singleCursor",
    "Single Cursor",
    "Selection",
    "Drop every selection but the primary, and collapse it to its cursor.",
)
.keybinding("escape")
.idempotent()
.examples(&[Example {
    description: "Back to one cursor",
    args: "{}",
    files: HELLO,
    setup: &[
        ("ultra.openFile", r#"{"path": "src/app.ts"}"#),
        (
            "ultra.addCursor",
            r#"{"position": {"line": 1, "character": 0}}"#,
        ),
    ],
    expect: Some(r#"{"selections": [{"start": {"line": 0, "character": 0}}]}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for SingleCursor {
    type Args = PathArg;
    type Output = Cursors;

    fn spec(&self) -> &'static CommandSpec {
        &SINGLE_CURSOR
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: PathArg) -> Result<Cursors, CommandError> {
        with_buffer(cx, args.path.as_deref(), |buf, enc| {
            let head = buf.selections[0].head;
            buf.selections = vec![Selection::cursor(head)];
            Ok(cursors(buf, enc))
        })
    }
}
