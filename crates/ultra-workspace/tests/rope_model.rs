//! Property test: buffer edits, undo and redo against a plain `String` model.
//!
//! Random batches of non-overlapping range edits (positions as 0-based line/character over
//! text with multi-byte characters and CRLF) are applied through `Workspace::prepare` and
//! `commit`, and to a `String`; undo and redo are checked against a stack of past texts.

#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use ultra_protocol::{Position, PositionEncoding, Range, Source, SourceKind};
use ultra_workspace::history::Filter;
use ultra_workspace::workspace::{EditOp, FileEdits, WorkspaceOptions};
use ultra_workspace::{RelPath, Workspace};

#[derive(Debug, Clone)]
enum Op {
    /// Edits as (start fraction, length, text), resolved against the current text.
    Edit(Vec<(f64, usize, String)>),
    Undo,
    Redo,
}

fn text_strategy() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("a"),
            Just("b"),
            Just("é"),
            Just("😀"),
            Just("\n"),
            Just("\r\n"),
            Just(" ")
        ],
        0..40,
    )
    .prop_map(|v| v.concat())
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => proptest::collection::vec((0.0f64..1.0, 0usize..5, text_strategy()), 1..4).prop_map(Op::Edit),
        1 => Just(Op::Undo),
        1 => Just(Op::Redo),
    ]
}

/// The 0-based position of char index `idx` in `s`, counting `\n` as the line break (the
/// generated text has no other break characters; `\r` stays at the end of its line).
fn pos_of(s: &str, idx: usize) -> Position {
    let mut line = 0;
    let mut col = 0;
    for c in s.chars().take(idx) {
        if c == '\n' {
            line += 1;
            col = 0;
        } else {
            col += 1;
        }
    }
    Position::new(line, col)
}

/// Snap a char index off the middle of a CRLF pair (positions cannot address it).
fn snap(chars: &[char], mut i: usize) -> usize {
    if i > 0 && i < chars.len() && chars[i - 1] == '\r' && chars[i] == '\n' {
        i -= 1;
    }
    i
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn buffer_matches_string_model(initial in text_strategy(), ops in proptest::collection::vec(op_strategy(), 1..25)) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.txt"), &initial).unwrap();
        let mut ws = Workspace::open(dir.path(), WorkspaceOptions::default()).unwrap();
        let rel: RelPath = ws.resolve_read("f.txt", true).unwrap();
        ws.open_buffer(&rel).unwrap();
        let source = Source::new(SourceKind::Ai);
        let mut model = initial.clone();
        let mut undo: Vec<String> = Vec::new();
        let mut redo: Vec<String> = Vec::new();
        for op in ops {
            match op {
                Op::Edit(edits) => {
                    let chars: Vec<char> = model.chars().collect();
                    let n = chars.len();
                    // Resolve to non-overlapping char spans, sorted.
                    let mut spans: Vec<(usize, usize, String)> = Vec::new();
                    for (f, len, t) in edits {
                        let s = snap(&chars, ((n as f64) * f) as usize);
                        let e = snap(&chars, (s + len).min(n));
                        let e = e.max(s);
                        if spans.iter().any(|(a, b, _)| (s < *b && *a < e) || s == *a) {
                            continue;
                        }
                        spans.push((s, e, t));
                    }
                    spans.sort_by_key(|x| x.0);
                    let ops: Vec<EditOp> = spans
                        .iter()
                        .map(|(s, e, t)| EditOp::Range { range: Range::new(pos_of(&model, *s), pos_of(&model, *e)), text: t.clone(), encoding: PositionEncoding::Utf32 })
                        .collect();
                    let prepared = ws.prepare(vec![FileEdits { path: rel.clone(), expected_version: None, expected_hash: None, edits: ops }]).unwrap();
                    let changed = prepared.files[0].reps.iter().any(|r| r.old != r.new);
                    ws.commit(prepared, &source, "test");
                    let mut next = String::new();
                    let mut at = 0;
                    for (s, e, t) in &spans {
                        next.extend(&chars[at..*s]);
                        next.push_str(t);
                        at = *e;
                    }
                    next.extend(&chars[at..]);
                    if changed {
                        undo.push(model.clone());
                        redo.clear();
                    }
                    model = next;
                }
                Op::Undo => match ws.undo(&Filter::default()) {
                    Ok(_) => {
                        let prev = undo.pop().expect("workspace undid more than the model");
                        redo.push(std::mem::replace(&mut model, prev));
                    }
                    Err(_) => prop_assert!(undo.is_empty(), "undo refused with {} model entries", undo.len()),
                },
                Op::Redo => match ws.redo(&Filter::default()) {
                    Ok(_) => {
                        let next = redo.pop().expect("workspace redid more than the model");
                        undo.push(std::mem::replace(&mut model, next));
                    }
                    Err(_) => prop_assert!(redo.is_empty(), "redo refused with {} model entries", redo.len()),
                },
            }
            let buf = ws.buffer(&rel).unwrap();
            prop_assert_eq!(buf.rope.to_string(), model.clone());
        }
    }
}
