//! Navigation: go to a line and move the cursors (every cursor moves; `select` extends).

use ropey::Rope;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::{CommandError, Position, PositionEncoding, Range};
use ultra_workspace::buffer::{Buffer, Selection};
use ultra_workspace::text;

use ultra_services::Services;
use ultra_services::util::target;

/// Register the navigation commands.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(GoToLine)?;
    for m in MOTIONS {
        r.register(CursorMove(m))?;
    }
    Ok(())
}

const HELLO: &[(&str, &str)] = &[("src/app.ts", "const x = 1;\nconsole.log(x);\n")];
const OPEN: &[(&str, &str)] = &[("ultra.openFile", r#"{"path": "src/app.ts"}"#)];

/// Where the cursors are after a move.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Cursors {
    pub path: String,
    /// The primary cursor.
    pub cursor: Position,
    /// Every selection, primary first.
    pub selections: Vec<Range>,
}

pub(crate) fn cursors(buf: &Buffer, enc: PositionEncoding) -> Cursors {
    Cursors {
        path: buf.path.to_string(),
        cursor: buf.cursor(enc),
        selections: buf
            .selections
            .iter()
            .map(|s| buf.range_of(s, enc))
            .collect(),
    }
}

/// Run `f` on the buffer a navigation command targets.
pub(crate) fn with_buffer<T>(
    cx: &Cx<'_, Services>,
    path: Option<&str>,
    f: impl FnOnce(&mut Buffer, PositionEncoding) -> Result<T, CommandError>,
) -> Result<T, CommandError> {
    let mut ws = cx.services.ws();
    let rel = target(cx, &ws, path, false)?;
    ws.open_buffer(&rel)?;
    ws.set_active(&rel);
    let buf = ws
        .buffer_mut(&rel)
        .ok_or_else(|| ultra_workspace::WsError::NotFound(rel.to_string()))?;
    f(buf, cx.source.encoding())
}

// ---------------------------------------------------------------- goToLine

/// Arguments of `ultra.goToLine`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GoToLineArgs {
    /// Line (1-based).
    #[schemars(range(min = 1))]
    pub line: u32,
    /// Column (1-based, default 1).
    #[schemars(range(min = 1))]
    pub column: Option<u32>,
    /// The file (default: the active buffer).
    pub path: Option<String>,
}

/// `ultra.goToLine`.
pub struct GoToLine;

