//! Seed 001's read, search and analysis tools over the code index: `get_lines`,
//! `get_function`, `get_class`, `get_structure`, `find_references`, `find_definition`,
//! `get_dependencies`, `get_dependents`, `get_complexity`, `get_todos`. Each answers with
//! structured data, the seed's text rendering in `text`, and the index state.

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_index::index::{file_type, is_entry_point};
use ultra_index::{DefKind, FileIndex};
use ultra_protocol::{CommandError, ErrorCode};
use ultra_workspace::RelPath;

use super::IndexState;
use super::page::{Pager, clip, more};

mod deps;
mod health;
mod numbered;
mod read;
mod refs;

pub use deps::*;
pub use health::*;
pub use numbered::{Cut, MAX_LINES_TEXT};
use numbered::{line_count, numbered_page, numbered_window};
pub use read::*;
pub use refs::definitions_of;
pub use refs::{
    DefinitionInfo, Definitions, FindDefinition, FindDefinitionArgs, FindReferences,
    FindReferencesArgs, ReferenceInfo, References,
};
use ultra_services::Services;
use ultra_services::util::{emit_notices, is_human};

/// Register the tools.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(GetLines)?;
    r.register(GetFunction)?;
    r.register(GetClass)?;
    r.register(GetStructure)?;
    r.register(FindReferences)?;
    r.register(FindDefinition)?;
    r.register(GetDependencies)?;
    r.register(GetDependents)?;
    r.register(GetComplexity)?;
    r.register(GetTodos)?;
    r.register(Reindex)?;
    Ok(())
}

/// A file for the examples.
const SERVICE_TS: &str = "import { Db } from './db';\n\n/** Users. */\nexport class UserService {\n  constructor(private db: Db) {}\n\n  async findById(id: string): Promise<User> {\n    // TODO: cache\n    return this.db.get(id);\n  }\n}\n\nexport const formatName = (first: string, last: string) => `${first} ${last}`;\n";
const DB_TS: &str = "export class Db {\n  get(id: string) {\n    return id;\n  }\n}\n";
const FIXTURE: &[(&str, &str)] = &[("src/service.ts", SERVICE_TS), ("src/db.ts", DB_TS)];

/// Resolve a path an agent gave, for reading.
fn resolve(cx: &Cx<'_, Services>, path: &str) -> Result<RelPath, CommandError> {
    let ws = cx.services.ws();
    Ok(ws.resolve_read(path, is_human(cx))?)
}

/// A directory or file to limit an answer to ("" for everything).
fn scope(cx: &Cx<'_, Services>, path: Option<&str>) -> Result<String, CommandError> {
    Ok(match path {
        Some(p) if !p.is_empty() && p != "." => resolve(cx, p)?.as_str().to_string(),
        _ => String::new(),
    })
}

/// The text of a workspace file as the agent sees it: the buffer when open (first brought
/// in step with the disk, as every read does), else the disk.
fn text_of(cx: &Cx<'_, Services>, rel: &RelPath) -> Option<String> {
    let mut ws = cx.services.ws();
    let text = ws.text_now(rel);
    emit_notices(cx, &mut ws);
    text
}

/// The text of an indexed path (already inside the workspace), or "", read as
/// [`text_of`] reads.
fn text_at(cx: &Cx<'_, Services>, path: &str) -> String {
    let rel = cx.services.ws().root().lexical(path).ok();
    rel.and_then(|rel| text_of(cx, &rel)).unwrap_or_default()
}

/// Lines `start..=end` (1-based) of `text`, numbered as `cat -n` does, however many
/// bytes they take: the tests' oracle for [`numbered_page`].
#[cfg(test)]
fn numbered(text: &str, start: u32, end: u32) -> String {
    let mut out = String::new();
    for (i, l) in text.lines().enumerate() {
        let n = i as u32 + 1;
        if n < start {
            continue;
        }
        if n > end {
            break;
        }
        let _ = writeln!(out, "{n:>6}\t{l}");
    }
    out
}

/// A file's text with its line starts, so many context lookups in one file cost what
/// they show rather than a scan from the top each.
struct LineIndex {
    text: String,
    starts: Vec<usize>,
}

impl LineIndex {
    fn new(text: String) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { text, starts }
    }

    /// 1-based line `n` without its line ending.
    fn line(&self, n: u32) -> Option<&str> {
        let i = (n as usize).checked_sub(1)?;
        let start = *self.starts.get(i)?;
        if start >= self.text.len() && i > 0 {
            return None;
        }
        let end = self.starts.get(i + 1).map_or(self.text.len(), |e| e - 1);
        Some(self.text[start..end.max(start)].trim_end_matches('\r'))
    }

    /// `radius` lines around 1-based `line`, as `N: text`, long lines clipped (`line`
    /// around character `column`).
    fn context(&self, line: u32, radius: u32, column: Option<u32>) -> Vec<String> {
        let lo = line.saturating_sub(radius).max(1);
        (lo..=line + radius)
            .filter_map(|n| {
                let at = if n == line { column } else { None };
                self.line(n)
                    .map(|l| format!("{n}: {}", clip(l, at.map(|c| c as usize))))
            })
            .collect()
    }
}

fn not_indexed(path: &str) -> CommandError {
    CommandError::new(
        ErrorCode::FileNotFound,
        format!("{path} is not indexed (not a source file of a known language, or missing)"),
    )
    .with_details(json!({ "path": path }))
    .with_suggestion("use get_lines to read it, or get_structure to see the indexed files")
}
