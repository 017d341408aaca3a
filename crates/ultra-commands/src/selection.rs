//! Selections and multiple cursors.

use schemars::JsonSchema;
use serde::Deserialize;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, ErrorCode, Position, PositionEncoding, Range};
use ultra_workspace::buffer::{Buffer, Selection};
use ultra_workspace::text;

use crate::navigation::{Cursors, cursors, dedup, is_word, with_buffer, word_at};
use ultra_services::Services;

/// Register the selection commands.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(SetSelection)?;
    r.register(AddCursor)?;
    r.register(SelectAll)?;
    r.register(SingleCursor)?;
    r.register(SelectWord)?;
    r.register(SelectLine)?;
    r.register(AddCursorVertical(&ADD_CURSOR_ABOVE, false))?;
    r.register(AddCursorVertical(&ADD_CURSOR_BELOW, true))?;
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

impl Command<Services> for SetSelection {
    type Args = SetSelectionArgs;
    type Output = Cursors;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.setSelection",
        "Set Selection",
        "Selection",
        "Replace the selections with one range or several (multiple cursors, primary first). Positions are 0-based.",
    )
    .touches(Touches::NOTHING)
    .idempotent()
    .examples(&[Example {
        description: "Select `console` and `x` on two lines",
        args: r#"{"ranges": [{"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 7}}, {"start": {"line": 0, "character": 6}, "end": {"line": 0, "character": 7}}]}"#,
        files: HELLO,
        setup: OPEN,
        expect: Some(r#"{"cursor": {"line": 1, "character": 7}}"#),
        ..Example::EMPTY
    }]);

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

impl Command<Services> for AddCursor {
    type Args = AddCursorArgs;
    type Output = Cursors;

    const SPEC: CommandSpec = CommandSpec::new("ultra.addCursor", "Add Cursor", "Selection", "Add a cursor; typing with ultra.insertText then inserts at every cursor.")
    .touches(Touches::NOTHING)
        .examples(&[Example {
            description: "Add a cursor on line 2",
            args: r#"{"position": {"line": 1, "character": 0}}"#,
            files: HELLO,
            setup: OPEN,
            expect: Some(r#"{"selections": [{"start": {"line": 0, "character": 0}}, {"start": {"line": 1, "character": 0}}]}"#),
            ..Example::EMPTY
        }]);

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

impl Command<Services> for SelectAll {
    type Args = PathArg;
    type Output = Cursors;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.selectAll",
        "Select All",
        "Selection",
        "Select the whole buffer as one selection.",
    )
    .touches(Touches::NOTHING)
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

impl Command<Services> for SingleCursor {
    type Args = PathArg;
    type Output = Cursors;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.singleCursor",
        "Single Cursor",
        "Selection",
        "Drop every selection but the primary, and collapse it to its cursor.",
    )
    .touches(Touches::NOTHING)
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

    fn run(&self, cx: &mut Cx<'_, Services>, args: PathArg) -> Result<Cursors, CommandError> {
        with_buffer(cx, args.path.as_deref(), |buf, enc| {
            let head = buf.selections[0].head;
            buf.selections = vec![Selection::cursor(head)];
            Ok(cursors(buf, enc))
        })
    }
}

// ---------------------------------------------------------------- selectWord

/// `ultra.selectWord`.
pub struct SelectWord;

impl Command<Services> for SelectWord {
    type Args = PathArg;
    type Output = Cursors;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.selectWord",
        "Select Word / Add Next Occurrence",
        "Selection",
        "With an empty primary selection, select the word at the cursor; with text selected, add a selection at the next occurrence of that text (wrapping), as VS Code's Ctrl+D does.",
    )
    .touches(Touches::NOTHING)
    .keybinding("ctrl+d")
    .examples(&[
        Example {
            description: "The word at the cursor",
            args: "{}",
            files: HELLO,
            setup: &[
                ("ultra.openFile", r#"{"path": "src/app.ts"}"#),
                ("ultra.goToLine", r#"{"line": 2, "column": 3}"#),
            ],
            expect: Some(r#"{"selections": [{"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 7}}]}"#),
            ..Example::EMPTY
        },
        Example {
            description: "Twice: the next `x` too",
            args: "{}",
            files: HELLO,
            setup: &[
                ("ultra.openFile", r#"{"path": "src/app.ts"}"#),
                ("ultra.goToLine", r#"{"line": 1, "column": 7}"#),
                ("ultra.selectWord", "{}"),
            ],
            expect: Some(r#"{"selections": [{"start": {"line": 0, "character": 6}}, {"start": {"line": 1, "character": 12}, "end": {"line": 1, "character": 13}}]}"#),
            ..Example::EMPTY
        },
    ]);

    fn run(&self, cx: &mut Cx<'_, Services>, args: PathArg) -> Result<Cursors, CommandError> {
        with_buffer(cx, args.path.as_deref(), |buf, enc| {
            let rope = &buf.rope;
            let primary = buf.selections[0];
            if primary.anchor == primary.head {
                let (s, e) = word_at(rope, primary.head, is_word);
                if s == e {
                    return Err(
                        CommandError::new(ErrorCode::NoMatch, "no word at the cursor")
                            .with_suggestion("move the cursor onto a word, or select text first"),
                    );
                }
                buf.selections[0] = Selection { anchor: s, head: e };
                return Ok(cursors(buf, enc));
            }
            let (ps, pe) = primary.span();
            let needle: String = rope.slice(ps..pe).chars().collect();
            let text = rope.to_string();
            let after = buf
                .selections
                .iter()
                .map(|s| s.span().1)
                .max()
                .unwrap_or(pe);
            let byte_after = rope.char_to_byte(after);
            let found = text[byte_after..]
                .find(&needle)
                .map(|i| i + byte_after)
                .or_else(|| text.find(&needle));
            let taken = |at: usize| {
                let c = rope.byte_to_char(at);
                buf.selections.iter().any(|s| s.span().0 == c)
            };
            match found.filter(|&at| !taken(at)) {
                Some(at) => {
                    let s = rope.byte_to_char(at);
                    let e = s + needle.chars().count();
                    buf.selections.push(Selection { anchor: s, head: e });
                    Ok(cursors(buf, enc))
                }
                None => Err(CommandError::new(
                    ErrorCode::NoMatch,
                    "every occurrence of the selected text is already selected",
                )
                .with_suggestion("type to edit them all, or press Escape for one cursor")),
            }
        })
    }
}

// ---------------------------------------------------------------- selectLine

/// `ultra.selectLine`.
pub struct SelectLine;

impl Command<Services> for SelectLine {
    type Args = PathArg;
    type Output = Cursors;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.selectLine",
        "Select Line",
        "Selection",
        "Extend every selection to whole lines, line break included; again, to the next line too.",
    )
    .touches(Touches::NOTHING)
    .keybinding("ctrl+l")
    .examples(&[Example {
        description: "The first line",
        args: "{}",
        files: HELLO,
        setup: OPEN,
        expect: Some(r#"{"selections": [{"start": {"line": 0, "character": 0}, "end": {"line": 1, "character": 0}}]}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, args: PathArg) -> Result<Cursors, CommandError> {
        with_buffer(cx, args.path.as_deref(), |buf, enc| {
            let rope = buf.rope.clone();
            let lines = rope.len_lines();
            for sel in buf.selections.iter_mut() {
                let (s, e) = sel.span();
                let first = rope.char_to_line(s);
                let last = rope.char_to_line(e);
                let at_start = e == rope.line_to_char(last);
                // A selection ending at a line start already covers that line break,
                // unless it is a bare cursor or already whole lines (then grow by one).
                let whole = s == rope.line_to_char(first) && e > s && at_start;
                let last = if whole || !at_start || e == s {
                    last + 1
                } else {
                    last
                };
                *sel = Selection {
                    anchor: rope.line_to_char(first),
                    head: rope.line_to_char(last.min(lines)),
                };
            }
            dedup(&mut buf.selections);
            Ok(cursors(buf, enc))
        })
    }
}

// ---------------------------------------------------------------- addCursorAbove/Below

/// `ultra.addCursorAbove` / `ultra.addCursorBelow`.
pub struct AddCursorVertical(&'static CommandSpec, bool);

static ADD_CURSOR_ABOVE: CommandSpec = CommandSpec::new(
    "ultra.addCursorAbove",
    "Add Cursor Above",
    "Selection",
    "Add a cursor on the line above the topmost cursor, in the same column where the line allows.",
)
.touches(Touches::NOTHING)
.keybinding("ctrl+alt+up")
.examples(&[Example {
    description: "From line 2",
    args: "{}",
    files: HELLO,
    setup: &[
        ("ultra.openFile", r#"{"path": "src/app.ts"}"#),
        ("ultra.goToLine", r#"{"line": 2, "column": 3}"#),
    ],
    expect: Some(r#"{"selections": [{"start": {"line": 1, "character": 2}}, {"start": {"line": 0, "character": 2}}]}"#),
    ..Example::EMPTY
}]);

static ADD_CURSOR_BELOW: CommandSpec = CommandSpec::new(
    "ultra.addCursorBelow",
    "Add Cursor Below",
    "Selection",
    "Add a cursor on the line below the bottommost cursor, in the same column where the line allows.",
)
.touches(Touches::NOTHING)
.keybinding("ctrl+alt+down")
.examples(&[Example {
    description: "From line 1",
    args: "{}",
    files: HELLO,
    setup: OPEN,
    expect: Some(r#"{"selections": [{"start": {"line": 0, "character": 0}}, {"start": {"line": 1, "character": 0}}]}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for AddCursorVertical {
    type Args = PathArg;
    type Output = Cursors;

    fn spec(&self) -> &'static CommandSpec {
        self.0
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: PathArg) -> Result<Cursors, CommandError> {
        let below = self.1;
        with_buffer(cx, args.path.as_deref(), |buf, enc| {
            let rope = &buf.rope;
            let heads = buf.selections.iter().map(|s| s.head);
            let from = if below { heads.max() } else { heads.min() }.unwrap_or(0);
            let line = rope.char_to_line(from);
            let col = from - rope.line_to_char(line);
            let target = if below {
                line + 1
            } else {
                match line.checked_sub(1) {
                    Some(l) => l,
                    None => return Ok(cursors(buf, enc)),
                }
            };
            if target >= rope.len_lines() {
                return Ok(cursors(buf, enc));
            }
            let at = rope.line_to_char(target) + col.min(text::line_len(rope, target));
            buf.selections.push(Selection::cursor(at));
            dedup(&mut buf.selections);
            Ok(cursors(buf, enc))
        })
    }
}