impl Command<Services> for GoToLine {
    type Args = GoToLineArgs;
    type Output = Cursors;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.goToLine",
        "Go to Line",
        "Navigation",
        "Put a single cursor at a line (1-based) and column (1-based).",
    )
    .touches(Touches::NOTHING)
    .keybinding("ctrl+g")
    .idempotent()
    .examples(&[Example {
        description: "Jump to line 2",
        args: r#"{"line": 2}"#,
        files: HELLO,
        setup: OPEN,
        expect: Some(r#"{"cursor": {"line": 1, "character": 0}}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, args: GoToLineArgs) -> Result<Cursors, CommandError> {
        with_buffer(cx, args.path.as_deref(), |buf, enc| {
            let pos = Position::new(
                args.line.saturating_sub(1),
                args.column.unwrap_or(1).saturating_sub(1),
            );
            let at = text::to_char(&buf.rope, pos, enc)?;
            buf.selections = vec![Selection::cursor(at)];
            Ok(cursors(buf, enc))
        })
    }
}

// ---------------------------------------------------------------- cursor moves

/// A cursor motion.
#[derive(Debug, Clone, Copy)]
pub enum Motion {
    Left,
    Right,
    Up,
    Down,
    LineStart,
    LineEnd,
    FileStart,
    FileEnd,
    WordLeft,
    WordRight,
    PageUp,
    PageDown,
}

/// Arguments of the cursor moves.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct MoveArgs {
    /// How many times to move (default 1).
    pub count: Option<u32>,
    /// Extend the selections instead of moving the cursors.
    #[serde(default)]
    pub select: bool,
    /// The file (default: the active buffer).
    pub path: Option<String>,
}

/// One cursor-move command.
pub struct CursorMove(&'static (CommandSpec, Motion));

macro_rules! motion {
    ($id:literal, $title:literal, $key:literal, $desc:literal, $m:expr, $example:literal, $expect:literal) => {
        (
            CommandSpec::new($id, $title, "Navigation", $desc)
                .touches(Touches::NOTHING)
                .keybinding($key)
                .more_keys(&[(concat!("shift+", $key), r#"{"select": true}"#)])
                .examples(&[Example {
                    description: $title,
                    args: $example,
                    files: HELLO,
                    setup: OPEN,
                    expect: Some($expect),
                    ..Example::EMPTY
                }]),
            $m,
        )
    };
}

static MOTIONS: &[&(CommandSpec, Motion)] = &[
    &motion!(
        "ultra.cursorLeft",
        "Cursor Left",
        "left",
        "Move every cursor one character left (count times).",
        Motion::Left,
        r#"{}"#,
        r#"{"cursor": {"line": 0, "character": 0}}"#
    ),
    &motion!(
        "ultra.cursorRight",
        "Cursor Right",
        "right",
        "Move every cursor one character right; select extends the selection.",
        Motion::Right,
        r#"{"count": 5, "select": true}"#,
        r#"{"cursor": {"line": 0, "character": 5}, "selections": [{"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 5}}]}"#
    ),
    &motion!(
        "ultra.cursorUp",
        "Cursor Up",
        "up",
        "Move every cursor one line up, keeping the column where the line allows.",
        Motion::Up,
        r#"{}"#,
        r#"{"cursor": {"line": 0, "character": 0}}"#
    ),
    &motion!(
        "ultra.cursorDown",
        "Cursor Down",
        "down",
        "Move every cursor one line down, keeping the column where the line allows (and the column it came from, through shorter lines).",
        Motion::Down,
        r#"{}"#,
        r#"{"cursor": {"line": 1, "character": 0}}"#
    ),
    &motion!(
        "ultra.cursorLineStart",
        "Cursor to Line Start",
        "home",
        "Move every cursor to the start of its line.",
        Motion::LineStart,
        r#"{}"#,
        r#"{"cursor": {"line": 0, "character": 0}}"#
    ),
    &motion!(
        "ultra.cursorLineEnd",
        "Cursor to Line End",
        "end",
        "Move every cursor to the end of its line.",
        Motion::LineEnd,
        r#"{}"#,
        r#"{"cursor": {"line": 0, "character": 12}}"#
    ),
    &motion!(
        "ultra.cursorFileStart",
        "Cursor to File Start",
        "ctrl+home",
        "Move the cursor to the start of the file.",
        Motion::FileStart,
        r#"{}"#,
        r#"{"cursor": {"line": 0, "character": 0}}"#
    ),
    &motion!(
        "ultra.cursorFileEnd",
        "Cursor to File End",
        "ctrl+end",
        "Move the cursor to the end of the file.",
        Motion::FileEnd,
        r#"{}"#,
        r#"{"cursor": {"line": 2, "character": 0}}"#
    ),
    &motion!(
        "ultra.cursorPageUp",
        "Cursor Page Up",
        "pageup",
        "Move every cursor a page up: `count` lines (editors pass their height; default 30).",
        Motion::PageUp,
        r#"{"count": 1}"#,
        r#"{"cursor": {"line": 0, "character": 0}}"#
    ),
    &motion!(
        "ultra.cursorPageDown",
        "Cursor Page Down",
        "pagedown",
        "Move every cursor a page down: `count` lines (editors pass their height; default 30).",
        Motion::PageDown,
        r#"{"count": 1}"#,
        r#"{"cursor": {"line": 1, "character": 0}}"#
    ),
    &motion!(
        "ultra.cursorWordLeft",
        "Cursor Word Left",
        "ctrl+left",
        "Move every cursor to the start of the previous word.",
        Motion::WordLeft,
        r#"{}"#,
        r#"{"cursor": {"line": 0, "character": 0}}"#
    ),
    &motion!(
        "ultra.cursorWordRight",
        "Cursor Word Right",
        "ctrl+right",
        "Move every cursor past the end of the next word.",
        Motion::WordRight,
        r#"{"count": 2}"#,
        r#"{"cursor": {"line": 0, "character": 7}}"#
    ),
];

/// A character of a word for word motions and selections.
pub(crate) fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The chars `start..end` of the run of `word` characters around `at` (empty when `at`
/// touches none).
pub(crate) fn word_at(rope: &Rope, at: usize, word: impl Fn(char) -> bool) -> (usize, usize) {
    let (mut s, mut e) = (at, at);
    while s > 0 && word(rope.char(s - 1)) {
        s -= 1;
    }
    while e < rope.len_chars() && word(rope.char(e)) {
        e += 1;
    }
    (s, e)
}

fn step(rope: &Rope, at: usize, m: Motion) -> usize {
    let len = rope.len_chars();
    match m {
        Motion::Left => at.saturating_sub(1),
        Motion::Right => (at + 1).min(len),
        Motion::PageUp => step(rope, at, Motion::Up),
        Motion::PageDown => step(rope, at, Motion::Down),
        Motion::Up | Motion::Down => {
            let line = rope.char_to_line(at);
            let col = at - rope.line_to_char(line);
            let target = match m {
                Motion::Up if line == 0 => return 0,
                Motion::Up => line - 1,
                _ if line + 1 >= rope.len_lines() => return len,
                _ => line + 1,
            };
            rope.line_to_char(target) + col.min(text::line_len(rope, target))
        }
        Motion::LineStart => rope.line_to_char(rope.char_to_line(at)),
        Motion::LineEnd => {
            let line = rope.char_to_line(at);
            rope.line_to_char(line) + text::line_len(rope, line)
        }
        Motion::FileStart => 0,
        Motion::FileEnd => len,
        Motion::WordRight => {
            let mut i = at;
            while i < len && !is_word(rope.char(i)) {
                i += 1;
            }
            while i < len && is_word(rope.char(i)) {
                i += 1;
            }
            i
        }
        Motion::WordLeft => {
            let mut i = at;
            while i > 0 && !is_word(rope.char(i - 1)) {
                i -= 1;
            }
            while i > 0 && is_word(rope.char(i - 1)) {
                i -= 1;
            }
            i
        }
    }
}

impl Command<Services> for CursorMove {
    type Args = MoveArgs;
    type Output = Cursors;

    fn spec(&self) -> &'static CommandSpec {
        &self.0.0
    }

    fn run(&self, cx: &mut Cx<'_, Services>, args: MoveArgs) -> Result<Cursors, CommandError> {
        let motion = self.0.1;
        let page = matches!(motion, Motion::PageUp | Motion::PageDown);
        let count = args
            .count
            .unwrap_or(if page { 30 } else { 1 })
            .clamp(1, 1_000_000);
        with_buffer(cx, args.path.as_deref(), |buf, enc| {
            let rope = buf.rope.clone();
            let vertical = matches!(
                motion,
                Motion::Up | Motion::Down | Motion::PageUp | Motion::PageDown
            );
            let heads: Vec<usize> = buf.selections.iter().map(|s| s.head).collect();
            // The columns to aim for: those of the last vertical move if it left the
            // cursors where they are, else where they are now.
            let goals: Vec<usize> = match &buf.goal {
                Some((at, cols)) if vertical && *at == heads => cols.clone(),
                _ => heads
                    .iter()
                    .map(|h| h - rope.line_to_char(rope.char_to_line(*h)))
                    .collect(),
            };
            for (sel, goal) in buf.selections.iter_mut().zip(&goals) {
                let mut head = sel.head;
                for _ in 0..count {
                    let next = step(&rope, head, motion);
                    if next == head {
                        break;
                    }
                    head = next;
                }
                let line = rope.char_to_line(head);
                if vertical && line != rope.char_to_line(sel.head) {
                    head = rope.line_to_char(line) + (*goal).min(text::line_len(&rope, line));
                }
                *sel = if args.select {
                    Selection {
                        anchor: sel.anchor,
                        head,
                    }
                } else {
                    Selection::cursor(head)
                };
            }
            dedup(&mut buf.selections);
            buf.goal = vertical.then(|| {
                let heads = buf.selections.iter().map(|s| s.head).collect();
                (heads, goals)
            });
            Ok(cursors(buf, enc))
        })
    }
}

/// Drop selections that became identical, keeping the first (primary) one.
pub(crate) fn dedup(sels: &mut Vec<Selection>) {
    let mut seen = std::collections::HashSet::new();
    sels.retain(|s| seen.insert((s.anchor, s.head)));
}
