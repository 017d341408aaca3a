//! `ultra.getViewport`: the lines on screen with their highlighting, selections and
//! syntax-error markers, in one call.

use std::collections::HashMap;

use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::{Command, Cx};
use ultra_index::Lang;
use ultra_index::highlight::Highlighter;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_workspace::RelPath;

use super::{
    HELLO, LastChange, LineSpan, Marker, OPEN, ViewLine, ViewSelection, Viewport, ViewportArgs,
};
use ultra_services::Services;
use ultra_services::util::target;

/// `ultra.getViewport`.
pub struct GetViewport;

impl Command<Services> for GetViewport {
    type Args = ViewportArgs;
    type Output = Viewport;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.getViewport",
        "View: Get Viewport",
        "View",
        "The lines of a buffer from `top` (0-based) for `height` lines, each with syntax highlighting spans (character columns, tree-sitter), plus the selections, syntax-error markers on those lines, the version, dirty state and who made the last change. What an editor draws, in one call. A file that is not open is read from disk without opening it (version 0, no selections).",
    )
    .touches(Touches::READ)
    .read_only()
    .quiet()
    .examples(&[Example {
        description: "The first two lines",
        args: r#"{"top": 0, "height": 2}"#,
        files: HELLO,
        setup: OPEN,
        expect: Some(r#"{"path": "src/app.rs", "lineCount": 5, "lines": [{"line": 0, "text": "fn main() {", "spans": [{"start": 0, "end": 2, "scope": "keyword"}]}, {"line": 1}], "highlighted": true}"#),
        ..Example::EMPTY
    }, Example {
        description: "A file not open: read without opening it",
        args: r#"{"path": "src/app.rs", "top": 2, "height": 1}"#,
        files: HELLO,
        expect: Some(r#"{"version": 0, "selections": [], "lines": [{"line": 2, "text": "    println!(\"{x}\");"}]}"#),
        ..Example::EMPTY
    }]);

    fn run(&self, cx: &mut Cx<'_, Services>, a: ViewportArgs) -> Result<Viewport, CommandError> {
        let height = a.height.unwrap_or(50);
        if height > 1000 {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                format!("height {height} is more than 1000 lines"),
            )
            .with_suggestion("ask for at most 1000 lines, or page with `top`"));
        }
        let max_chars = a.max_line_chars.unwrap_or(1000).max(1);
        let enc = cx.source.encoding();
        let (rel, rope, version, dirty, language, sels, last_change, buffers) = {
            let mut ws = cx.services.ws();
            let buffers: HashMap<String, u64> =
                ws.buffers().map(|b| (b.path.to_string(), b.id)).collect();
            let rel: RelPath = target(cx, &ws, a.path.as_deref(), false)?;
            let last_change = ws
                .history()
                .iter()
                .rev()
                .find(|t| t.changes.iter().any(|c| c.path == rel))
                .map(|t| LastChange {
                    source: t.source.kind,
                    agent_id: t.source.agent_id.clone(),
                    command: t.command.clone(),
                    txn_id: t.txn_id,
                });
            if let Some(b) = ws.buffer(&rel) {
                let sels: Vec<ViewSelection> = b
                    .selections
                    .iter()
                    .map(|s| ViewSelection {
                        anchor: ultra_workspace::text::to_pos(&b.rope, s.anchor, enc),
                        head: ultra_workspace::text::to_pos(&b.rope, s.head, enc),
                    })
                    .collect();
                (
                    rel,
                    b.rope.clone(),
                    b.version,
                    b.is_dirty(),
                    b.language,
                    sels,
                    last_change,
                    buffers,
                )
            } else {
                // Looking opens no buffer (no tab appears for a person).
                let snap = ws.snapshot(&rel)?;
                (
                    rel,
                    snap.rope,
                    0,
                    false,
                    snap.language,
                    Vec::new(),
                    last_change,
                    buffers,
                )
            }
        };
        // A file that is not open is highlighted afresh and not kept.
        let open = buffers.contains_key(rel.as_str());
        let line_count = rope.len_lines();
        let top = a.top.min(line_count.saturating_sub(1));
        let end = (top + height).min(line_count);
        let mut lines: Vec<ViewLine> = (top..end)
            .map(|i| {
                let line = rope.line(i);
                let mut text: String = line.chars().take(max_chars).collect();
                let cut = line.len_chars() > max_chars
                    && !(line.len_chars() == max_chars + 1 && text.ends_with('\n'));
                while text.ends_with('\n') || text.ends_with('\r') {
                    text.pop();
                }
                ViewLine {
                    line: i,
                    text,
                    spans: Vec::new(),
                    cut,
                }
            })
            .collect();
        let mut markers = Vec::new();
        let lang = Lang::of_path(rel.as_str());
        let mut highlighted = false;
        if let Some(lang) = lang
            && a.highlight.unwrap_or(true)
            && rope.len_bytes() <= ultra_index::passes::MAX_PARSE_BYTES
        {
            let mut all = cx
                .services
                .view()
                .highlighters
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            // Closed buffers' highlighting goes.
            all.retain(|p, (at, _)| buffers.get(p) == Some(&at.0));
            let key = rel.to_string();
            let at = (buffers.get(&key).copied().unwrap_or(0), version);
            let bytes = || {
                let mut v = Vec::with_capacity(rope.len_bytes());
                for chunk in rope.chunks() {
                    v.extend_from_slice(chunk.as_bytes());
                }
                v
            };
            let fresh = match all.remove(&key).filter(|_| open) {
                Some((v, h)) if v == at && h.lang() == lang => Some(h),
                Some((_, mut h)) if h.lang() == lang => h.update(bytes()).then_some(h),
                _ => Highlighter::new(lang, bytes()),
            };
            if let Some(h) = fresh {
                let lo = rope.line_to_byte(top);
                let hi = rope.line_to_byte(end);
                for sp in h.spans(lo..hi) {
                    paint(&rope, &mut lines, top, sp.start, sp.end, |l, s, e| {
                        l.spans.push(LineSpan {
                            start: s,
                            end: e,
                            scope: sp.scope,
                        })
                    });
                }
                for err in h.errors(lo..hi) {
                    let line = rope.byte_to_line(err.start.min(rope.len_bytes()));
                    let start = rope.byte_to_char(err.start) - rope.line_to_char(line);
                    let end_line = rope.byte_to_line(err.end.min(rope.len_bytes()));
                    let end = if end_line == line {
                        rope.byte_to_char(err.end) - rope.line_to_char(line)
                    } else {
                        ultra_workspace::text::line_len(&rope, line)
                    };
                    markers.push(Marker {
                        line,
                        start,
                        end: end.max(start + 1),
                        message: err.message,
                        severity: "error".into(),
                    });
                }
                highlighted = true;
                if open {
                    all.insert(key, (at, h));
                }
            }
        }
        Ok(Viewport {
            path: rel.to_string(),
            language: language.to_string(),
            version,
            dirty,
            line_count,
            top,
            lines,
            selections: sels,
            markers,
            last_change,
            highlighted,
        })
    }
}

/// Split the byte span `start..end` into per-line character spans on the lines shown.
fn paint(
    rope: &ropey::Rope,
    lines: &mut [ViewLine],
    top: usize,
    start: usize,
    end: usize,
    mut f: impl FnMut(&mut ViewLine, usize, usize),
) {
    let first = rope.byte_to_line(start);
    let last = rope.byte_to_line(end.saturating_sub(1).max(start));
    for li in first..=last {
        let Some(line) = li.checked_sub(top).and_then(|i| lines.get_mut(i)) else {
            continue;
        };
        let base = rope.line_to_char(li);
        let s = if li == first {
            rope.byte_to_char(start) - base
        } else {
            0
        };
        let e = if li == last {
            rope.byte_to_char(end) - base
        } else {
            line.text.chars().count()
        };
        let len = line.text.chars().count();
        let (s, e) = (s.min(len), e.min(len));
        if s < e {
            f(line, s, e);
        }
    }
}
