//! What an agent's edit did to the problems of the files it wrote (issue 22): the
//! diagnostics it introduced (`newDiagnostics`) and those it cleared (`fixedDiagnostics`),
//! from the parser and, where one serves the file, the language server once it settled on
//! the new text (a bounded wait, outside the workspace lock). A person's edits are not held
//! up for it.
//!
//! "Introduced" is judged against the text before the edit: a diagnostic that was already
//! there on a line the edit did not touch (found where that line moved), or on a line it
//! changed with the same message, is neither new nor fixed.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use ropey::Rope;
use schemars::JsonSchema;
use serde::Serialize;
use ultra_core::Cx;
use ultra_protocol::PositionEncoding;
use ultra_services::util::{file_uri, is_human};
use ultra_services::{Services, WsGuard};
use ultra_workspace::{RelPath, Workspace};

use super::diagnostics::{Diagnostic, from_server};
use super::semantic::ServerAnswer;

/// How long an edit's answer waits, at most, for the language servers of its files (their
/// start included) before it answers with `warming`.
pub const EDIT_WAIT: Duration = Duration::from_secs(4);

/// At most this many files of one edit are shown to a language server.
const SHOWN: usize = 20;

/// At most this many new (and as many fixed) diagnostics are listed; the rest are counted.
const LISTED: usize = 20;

/// Files larger than this are not diagnosed after an edit (parsing and shipping them to a
/// server would cost more than the answer is worth).
const MAX_BYTES: usize = 2 << 20;

/// What an edit's answer says about problems; every field is absent when none of its
/// files is code.
#[derive(Debug, Default, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EditDiagnostics {
    /// Problems the edit introduced (syntax errors, and the language server's type errors
    /// and warnings once it settled on the new text). `[]`: none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub new_diagnostics: Option<Vec<Diagnostic>>,
    /// Problems the edit cleared.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fixed_diagnostics: Option<Vec<Diagnostic>>,
    /// How many more there were than listed, and where to see them all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diagnostics_note: Option<String>,
    /// Each language server asked: `ready` (its diagnostics are compared), `warming` (it
    /// did not settle in time: only syntax errors are compared; ask
    /// `state.getDiagnostics` later), `skipped` (an edit of more than 20 files: the
    /// others were not shown to it) or `unavailable` (and why).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub language_servers: Vec<ServerAnswer>,
}

/// The files an agent's write is about to change, as they were, taken under the
/// workspace lock before the change.
pub struct Baseline {
    files: Vec<(RelPath, String)>,
}

/// Whether anything diagnoses `path`: the parser or a language server.
fn is_code(path: &str) -> bool {
    ultra_index::Lang::of_path(path).is_some() || ultra_lsp::language_of(path).is_some()
}

impl Baseline {
    /// What `paths` hold now (the empty text for one that does not exist yet). Empty for a
    /// person's edit, and for files nothing diagnoses.
    pub fn take<'p>(
        cx: &Cx<'_, Services>,
        ws: &Workspace,
        paths: impl IntoIterator<Item = &'p RelPath>,
    ) -> Baseline {
        if is_human(cx) {
            return Baseline { files: Vec::new() };
        }
        let files = paths
            .into_iter()
            .filter(|p| is_code(p.as_str()))
            .filter_map(|p| {
                let text = ws.current_text(p).unwrap_or_default();
                (text.len() <= MAX_BYTES).then(|| (p.clone(), text))
            })
            .collect();
        Baseline { files }
    }

    /// Compare with what the files hold now: read under `ws`, which is released before
    /// any language server is waited for.
    pub fn report(self, cx: &Cx<'_, Services>, ws: WsGuard<'_>) -> EditDiagnostics {
        if self.files.is_empty() {
            return EditDiagnostics::default();
        }
        let changed: Vec<(RelPath, String, String)> = self
            .files
            .into_iter()
            .filter_map(|(p, before)| {
                let after = ws.current_text(&p).unwrap_or_default();
                (after != before && after.len() <= MAX_BYTES).then_some((p, before, after))
            })
            .collect();
        drop(ws);
        let enc = cx.source.encoding();
        let deadline = Instant::now() + EDIT_WAIT;
        let mut new = Vec::new();
        let mut fixed = Vec::new();
        let mut servers: Vec<ServerAnswer> = Vec::new();
        let files: Vec<(&str, &str, &str)> = changed
            .iter()
            .map(|(p, b, a)| (p.as_str(), b.as_str(), a.as_str()))
            .collect();
        let root = cx.services.root_path();
        for (n, f, answer) in compare(cx.services.lsp(), root, &files, enc, deadline) {
            new.extend(n);
            fixed.extend(f);
            if let Some(a) = answer {
                // One entry a language; a file it failed for outranks one it answered.
                match servers.iter_mut().find(|s| s.language == a.language) {
                    Some(s) if s.state == "ready" => *s = a,
                    Some(_) => {}
                    None => servers.push(a),
                }
            }
        }
        let more = (
            new.len().saturating_sub(LISTED),
            fixed.len().saturating_sub(LISTED),
        );
        new.truncate(LISTED);
        fixed.truncate(LISTED);
        EditDiagnostics {
            new_diagnostics: Some(new),
            fixed_diagnostics: Some(fixed),
            diagnostics_note: (more != (0, 0)).then(|| {
                format!(
                    "{} more new and {} more fixed not listed: state.getDiagnostics {{path}} lists them all",
                    more.0, more.1
                )
            }),
            language_servers: servers,
        }
    }
}

