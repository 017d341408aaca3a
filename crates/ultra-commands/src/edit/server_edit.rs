//! Edits a language server works out (a rename, a code action), applied as one
//! `applyEdits` batch: every file or none, one undo step, saved, each file confined and
//! checked unchanged since the server was shown it, validators shown every file,
//! attributed to the caller. `ultra.renameSymbol` and `ultra.codeActions` use it.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;
use ultra_core::Cx;
use ultra_protocol::{CommandError, ErrorCode};
use ultra_tools::code::after_edit::EditDiagnostics;
use ultra_tools::code::semantic::{self, EditStep, NAV_WAIT, ServerAnswer};
use ultra_workspace::history::Existence;
use ultra_workspace::root::Kind;
use ultra_workspace::workspace::{EditOp, FileEdits};
use ultra_workspace::{RelPath, WsError};

use super::{Finish, apply_reported};
use ultra_services::Services;
use ultra_services::util::is_human;

/// A file shown to its language server, with every open buffer of its language: the texts
/// as the server has them.
pub(crate) struct Shown {
    pub rel: RelPath,
    seen: BTreeMap<String, String>,
}

impl Shown {
    /// Resolve `path` for writing and give its server the file's text and every open
    /// buffer's of its language (unsaved changes included), so what it works out is for
    /// the text an agent sees.
    pub fn new(cx: &Cx<'_, Services>, path: &str) -> Result<Shown, CommandError> {
        let services = cx.services;
        let (rel, seen) = {
            let ws = services.ws();
            let rel = ws.resolve_write(path, is_human(cx))?;
            let mut seen: BTreeMap<String, String> = ws
                .buffers()
                .filter(|b| semantic::same_server(b.path.as_str(), rel.as_str()))
                .map(|b| (b.path.as_str().to_string(), b.rope.to_string()))
                .collect();
            if !seen.contains_key(rel.as_str()) {
                let text = ws.current_text(&rel).unwrap_or_default();
                seen.insert(rel.as_str().to_string(), text);
            }
            (rel, seen)
        };
        let root = services.root_path();
        for (p, text) in &seen {
            let _ = services.lsp().document(&root.join(p), text, NAV_WAIT);
        }
        Ok(Shown { rel, seen })
    }

    /// The file's text as its server was given it.
    pub fn rope(&self) -> ropey::Rope {
        self.seen
            .get(self.rel.as_str())
            .map(|t| ropey::Rope::from_str(t))
            .unwrap_or_default()
    }
}

/// One file a server's edit changes.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangedFile {
    pub path: String,
    /// Lines (1-based, before the edit) with a change.
    pub lines: Vec<u32>,
    pub edits: usize,
    /// `created` or `removed` when the edit makes the file exist or go.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<&'static str>,
    /// For a file the edit moves here: where it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renamed_from: Option<String>,
}

/// What applying (or, for a dry run, reading) a server's edit came to; flattened into the
/// answers of the commands that apply one.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServerEdited {
    /// False for a dry run.
    pub applied: bool,
    /// The transaction, for `ultra.undo {txnId}`: every file is undone together (files it
    /// created, renamed or deleted too, on disk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub txn_id: Option<u64>,
    pub files: Vec<ChangedFile>,
    pub total_edits: usize,
    #[serde(flatten)]
    pub diagnostics: EditDiagnostics,
}

/// Apply the `WorkspaceEdit` `edit` the server of `shown` answered with (its positions in
/// `server`'s encoding), or only list it (`dry_run`). `what` names it in errors.
pub(crate) fn apply(
    cx: &mut Cx<'_, Services>,
    shown: &Shown,
    edit: &Value,
    server: semantic::ServerEncoding,
    dry_run: bool,
    what: &str,
) -> Result<ServerEdited, CommandError> {
    let steps = semantic::workspace_edit(cx.services.root_path(), edit)?;
    apply_steps(cx, shown, steps, server, dry_run, what)
}

/// [`apply`] for a server's edit already read into steps.
pub(crate) fn apply_steps(
    cx: &mut Cx<'_, Services>,
    shown: &Shown,
    steps: Vec<EditStep>,
    server: semantic::ServerEncoding,
    dry_run: bool,
    what: &str,
) -> Result<ServerEdited, CommandError> {
    let services = cx.services;
    let encoding = semantic::protocol_encoding(server);
    let human = is_human(cx);
    let ws = services.ws();
    let planned = plan(&ws, steps, encoding, human)?;
    let report: Vec<ChangedFile> = planned.iter().map(|p| p.report()).collect();
    let total_edits = report.iter().map(|f| f.edits).sum();
    if dry_run || planned.is_empty() {
        return Ok(ServerEdited {
            applied: false,
            files: report,
            total_edits,
            txn_id: None,
            diagnostics: EditDiagnostics::default(),
        });
    }
    let mut batch = Vec::new();
    for p in planned {
        if let Some(before) = shown.seen.get(p.rel.as_str())
            && ws.current_text(&p.rel).as_deref() != Some(before.as_str())
        {
            return Err(CommandError::new(
                ErrorCode::StaleVersion,
                format!("{} changed while the language server worked out the {what}; nothing was changed", p.rel),
            )
            .with_suggestion(format!("run the {what} again")));
        }
        batch.push(FileEdits {
            path: p.rel,
            expected_version: None,
            expected_hash: None,
            edits: p.ops,
        });
    }
    let (outcome, diagnostics) = apply_reported(cx, ws, batch, Finish::Save)?;
    Ok(ServerEdited {
        applied: true,
        files: report,
        total_edits,
        txn_id: Some(outcome.txn_id),
        diagnostics,
    })
}