/// One file's comparison: new, fixed, and how its language server answered (if one
/// serves it).
pub(crate) type Compared = (Vec<Diagnostic>, Vec<Diagnostic>, Option<ServerAnswer>);

/// For each of `files` (path relative to `root`, text before, text after): the
/// diagnostics the after text has and the before text had not (new) and the other way
/// round (fixed). Servers are waited for until `deadline`: first each file's diagnostics
/// for its old text, then every file is given its new text before any is waited for again,
/// so each is judged with all the others' changes in.
pub(crate) fn compare(
    lsp: &ultra_lsp::Servers,
    root: &std::path::Path,
    files: &[(&str, &str, &str)],
    enc: PositionEncoding,
    deadline: Instant,
) -> Vec<Compared> {
    let left = || deadline.saturating_duration_since(Instant::now());
    // The first few files a server serves are shown to it: a replace across hundreds of
    // files would have it open and analyse every one.
    let mut shown = 0;
    let asks: Vec<bool> = files
        .iter()
        .map(|(path, _, _)| {
            let ask = ultra_lsp::language_of(path).is_some() && shown < SHOWN;
            shown += usize::from(ask);
            ask
        })
        .collect();
    let before: Vec<_> = files
        .iter()
        .zip(&asks)
        .map(|((path, old, _), ask)| ask.then(|| lsp.diagnostics(&root.join(path), old, left())))
        .collect();
    for ((path, _, new), _) in files.iter().zip(&asks).filter(|(_, ask)| **ask) {
        let _ = lsp.document(&root.join(path), new, left());
    }
    files
        .iter()
        .zip(before)
        .map(|(&(path, old_text, new_text), before)| {
            let uri = file_uri(root, path);
            let (rope_before, rope_after) = (Rope::from_str(old_text), Rope::from_str(new_text));
            let syntax = |text: &str, rope: &Rope| -> Vec<Diagnostic> {
                if ultra_index::Lang::of_path(path).is_none() {
                    return Vec::new();
                }
                ultra_index::index_file(path, text.as_bytes())
                    .errors
                    .iter()
                    .map(|e| Diagnostic::syntax(path, &uri, e, rope, enc))
                    .collect()
            };
            let mut old = syntax(old_text, &rope_before);
            let mut now = syntax(new_text, &rope_after);
            let skipped = before.is_none().then(|| ultra_lsp::language_of(path)).flatten();
            let answer = before.map(|before| {
                let language = ultra_lsp::language_of(path).map_or("", |l| l.0);
                let answer = |state: &str, reason: Option<String>| ServerAnswer {
                    language: language.to_string(),
                    state: state.into(),
                    reason,
                };
                let abs = root.join(path);
                let seen = before.and_then(|(_, b)| {
                    let after = if files.len() > 1 {
                        lsp.settled_diagnostics(&abs, new_text, left())?
                    } else {
                        lsp.diagnostics(&abs, new_text, left())?
                    };
                    Ok((b, after))
                });
                match seen {
                    Err(e @ ultra_lsp::LspError::Starting { .. }) => {
                        answer("warming", Some(e.to_string()))
                    }
                    Err(e) => answer("unavailable", Some(e.to_string())),
                    Ok((Some(b), (client, Some(a)))) => {
                        let who = (path, uri.as_str(), language);
                        old.extend(from_server(&b, client.encoding(), who, &rope_before, enc));
                        now.extend(from_server(&a, client.encoding(), who, &rope_after, enc));
                        answer("ready", None)
                    }
                    Ok(_) => answer(
                        "warming",
                        Some(format!(
                            "the language server did not settle in time: only syntax errors were compared; state.getDiagnostics {{\"path\": \"{path}\"}} has its answer later"
                        )),
                    ),
                }
            });
            let answer = answer.or_else(|| {
                skipped.map(|(language, _)| ServerAnswer {
                    language: language.to_string(),
                    state: "skipped".into(),
                    reason: Some(format!(
                        "the edit changed more than {SHOWN} files: the language server judged the first {SHOWN}; state.getDiagnostics has the others"
                    )),
                })
            });
            let (new, fixed) = diff(old, now, &crate::syntax_gate::line_map(old_text, new_text));
            (new, fixed, answer)
        })
        .collect()
}