/// One file of a server's edit, worked out: the batch's edits for it and what to report.
struct Planned {
    rel: RelPath,
    ops: Vec<EditOp>,
    /// Lines (1-based, before) the server's text edits touch, and how many edits.
    lines: Vec<u32>,
    edits: usize,
    existence: Existence,
    renamed_from: Option<String>,
}

impl Planned {
    fn report(&self) -> ChangedFile {
        ChangedFile {
            path: self.rel.to_string(),
            lines: self.lines.clone(),
            edits: self.edits,
            file: match self.existence {
                Existence::Kept => None,
                Existence::Created => Some("created"),
                Existence::Removed => Some("removed"),
            },
            renamed_from: self.renamed_from.clone(),
        }
    }
}

/// A file as the steps so far leave it.
struct Sim {
    rel: RelPath,
    /// Whether it existed before the edit.
    existed: bool,
    /// Its text now (`None`: it does not exist now).
    text: Option<ropey::Rope>,
    /// Its text edits while no file operation touched it: applied as ranges, so that the
    /// transaction records only what changed.
    ranges: Vec<(ultra_protocol::Range, String)>,
    text_steps: usize,
    touched: bool,
    lines: Vec<u32>,
    renamed_from: Option<String>,
}

fn refused(message: String, instead: &str) -> CommandError {
    CommandError::new(ErrorCode::InvalidArguments, message).with_suggestion(instead.to_string())
}