/// Split `before` and `after` into what only `after` has (new) and what only `before` had
/// (fixed). Two diagnostics are the same problem when they agree in source, code, severity
/// and message and either the first sits on a line the edit kept, moved to where the
/// second is (`map`: 1-based old line to new), or both sit on lines the edit changed.
fn diff(
    before: Vec<Diagnostic>,
    after: Vec<Diagnostic>,
    map: &HashMap<u32, u32>,
) -> (Vec<Diagnostic>, Vec<Diagnostic>) {
    let key = |d: &Diagnostic| {
        (
            d.source.clone(),
            d.code.clone(),
            d.severity,
            d.message.clone(),
        )
    };
    let kept: std::collections::HashSet<u32> = map.values().copied().collect();
    let mut old: Vec<Option<Diagnostic>> = before.into_iter().map(Some).collect();
    let mut new = Vec::new();
    let mut unmatched = Vec::new();
    // First the problems on kept lines, where they moved to.
    for d in after {
        let line = d.range.start.line + 1;
        let k = key(&d);
        let hit = old.iter().position(|o| {
            o.as_ref()
                .is_some_and(|o| key(o) == k && map.get(&(o.range.start.line + 1)) == Some(&line))
        });
        match hit {
            Some(i) => old[i] = None,
            None => unmatched.push(d),
        }
    }
    // Then those on changed lines, matched by what they say.
    for d in unmatched {
        let on_changed = !kept.contains(&(d.range.start.line + 1));
        let k = key(&d);
        let hit = on_changed
            .then(|| {
                old.iter().position(|o| {
                    o.as_ref().is_some_and(|o| {
                        key(o) == k && !map.contains_key(&(o.range.start.line + 1))
                    })
                })
            })
            .flatten();
        match hit {
            Some(i) => old[i] = None,
            None => new.push(d),
        }
    }
    (new, old.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use ultra_protocol::{Position, Range};

    use super::super::diagnostics::Severity;
    use super::*;

    fn d(line: u32, message: &str) -> Diagnostic {
        Diagnostic {
            path: "a.py".into(),
            uri: "file:///a.py".into(),
            range: Range::new(Position::new(line, 0), Position::new(line, 1)),
            message: message.into(),
            severity: Severity::Error,
            source: "Pyright".into(),
            code: None,
        }
    }

    fn lines(v: &[Diagnostic]) -> Vec<(u32, &str)> {
        v.iter()
            .map(|d| (d.range.start.line, d.message.as_str()))
            .collect()
    }

    #[test]
    fn problems_are_followed_where_their_lines_move() {
        let before = "a\nb\nc\nd\n";
        // Two lines inserted at the top; `c` changed.
        let after = "x\ny\na\nb\nC\nd\n";
        let map = crate::syntax_gate::line_map(before, after);
        let (new, fixed) = diff(
            vec![d(0, "on a"), d(2, "on c"), d(3, "on d"), d(1, "gone")],
            vec![
                d(2, "on a"),
                d(4, "on c"),
                d(5, "on d"),
                d(0, "fresh"),
                d(3, "on a"),
            ],
            &map,
        );
        // `on a` at new line 3 (old 1, kept) is the old one; a second `on a` on the kept
        // line `b` is new; `on c` moved with its changed line; `gone` is fixed.
        assert_eq!(lines(&new), [(0, "fresh"), (3, "on a")]);
        assert_eq!(lines(&fixed), [(1, "gone")]);
    }

    #[test]
    fn moved_problems_are_neither_new_nor_fixed_and_an_added_one_is_new() {
        // Random texts and edits (lines inserted and deleted; a deterministic generator).
        // Every problem on a line the edit kept, found where that line went, is the same
        // problem: nothing new, nothing fixed. One more on a kept line is the one new.
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n.max(1) as u64) as usize
        };
        for round in 0..300 {
            let before: Vec<String> = (0..5 + next(30)).map(|i| format!("line {i}")).collect();
            let mut after = before.clone();
            for k in 0..1 + next(4) {
                if next(2) == 0 && after.len() > 1 {
                    after.remove(next(after.len()));
                } else {
                    after.insert(next(after.len() + 1), format!("new {round} {k}"));
                }
            }
            let (old_text, new_text) = (before.join("\n") + "\n", after.join("\n") + "\n");
            let map = crate::syntax_gate::line_map(&old_text, &new_text);
            let messages = ["unknown name", "bad type", "unused"];
            let old: Vec<Diagnostic> = (0..next(6))
                .map(|_| d(next(before.len()) as u32, messages[next(3)]))
                .collect();
            let moved: Vec<Diagnostic> = old
                .iter()
                .filter_map(|o| {
                    let to = map.get(&(o.range.start.line + 1))?;
                    Some(d(to - 1, &o.message))
                })
                .collect();
            let gone = old.len() - moved.len();
            let (new, fixed) = diff(old.clone(), moved.clone(), &map);
            assert!(new.is_empty(), "round {round}: {new:?}");
            assert_eq!(fixed.len(), gone, "round {round}");
            // One more, on a kept line.
            let kept: Vec<u32> = map.values().copied().collect();
            if let Some(&line) = kept.get(next(kept.len())) {
                let mut more = moved;
                more.push(d(line - 1, "fresh"));
                let (new, _) = diff(old, more, &map);
                assert_eq!(lines(&new), [(line - 1, "fresh")], "round {round}");
            }
        }
    }
}