/// Work the steps out against the workspace's texts (open buffers included), each path
/// confined for writing; the result changes each file once, in one batch.
fn plan(
    ws: &ultra_workspace::Workspace,
    steps: Vec<EditStep>,
    encoding: ultra_protocol::PositionEncoding,
    human: bool,
) -> Result<Vec<Planned>, CommandError> {
    let mut files: BTreeMap<String, Sim> = BTreeMap::new();
    let sim = |files: &mut BTreeMap<String, Sim>, path: &str| -> Result<String, CommandError> {
        let rel = ws.resolve_write(path, human)?;
        let key = rel.as_str().to_string();
        if !files.contains_key(&key) {
            if ws.root().entry_kind(&rel) == Some(Kind::Dir) {
                return Err(refused(
                    format!(
                        "the language server's edit would change the directory {rel} as a whole, which is not applied with it"
                    ),
                    "move or delete the directory with ultra.renameFile or ultra.deleteFile, then ask again",
                ));
            }
            let text = ws.exists(&rel).then(|| ws.current_text(&rel)).flatten();
            files.insert(
                key.clone(),
                Sim {
                    rel,
                    existed: text.is_some(),
                    text: text.map(|t| ropey::Rope::from_str(&t)),
                    ranges: Vec::new(),
                    text_steps: 0,
                    touched: false,
                    lines: Vec::new(),
                    renamed_from: None,
                },
            );
        }
        Ok(key)
    };
    // A file operation takes a path as an entry: on a symlink it would move or delete the
    // file the link points to (the path `resolve_write` gives), and leave the link.
    let not_a_link = |path: &str| -> Result<(), CommandError> {
        let entry = ws.resolve_entry(path, human)?;
        if ws.root().entry_kind(&entry) == Some(Kind::Symlink) {
            return Err(refused(
                format!(
                    "the language server's edit would move, replace or delete the symlink {entry}, which is not applied with it"
                ),
                "change the link with ultra.renameFile or ultra.deleteFile",
            ));
        }
        Ok(())
    };
    // Every key `sim` gave is in `files`.
    let gone = || CommandError::new(ErrorCode::InternalError, "a file of the edit was lost");
    let mut edits_count: BTreeMap<String, usize> = BTreeMap::new();
    for step in steps {
        match step {
            EditStep::Text { path, edits } => {
                let key = sim(&mut files, &path)?;
                *edits_count.entry(key.clone()).or_default() += edits.len();
                let f = files.get_mut(&key).ok_or_else(gone)?;
                let Some(rope) = f.text.as_mut() else {
                    return Err(refused(
                        format!("the language server's edit changes {key}, which does not exist"),
                        "ask the language server again",
                    ));
                };
                let mut spans = Vec::with_capacity(edits.len());
                for (range, new) in &edits {
                    let s = ultra_workspace::text::to_char(rope, range.start, encoding)?;
                    let e = ultra_workspace::text::to_char(rope, range.end, encoding)?;
                    if e < s {
                        return Err(refused(
                            format!(
                                "the language server's edit of {key} has a range that ends before it starts"
                            ),
                            "ask the language server again",
                        ));
                    }
                    spans.push((s, e, new.as_str()));
                    f.lines.push(range.start.line + 1);
                }
                spans.sort_by_key(|(s, e, _)| (*s, *e));
                if spans.windows(2).any(|w| w[1].0 < w[0].1) {
                    return Err(refused(
                        format!("the language server's edits of {key} overlap"),
                        "ask the language server again",
                    ));
                }
                for (s, e, new) in spans.into_iter().rev() {
                    rope.remove(s..e);
                    rope.insert(s, new);
                }
                f.text_steps += 1;
                f.ranges.extend(edits);
            }
            EditStep::Create {
                path,
                overwrite,
                ignore_if_exists,
            } => {
                not_a_link(&path)?;
                let key = sim(&mut files, &path)?;
                let f = files.get_mut(&key).ok_or_else(gone)?;
                if f.text.is_some() && !overwrite {
                    if ignore_if_exists {
                        continue;
                    }
                    return Err(WsError::Exists(key).into());
                }
                f.text = Some(ropey::Rope::new());
                f.touched = true;
            }
            EditStep::Rename {
                from,
                to,
                overwrite,
                ignore_if_exists,
            } => {
                not_a_link(&from)?;
                not_a_link(&to)?;
                let (from, to) = (sim(&mut files, &from)?, sim(&mut files, &to)?);
                if files.get(&to).is_some_and(|f| f.text.is_some()) && !overwrite {
                    if ignore_if_exists {
                        continue;
                    }
                    return Err(WsError::Exists(to).into());
                }
                let Some(text) = files.get_mut(&from).and_then(|f| {
                    f.touched = true;
                    f.text.take()
                }) else {
                    return Err(WsError::NotFound(from).into());
                };
                let f = files.get_mut(&to).ok_or_else(gone)?;
                f.text = Some(text);
                f.touched = true;
                f.renamed_from = Some(from);
            }
            EditStep::Delete {
                path,
                ignore_if_not_exists,
            } => {
                not_a_link(&path)?;
                let key = sim(&mut files, &path)?;
                let f = files.get_mut(&key).ok_or_else(gone)?;
                if f.text.is_none() {
                    if ignore_if_not_exists {
                        continue;
                    }
                    return Err(WsError::NotFound(key).into());
                }
                f.text = None;
                f.touched = true;
            }
        }
    }
    let mut out = Vec::new();
    for (key, mut f) in files {
        f.lines.sort_unstable();
        f.lines.dedup();
        let (ops, existence) = match (f.existed, f.text) {
            (false, None) => continue,
            (false, Some(t)) => (
                vec![EditOp::Create {
                    text: t.to_string(),
                }],
                Existence::Created,
            ),
            (true, None) => (vec![EditOp::Remove], Existence::Removed),
            // One set of text edits and nothing else: as ranges.
            (true, Some(_)) if !f.touched && f.text_steps == 1 => (
                f.ranges
                    .into_iter()
                    .map(|(range, text)| EditOp::Range {
                        range,
                        text,
                        encoding,
                    })
                    .collect(),
                Existence::Kept,
            ),
            (true, Some(t)) => {
                let text = t.to_string();
                if ws.current_text(&f.rel).as_deref() == Some(text.as_str()) {
                    continue;
                }
                (vec![EditOp::All { text }], Existence::Kept)
            }
        };
        out.push(Planned {
            rel: f.rel,
            ops,
            lines: f.lines,
            edits: edits_count.get(&key).copied().unwrap_or(0),
            existence,
            renamed_from: f.renamed_from,
        });
    }
    Ok(out)
}

/// The error for a server that did not answer (`why`; `None`: none serves `path`), for
/// something only a server can do.
pub(crate) fn unavailable(why: Option<ServerAnswer>, path: &str, instead: &str) -> CommandError {
    match why {
        Some(a) if a.state == "refused" => CommandError::new(
            ErrorCode::InvalidArguments,
            format!(
                "the language server refused: {}",
                a.reason.unwrap_or_default()
            ),
        )
        .with_suggestion("check the arguments, and that the position is on code of this workspace"),
        Some(a) => CommandError::new(
            ErrorCode::LanguageServerUnavailable,
            format!(
                "no {} language server answered ({}): {}",
                a.language,
                a.state,
                a.reason.unwrap_or_default()
            ),
        )
        .with_suggestion(if a.state == "warming" {
            "retry in a moment: the server is starting".to_string()
        } else {
            format!("configure lsp.<language>.command (see lsp.status), or {instead}")
        }),
        None => CommandError::new(
            ErrorCode::LanguageServerUnavailable,
            format!("no language server serves {path}"),
        )
        .with_suggestion(instead.to_string()),
    }
}
