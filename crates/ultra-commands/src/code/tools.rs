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
use crate::services::Services;
use crate::util::{current_text, is_human};

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

/// The text of a workspace file as the agent sees it (the buffer when open).
fn text_of(cx: &Cx<'_, Services>, rel: &RelPath) -> Option<String> {
    let ws = cx.services.ws();
    current_text(&ws, rel)
}

/// The text of an indexed path (already inside the workspace), or "".
fn text_at(cx: &Cx<'_, Services>, path: &str) -> String {
    let ws = cx.services.ws();
    ws.root()
        .lexical(path)
        .ok()
        .and_then(|rel| current_text(&ws, &rel))
        .unwrap_or_default()
}

/// Lines `start..=end` (1-based) of `text`, numbered as `cat -n` does.
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

    /// `radius` lines around 1-based `line`, as `N: text`.
    fn context(&self, line: u32, radius: u32) -> Vec<String> {
        let lo = line.saturating_sub(radius).max(1);
        (lo..=line + radius)
            .filter_map(|n| self.line(n).map(|l| format!("{n}: {l}")))
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

// ---------------------------------------------------------------- get_lines

/// Arguments of `get_lines`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GetLinesArgs {
    /// File, from the workspace root.
    pub path: String,
    /// First line, 1-based (default 1).
    pub start: Option<u32>,
    /// Last line, inclusive (default: the last line).
    pub end: Option<u32>,
}

/// Result of `get_lines`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Lines {
    pub path: String,
    pub start: u32,
    pub end: u32,
    pub total_lines: u32,
    /// The lines, numbered as `cat -n` does.
    pub text: String,
}

/// `get_lines`.
pub struct GetLines;

static GET_LINES: CommandSpec = CommandSpec::new(
    "code.getLines",
    "Code: Get Lines",
    "Code",
    "Read lines of a file with line numbers (cat -n format); 1-based, `end` inclusive. Open buffers are read as they are, saved or not.",
)
.touches(Touches::READ)
.tool_name("get_lines")
.read_only()
.examples(&[
    Example {
        description: "Lines 2 to 3",
        args: r#"{"path": "src/db.ts", "start": 2, "end": 3}"#,
        files: FIXTURE,
        expect: Some(r#"{"start": 2, "end": 3, "totalLines": 5, "text": "     2\t  get(id: string) {\n     3\t    return id;\n"}"#),
        ..Example::EMPTY
    },
    Example {
        description: "A start past the end is an error naming the line count",
        args: r#"{"path": "src/db.ts", "start": 9}"#,
        files: FIXTURE,
        error: Some("INVALID_POSITION"),
        ..Example::EMPTY
    },
]);

impl Command<Services> for GetLines {
    type Args = GetLinesArgs;
    type Output = Lines;
    fn spec(&self) -> &'static CommandSpec {
        &GET_LINES
    }
    fn run(&self, cx: &mut Cx<'_, Services>, a: GetLinesArgs) -> Result<Lines, CommandError> {
        let rel = resolve(cx, &a.path)?;
        let text = text_of(cx, &rel).ok_or_else(|| {
            CommandError::new(
                ErrorCode::FileNotFound,
                format!("cannot read {} as text", a.path),
            )
        })?;
        let total = text.lines().count() as u32;
        let start = a.start.unwrap_or(1).max(1);
        let end = a.end.unwrap_or(total).min(total);
        if start > total.max(1) || a.end.is_some_and(|e| e < start) {
            return Err(CommandError::new(
                ErrorCode::InvalidPosition,
                format!(
                    "lines {start}..{} are outside {} (it has {total} lines)",
                    a.end.unwrap_or(total),
                    a.path
                ),
            )
            .with_details(json!({ "totalLines": total }))
            .with_suggestion(format!("ask for lines 1..{total}")));
        }
        Ok(Lines {
            path: rel.as_str().to_string(),
            start,
            end,
            total_lines: total,
            text: numbered(&text, start, end),
        })
    }
}

// ---------------------------------------------------------------- get_function

/// Arguments of `get_function`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GetFunctionArgs {
    /// File, from the workspace root.
    pub path: String,
    /// Function name, or `Class.method` for a method.
    pub name: String,
}

/// Result of `get_function`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FunctionInfo {
    /// The function; its `name` is the one asked for (`Class.method` for methods).
    #[serde(flatten)]
    pub function: ultra_index::Function,
    /// The source with line numbers.
    pub code: String,
    /// Set when the file is not indexed (a language the index does not parse, or a file
    /// too big to parse): then `code` is the whole file (seed 001), up to
    /// [`FALLBACK_LINES`] lines.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
    pub index: IndexState,
}

/// Most lines `get_function` returns when it falls back to the whole file.
pub const FALLBACK_LINES: u32 = 2_000;

/// `get_function`.
pub struct GetFunction;

static GET_FUNCTION: CommandSpec = CommandSpec::new(
    "code.getFunction",
    "Code: Get Function",
    "Code",
    "Get one function's source (numbered) and metadata: params, async, exported, return type. Methods are `Class.method`; `const f = () => ...` counts. If it is not found, the error lists the file's functions. A file the index does not parse (another language, or too big) comes back whole (up to 2,000 lines) with `fallback` saying why.",
)
.touches(Touches::READ)
.tool_name("get_function")
.read_only()
.examples(&[
    Example {
        description: "A class method",
        args: r#"{"path": "src/service.ts", "name": "UserService.findById"}"#,
        files: FIXTURE,
        expect: Some(r#"{"name": "UserService.findById", "lineStart": 7, "lineEnd": 10, "params": ["id: string"], "isAsync": true, "returnType": "Promise<User>"}"#),
        ..Example::EMPTY
    },
    Example {
        description: "An unknown name lists the functions there are",
        args: r#"{"path": "src/service.ts", "name": "login"}"#,
        files: FIXTURE,
        error: Some("SYMBOL_NOT_FOUND"),
        ..Example::EMPTY
    },
    Example {
        description: "A file in a language the index does not parse comes back whole",
        args: r#"{"path": "lib/tool.rb", "name": "run"}"#,
        files: &[("lib/tool.rb", "def run\n  puts 1\nend\n")],
        expect: Some(r#"{"name": "run", "lineStart": 1, "lineEnd": 3, "code": "     1\tdef run\n     2\t  puts 1\n     3\tend\n"}"#),
        ..Example::EMPTY
    },
]);

impl Command<Services> for GetFunction {
    type Args = GetFunctionArgs;
    type Output = FunctionInfo;
    fn spec(&self) -> &'static CommandSpec {
        &GET_FUNCTION
    }
    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: GetFunctionArgs,
    ) -> Result<FunctionInfo, CommandError> {
        let rel = resolve(cx, &a.path)?;
        let (code, state) = cx.services.code(&[rel.as_str().to_string()]);
        let file = code.read().get(rel.as_str());
        let Some(file) = file.filter(|f| f.lang.is_some()) else {
            // Seed 001: a file that is not indexed is read whole.
            let text = text_of(cx, &rel).ok_or_else(|| not_indexed(&a.path))?;
            let lines = text.lines().count() as u32;
            let shown = lines.min(FALLBACK_LINES);
            let mut why = format!(
                "{} is not indexed (a language the index does not parse, or too big to parse): the whole file is returned",
                a.path
            );
            if shown < lines {
                why.push_str(&format!(
                    ", its first {shown} of {lines} lines; use get_lines for the rest"
                ));
            }
            return Ok(FunctionInfo {
                function: ultra_index::Function {
                    name: a.name.clone(),
                    qualified: a.name,
                    line_start: 1,
                    line_end: shown,
                    ..ultra_index::Function::default()
                },
                code: numbered(&text, 1, shown),
                fallback: Some(why),
                index: state,
            });
        };
        let f = file
            .functions
            .iter()
            .find(|f| f.qualified == a.name)
            .or_else(|| file.functions.iter().find(|f| f.name == a.name))
            .ok_or_else(|| {
                let available: Vec<&str> = file
                    .functions
                    .iter()
                    .map(|f| f.qualified.as_str())
                    .collect();
                CommandError::new(
                    ErrorCode::SymbolNotFound,
                    format!("no function `{}` in {}", a.name, a.path),
                )
                .with_details(json!({ "path": a.path, "available": available }))
                .with_suggestion(format!(
                    "use one of: {}",
                    available
                        .iter()
                        .take(30)
                        .copied()
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        let text = text_of(cx, &rel).unwrap_or_default();
        let mut function = f.clone();
        function.name = f.qualified.clone();
        Ok(FunctionInfo {
            code: numbered(&text, f.line_start, f.line_end),
            function,
            fallback: None,
            index: state,
        })
    }
}

// ---------------------------------------------------------------- get_class

/// Arguments of `get_class`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GetClassArgs {
    /// File, from the workspace root.
    pub path: String,
    /// Class (struct, interface, trait, enum) name.
    pub name: String,
}

/// Result of `get_class`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClassInfo {
    #[serde(flatten)]
    pub class: ultra_index::Class,
    /// The source with line numbers.
    pub code: String,
    pub index: IndexState,
}

/// `get_class`.
pub struct GetClass;

static GET_CLASS: CommandSpec = CommandSpec::new(
    "code.getClass",
    "Code: Get Class",
    "Code",
    "Get one class's (struct's, interface's, trait's) source (numbered) and metadata: methods, properties, extends, implements, abstract, exported. If it is not found, the error lists the file's classes.",
)
.touches(Touches::READ)
.tool_name("get_class")
.read_only()
.examples(&[Example {
    description: "A class with its methods",
    args: r#"{"path": "src/service.ts", "name": "UserService"}"#,
    files: FIXTURE,
    expect: Some(r#"{"name": "UserService", "kind": "class", "lineStart": 4, "lineEnd": 11, "isExported": true}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for GetClass {
    type Args = GetClassArgs;
    type Output = ClassInfo;
    fn spec(&self) -> &'static CommandSpec {
        &GET_CLASS
    }
    fn run(&self, cx: &mut Cx<'_, Services>, a: GetClassArgs) -> Result<ClassInfo, CommandError> {
        let rel = resolve(cx, &a.path)?;
        let (code, state) = cx.services.code(&[rel.as_str().to_string()]);
        let file = code
            .read()
            .get(rel.as_str())
            .ok_or_else(|| not_indexed(&a.path))?;
        let c = file
            .classes
            .iter()
            .find(|c| c.name == a.name)
            .ok_or_else(|| {
                let available: Vec<&str> = file.classes.iter().map(|c| c.name.as_str()).collect();
                CommandError::new(
                    ErrorCode::SymbolNotFound,
                    format!("no class `{}` in {}", a.name, a.path),
                )
                .with_details(json!({ "path": a.path, "available": available }))
                .with_suggestion(if available.is_empty() {
                    "this file declares no classes; try find_definition".to_string()
                } else {
                    format!("use one of: {}", available.join(", "))
                })
            })?;
        let text = text_of(cx, &rel).unwrap_or_default();
        Ok(ClassInfo {
            code: numbered(&text, c.line_start, c.line_end),
            class: c.clone(),
            index: state,
        })
    }
}

// ---------------------------------------------------------------- get_structure

/// Arguments of `get_structure`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GetStructureArgs {
    /// Directory, from the workspace root (default: the root).
    pub path: Option<String>,
    /// Most levels shown (default: all).
    pub depth: Option<u32>,
}

/// Result of `get_structure`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Structure {
    pub path: String,
    pub directories: usize,
    pub files: usize,
    /// The ASCII tree and its stats line.
    pub text: String,
    /// The listing was cut at the entry limit.
    pub truncated: bool,
}

/// `get_structure`.
pub struct GetStructure;

static GET_STRUCTURE: CommandSpec = CommandSpec::new(
    "code.getStructure",
    "Code: Get Structure",
    "Code",
    "The directory tree as ASCII with stats. Leaves out .gitignored paths, hidden files, node_modules, .git, dist, build, target, coverage and binary-looking files.",
)
.touches(Touches::READ)
.tool_name("get_structure")
.read_only()
.examples(&[Example {
    description: "The source directory",
    args: r#"{"path": "src"}"#,
    files: FIXTURE,
    expect: Some(r#"{"directories": 0, "files": 2, "text": "src/\n├── 📄 db.ts\n└── 📄 service.ts\n\nStats: 0 directories, 2 files\n"}"#),
    ..Example::EMPTY
}]);

/// Most entries one structure answer lists.
const MAX_STRUCTURE: usize = 5000;

const BINARY_EXT: [&str; 16] = [
    "png", "jpg", "jpeg", "gif", "ico", "pdf", "zip", "gz", "tar", "so", "dll", "exe", "bin",
    "woff", "woff2", "class",
];

impl Command<Services> for GetStructure {
    type Args = GetStructureArgs;
    type Output = Structure;
    fn spec(&self) -> &'static CommandSpec {
        &GET_STRUCTURE
    }
    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: GetStructureArgs,
    ) -> Result<Structure, CommandError> {
        let user = a.path.clone().unwrap_or_default();
        let rel = if user.is_empty() || user == "." {
            RelPath::default()
        } else {
            resolve(cx, &user)?
        };
        let root = cx.services.shell_root().clone();
        let meta = root.stat(&rel)?;
        if meta.kind != ultra_workspace::root::Kind::Dir {
            return Err(CommandError::new(
                ErrorCode::NotADirectory,
                format!("{user} is not a directory"),
            )
            .with_suggestion("give a directory, or use get_lines for a file"));
        }
        let base = root.path().join(rel.as_str());
        let mut b = ignore::WalkBuilder::new(&base);
        b.follow_links(false)
            .require_git(false)
            .sort_by_file_name(|x, y| x.cmp(y))
            .max_depth(a.depth.map(|d| d as usize))
            .filter_entry(|e| {
                !(e.depth() > 0
                    && e.file_name()
                        .to_str()
                        .is_some_and(|n| ultra_index::build::SKIP_DIRS.contains(&n)))
            });
        // Collect (depth, name, is_dir), then draw.
        let mut entries: Vec<(usize, String, bool)> = Vec::new();
        let mut truncated = false;
        for e in b.build().flatten() {
            if e.depth() == 0 {
                continue;
            }
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            let name = e.file_name().to_string_lossy().into_owned();
            let ext = name.rsplit('.').next().unwrap_or("").to_lowercase();
            if !is_dir && BINARY_EXT.contains(&ext.as_str()) {
                continue;
            }
            if let Ok(r) = e.path().strip_prefix(root.path())
                && let Some(r) = r.to_str()
                && let Ok(r) = root.lexical(r)
                && root.check_readable(&r, is_human(cx)).is_err()
            {
                continue;
            }
            if entries.len() >= MAX_STRUCTURE {
                truncated = true;
                break;
            }
            entries.push((e.depth(), name, is_dir));
        }
        let (dirs, files) =
            entries.iter().fold(
                (0, 0),
                |(d, f), (_, _, is_dir)| {
                    if *is_dir { (d + 1, f) } else { (d, f + 1) }
                },
            );
        let title = if rel.as_str().is_empty() {
            "./".to_string()
        } else {
            format!("{}/", rel.as_str())
        };
        let mut text = format!("{title}\n");
        for (i, (depth, name, is_dir)) in entries.iter().enumerate() {
            // The prefix: for each ancestor level, whether more siblings follow.
            let mut prefix = String::new();
            for level in 1..*depth {
                let more = entries[i + 1..]
                    .iter()
                    .take_while(|(d, _, _)| *d >= level)
                    .any(|(d, _, _)| *d == level);
                prefix.push_str(if more { "│   " } else { "    " });
            }
            let last = !entries[i + 1..]
                .iter()
                .take_while(|(d, _, _)| *d >= *depth)
                .any(|(d, _, _)| d == depth);
            let branch = if last { "└── " } else { "├── " };
            let icon = if *is_dir { "📁 " } else { "📄 " };
            let slash = if *is_dir { "/" } else { "" };
            let _ = writeln!(text, "{prefix}{branch}{icon}{name}{slash}");
        }
        let _ = writeln!(text, "\nStats: {dirs} directories, {files} files");
        if truncated {
            let _ = writeln!(
                text,
                "(cut at {MAX_STRUCTURE} entries: ask for a subdirectory or a smaller depth)"
            );
        }
        Ok(Structure {
            path: rel.as_str().to_string(),
            directories: dirs,
            files,
            text,
            truncated,
        })
    }
}

// ---------------------------------------------------------------- find_references

/// Arguments of `find_references`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FindReferencesArgs {
    /// The identifier.
    pub symbol: String,
    /// Only files under this path.
    pub path: Option<String>,
    /// Lines of context on each side (default 1).
    pub context_lines: Option<u32>,
    /// Most references returned (default 100).
    pub limit: Option<usize>,
    /// Skip this many (from a previous answer's `nextCursor`).
    pub cursor: Option<usize>,
}

/// One reference.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceInfo {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub context: Vec<String>,
    pub is_definition: bool,
}

/// Result of `find_references`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct References {
    pub symbol: String,
    pub total_references: usize,
    pub references: Vec<ReferenceInfo>,
    /// Pass as `cursor` for the next page.
    pub next_cursor: Option<usize>,
    pub text: String,
    pub index: IndexState,
}

/// `find_references`.
pub struct FindReferences;

static FIND_REFERENCES: CommandSpec = CommandSpec::new(
    "code.findReferences",
    "Code: Find References",
    "Code",
    "Every occurrence of an identifier in code (not in comments or strings), definitions flagged, with context lines; `path` limits it to a directory or file. Paged with `limit`/`cursor`.",
)
.touches(Touches::READ)
.tool_name("find_references")
.read_only()
.examples(&[Example {
    description: "Where a class is used",
    args: r#"{"symbol": "Db", "contextLines": 0}"#,
    files: FIXTURE,
    expect: Some(r#"{"symbol": "Db", "totalReferences": 3, "references": [{"path": "src/db.ts", "line": 1, "isDefinition": true}, {"path": "src/service.ts", "line": 1, "isDefinition": false}, {"path": "src/service.ts", "line": 5, "isDefinition": false}]}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for FindReferences {
    type Args = FindReferencesArgs;
    type Output = References;
    fn spec(&self) -> &'static CommandSpec {
        &FIND_REFERENCES
    }
    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: FindReferencesArgs,
    ) -> Result<References, CommandError> {
        let under = scope(cx, a.path.as_deref())?;
        let (code, state) = cx.services.code(&[]);
        let files: Vec<std::sync::Arc<FileIndex>> = code
            .read()
            .files_with_name(&a.symbol)
            .into_iter()
            .filter(|f| {
                under.is_empty() || f.path == under || f.path.starts_with(&format!("{under}/"))
            })
            .collect();
        let mut all = Vec::new();
        for f in &files {
            for r in f.references_to(&a.symbol) {
                all.push((f.path.clone(), r));
            }
        }
        let total = all.len();
        let (start, limit) = (
            a.cursor.unwrap_or(0),
            a.limit.unwrap_or(100).clamp(1, 10_000),
        );
        let radius = a.context_lines.unwrap_or(1).min(10);
        let mut references = Vec::new();
        let mut texts: std::collections::HashMap<String, LineIndex> =
            std::collections::HashMap::new();
        for (path, r) in all.into_iter().skip(start).take(limit) {
            let text = texts
                .entry(path.clone())
                .or_insert_with(|| LineIndex::new(text_at(cx, &path)));
            references.push(ReferenceInfo {
                context: text.context(r.line, radius),
                path,
                line: r.line,
                column: r.column,
                is_definition: r.is_definition,
            });
        }
        let next = (start + references.len() < total).then_some(start + references.len());
        let mut text = format!("Symbol: {}\nTotal references: {total}\n", a.symbol);
        for (i, r) in references.iter().enumerate() {
            let def = if r.is_definition { " (definition)" } else { "" };
            let _ = write!(text, "\n{}. {}:{}{def}\n", start + i + 1, r.path, r.line);
            for c in &r.context {
                let _ = writeln!(text, "   {c}");
            }
        }
        if let Some(n) = next {
            let _ = writeln!(text, "\n[{} more: pass cursor {n}]", total - n);
        }
        Ok(References {
            symbol: a.symbol,
            total_references: total,
            references,
            next_cursor: next,
            text,
            index: state,
        })
    }
}

// ---------------------------------------------------------------- find_definition

/// Arguments of `find_definition`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FindDefinitionArgs {
    /// The name (a method may be given as `Class.method`).
    pub symbol: String,
    /// Most definitions in one answer (default 50, at most 1,000).
    pub limit: Option<usize>,
    /// Where to continue: the `nextCursor` of the previous answer.
    pub cursor: Option<usize>,
}

/// One definition.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DefinitionInfo {
    pub path: String,
    pub line: u32,
    #[serde(rename = "type")]
    pub kind: DefKind,
    pub container: Option<String>,
    pub context: Vec<String>,
}

/// Result of `find_definition`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Definitions {
    pub symbol: String,
    /// This page of definitions, by path and line.
    pub definitions: Vec<DefinitionInfo>,
    /// Definitions in all pages.
    pub total: usize,
    /// Pass as `cursor` for the next page.
    pub next_cursor: Option<usize>,
    pub text: String,
    pub index: IndexState,
}

/// `find_definition`.
pub struct FindDefinition;

/// The definitions of `symbol` by path and line, and the bare name looked up (a method
/// may be given as `Class.method`, which narrows by container).
pub(crate) fn definitions_of(
    idx: &ultra_index::Index,
    symbol: &str,
) -> (String, Vec<ultra_index::index::DefRef>) {
    let (container, name) = match symbol.rsplit_once('.') {
        Some((c, n)) if !c.is_empty() && !n.is_empty() => (Some(c), n),
        _ => (None, symbol),
    };
    let mut defs: Vec<_> = idx
        .definitions(name)
        .into_iter()
        .filter(|d| container.is_none() || d.def().container.as_deref() == container)
        .collect();
    defs.sort_by(|a, b| {
        (a.file.path.as_str(), a.def().line).cmp(&(b.file.path.as_str(), b.def().line))
    });
    (name.to_string(), defs)
}

static FIND_DEFINITION: CommandSpec = CommandSpec::new(
    "code.findDefinition",
    "Code: Find Definition",
    "Code",
    "Where a symbol is defined: every definition (overloads, re-declarations) with its type and context, by path and line, paged with `limit`/`cursor`. Not found: SYMBOL_NOT_FOUND with \"Did you mean?\" suggestions.",
)
.touches(Touches::READ)
.tool_name("find_definition")
.read_only()
.examples(&[
    Example {
        description: "A class",
        args: r#"{"symbol": "UserService"}"#,
        files: FIXTURE,
        expect: Some(r#"{"definitions": [{"path": "src/service.ts", "line": 4, "type": "class"}]}"#),
        ..Example::EMPTY
    },
    Example {
        description: "A near miss suggests the real names",
        args: r#"{"symbol": "findByid"}"#,
        files: FIXTURE,
        error: Some("SYMBOL_NOT_FOUND"),
        ..Example::EMPTY
    },
]);

impl Command<Services> for FindDefinition {
    type Args = FindDefinitionArgs;
    type Output = Definitions;
    fn spec(&self) -> &'static CommandSpec {
        &FIND_DEFINITION
    }
    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: FindDefinitionArgs,
    ) -> Result<Definitions, CommandError> {
        let (code, state) = cx.services.code(&[]);
        let (name, defs) = definitions_of(&code.read(), &a.symbol);
        if defs.is_empty() {
            let idx = code.read();
            let suggestions: Vec<serde_json::Value> = idx
                .similar_names(&name, 5)
                .into_iter()
                .flat_map(|n| idx.definitions(&n).into_iter().take(2))
                .map(|d| json!({ "name": d.def().name, "path": d.file.path, "line": d.def().line }))
                .take(8)
                .collect();
            let list: Vec<String> = suggestions
                .iter()
                .map(|s| {
                    format!(
                        "  - {} ({}:{})",
                        s["name"].as_str().unwrap_or(""),
                        s["path"].as_str().unwrap_or(""),
                        s["line"]
                    )
                })
                .collect();
            let mut message = format!("Symbol '{}' not found.", a.symbol);
            if !list.is_empty() {
                message.push_str(&format!("\n\nDid you mean?\n{}", list.join("\n")));
            }
            return Err(CommandError::new(ErrorCode::SymbolNotFound, message)
                .with_details(
                    json!({ "symbol": a.symbol, "suggestions": suggestions, "index": state }),
                )
                .with_suggestion(if state.state == "warming" {
                    "the index is still warming up; retry in a moment".to_string()
                } else {
                    "check the spelling (see the suggestions) or search text with grep -rn"
                        .to_string()
                }));
        }
        let total = defs.len();
        let start = a.cursor.unwrap_or(0).min(total);
        let limit = a.limit.unwrap_or(50).clamp(1, 1_000);
        let mut definitions = Vec::new();
        // One read per file, however many definitions it has.
        let mut file: Option<(String, LineIndex)> = None;
        for d in defs.into_iter().skip(start).take(limit) {
            if file.as_ref().is_none_or(|(p, _)| *p != d.file.path) {
                let text = text_at(cx, &d.file.path);
                file = Some((d.file.path.clone(), LineIndex::new(text)));
            }
            let lines = file.as_ref().map(|(_, l)| l);
            definitions.push(DefinitionInfo {
                path: d.file.path.clone(),
                line: d.def().line,
                kind: d.def().kind,
                container: d.def().container.clone(),
                context: lines
                    .map(|l| l.context(d.def().line, 1))
                    .unwrap_or_default(),
            });
        }
        let next_cursor = (start + definitions.len() < total).then_some(start + definitions.len());
        let mut text = format!(
            "Symbol: {}\nFound {} definition{}:\n",
            a.symbol,
            total,
            if total == 1 { "" } else { "s" }
        );
        for d in &definitions {
            let kind = serde_json::to_value(d.kind)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default();
            let _ = write!(text, "\n{}:{} ({kind})\n", d.path, d.line);
            for c in &d.context {
                let _ = writeln!(text, "   {c}");
            }
        }
        if let Some(n) = next_cursor {
            let _ = writeln!(text, "\n[{} more: pass cursor {n}]", total - n);
        }
        Ok(Definitions {
            symbol: a.symbol,
            definitions,
            total,
            next_cursor,
            text,
            index: state,
        })
    }
}

// ---------------------------------------------------------------- dependencies

/// Arguments of `get_dependencies` and `get_dependents`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PathArgs {
    /// File, from the workspace root.
    pub path: String,
}

/// A file in a dependency answer.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DepInfo {
    pub path: String,
    pub exists: bool,
    pub is_hub: bool,
    pub dependents: usize,
    pub is_entry_point: bool,
    /// `source`, `test`, `config`, `types` or `unknown`.
    pub file_type: String,
    pub complexity_score: f64,
}

/// Result of `get_dependencies`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Dependencies {
    pub path: String,
    pub dependencies: Vec<DepInfo>,
    pub total_dependencies: usize,
    /// Imports that name no workspace file (packages, the standard library).
    pub external: Vec<String>,
    pub text: String,
    pub index: IndexState,
}

fn dep_info(idx: &ultra_index::Index, graph: &ultra_index::Graph, path: &str) -> DepInfo {
    let file = idx.get(path);
    DepInfo {
        path: path.to_string(),
        exists: file.is_some(),
        is_hub: graph.is_hub(path),
        dependents: graph.dependent_count(path),
        is_entry_point: is_entry_point(path),
        file_type: file_type(path).to_string(),
        complexity_score: file.map_or(0.0, |f| f.complexity.score),
    }
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// `get_dependencies`.
pub struct GetDependencies;

static GET_DEPENDENCIES: CommandSpec = CommandSpec::new(
    "code.getDependencies",
    "Code: Get Dependencies",
    "Code",
    "The workspace files a file imports (resolved per language), each with its type, hub status and entry-point flag; imports of packages are listed separately as external.",
)
.touches(Touches::READ)
.tool_name("get_dependencies")
.read_only()
.examples(&[Example {
    description: "What a service imports",
    args: r#"{"path": "src/service.ts"}"#,
    files: FIXTURE,
    expect: Some(r#"{"totalDependencies": 1, "dependencies": [{"path": "src/db.ts", "exists": true, "fileType": "source"}]}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for GetDependencies {
    type Args = PathArgs;
    type Output = Dependencies;
    fn spec(&self) -> &'static CommandSpec {
        &GET_DEPENDENCIES
    }
    fn run(&self, cx: &mut Cx<'_, Services>, a: PathArgs) -> Result<Dependencies, CommandError> {
        let rel = resolve(cx, &a.path)?;
        let (code, state) = cx.services.code(&[rel.as_str().to_string()]);
        let idx = code.read();
        let file = idx.get(rel.as_str()).ok_or_else(|| not_indexed(&a.path))?;
        let graph = idx.graph();
        let deps: Vec<DepInfo> = graph
            .deps
            .get(rel.as_str())
            .into_iter()
            .flatten()
            .map(|p| dep_info(&idx, &graph, p))
            .collect();
        let external: Vec<String> = file
            .imports
            .iter()
            .filter(|i| idx.resolve(&file, &i.source, &i.names).is_empty())
            .map(|i| i.source.clone())
            .collect();
        let mut text = format!("File: {}\nDependencies: {}\n", rel.as_str(), deps.len());
        for (i, d) in deps.iter().enumerate() {
            let hub = if d.is_hub {
                format!("yes ({} dependents)", d.dependents)
            } else {
                "no".to_string()
            };
            let _ = write!(
                text,
                "\n{}. {}\n   Type: {}, EntryPoint: {}, Hub: {hub}\n",
                i + 1,
                d.path,
                d.file_type,
                yes(d.is_entry_point)
            );
        }
        if !external.is_empty() {
            let _ = writeln!(text, "\nExternal: {}", external.join(", "));
        }
        Ok(Dependencies {
            path: rel.as_str().to_string(),
            total_dependencies: deps.len(),
            dependencies: deps,
            external,
            text,
            index: state,
        })
    }
}

/// Result of `get_dependents`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Dependents {
    pub path: String,
    /// More than 5 dependents.
    pub is_hub: bool,
    pub dependents: Vec<DepInfo>,
    pub total_dependents: usize,
    pub text: String,
    pub index: IndexState,
}

/// `get_dependents`.
pub struct GetDependents;

static GET_DEPENDENTS: CommandSpec = CommandSpec::new(
    "code.getDependents",
    "Code: Get Dependents",
    "Code",
    "The files that import a file, with their complexity and type; a file with more than 5 dependents is a hub, and the answer warns that changing it affects them.",
)
.touches(Touches::READ)
.tool_name("get_dependents")
.read_only()
.examples(&[Example {
    description: "Who imports the database module",
    args: r#"{"path": "src/db.ts"}"#,
    files: FIXTURE,
    expect: Some(r#"{"isHub": false, "totalDependents": 1, "dependents": [{"path": "src/service.ts"}]}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for GetDependents {
    type Args = PathArgs;
    type Output = Dependents;
    fn spec(&self) -> &'static CommandSpec {
        &GET_DEPENDENTS
    }
    fn run(&self, cx: &mut Cx<'_, Services>, a: PathArgs) -> Result<Dependents, CommandError> {
        let rel = resolve(cx, &a.path)?;
        let (code, state) = cx.services.code(&[rel.as_str().to_string()]);
        let idx = code.read();
        if idx.get(rel.as_str()).is_none() {
            return Err(not_indexed(&a.path));
        }
        let graph = idx.graph();
        let list: Vec<DepInfo> = graph
            .dependents
            .get(rel.as_str())
            .into_iter()
            .flatten()
            .map(|p| dep_info(&idx, &graph, p))
            .collect();
        let hub = graph.is_hub(rel.as_str());
        let mut text = format!(
            "File: {}\nHub: {}\nDependents: {}\n",
            rel.as_str(),
            if hub {
                format!("yes ({} dependents)", list.len())
            } else {
                "no".into()
            },
            list.len()
        );
        for (i, d) in list.iter().enumerate() {
            let _ = write!(
                text,
                "\n{}. {}\n   Complexity: {}, Type: {}\n",
                i + 1,
                d.path,
                d.complexity_score,
                d.file_type
            );
        }
        if hub {
            let _ = writeln!(
                text,
                "\nWarning: This is a hub file. Changes may impact {} other files.",
                list.len()
            );
        }
        Ok(Dependents {
            path: rel.as_str().to_string(),
            is_hub: hub,
            total_dependents: list.len(),
            dependents: list,
            text,
            index: state,
        })
    }
}

// ---------------------------------------------------------------- get_complexity

/// Arguments of `get_complexity`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GetComplexityArgs {
    /// A file or directory (default: everything).
    pub path: Option<String>,
    /// Most files listed (default 20).
    pub limit: Option<usize>,
}

/// One file's metrics.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileComplexity {
    pub path: String,
    pub loc: u32,
    pub nesting_depth: u32,
    pub cyclomatic_complexity: u32,
    pub score: f64,
}

/// The summary of `get_complexity`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComplexitySummary {
    pub total_files: usize,
    /// Score above 70.
    pub high_complexity: usize,
    /// Score 40 to 70.
    pub medium_complexity: usize,
    /// Score below 40.
    pub low_complexity: usize,
    pub average_score: f64,
}

/// Result of `get_complexity`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ComplexityReport {
    pub files: Vec<FileComplexity>,
    pub summary: ComplexitySummary,
    pub text: String,
    pub index: IndexState,
}

/// `get_complexity`.
pub struct GetComplexity;

static GET_COMPLEXITY: CommandSpec = CommandSpec::new(
    "code.getComplexity",
    "Code: Get Complexity",
    "Code",
    "Complexity per file, most complex first: lines of code (no comments), nesting depth, cyclomatic complexity and score = loc*0.4 + nesting*15 + cyclomatic*10 (capped at 100; high > 70, medium 40-70, low < 40), with a summary.",
)
.touches(Touches::READ)
.tool_name("get_complexity")
.read_only()
.examples(&[Example {
    description: "The most complex files",
    args: r#"{"limit": 1}"#,
    files: FIXTURE,
    expect: Some(r#"{"files": [{"path": "src/service.ts"}], "summary": {"totalFiles": 2}}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for GetComplexity {
    type Args = GetComplexityArgs;
    type Output = ComplexityReport;
    fn spec(&self) -> &'static CommandSpec {
        &GET_COMPLEXITY
    }
    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: GetComplexityArgs,
    ) -> Result<ComplexityReport, CommandError> {
        let under = scope(cx, a.path.as_deref())?;
        let (code, state) = cx.services.code(&[]);
        let idx = code.read();
        let mut all: Vec<FileComplexity> = idx
            .files_under(&under)
            .filter(|f| f.lang.is_some())
            .map(|f| FileComplexity {
                path: f.path.clone(),
                loc: f.complexity.loc,
                nesting_depth: f.complexity.nesting_depth,
                cyclomatic_complexity: f.complexity.cyclomatic,
                score: f.complexity.score,
            })
            .collect();
        if all.is_empty() && !under.is_empty() {
            return Err(not_indexed(&under));
        }
        all.sort_by(|x, y| y.score.total_cmp(&x.score).then(x.path.cmp(&y.path)));
        let band = |s: f64| {
            ultra_index::Complexity {
                score: s,
                ..Default::default()
            }
            .band()
        };
        let summary = ComplexitySummary {
            total_files: all.len(),
            high_complexity: all.iter().filter(|f| band(f.score) == "high").count(),
            medium_complexity: all.iter().filter(|f| band(f.score) == "medium").count(),
            low_complexity: all.iter().filter(|f| band(f.score) == "low").count(),
            average_score: if all.is_empty() {
                0.0
            } else {
                ((all.iter().map(|f| f.score).sum::<f64>() / all.len() as f64) * 10.0).round()
                    / 10.0
            },
        };
        all.truncate(a.limit.unwrap_or(20).max(1));
        let mut text = format!("Complexity Report (top {}):\n", all.len());
        for (i, f) in all.iter().enumerate() {
            let _ = write!(
                text,
                "\n{}. {} (score: {})\n   LOC: {}, Nesting: {}, Cyclomatic: {}\n",
                i + 1,
                f.path,
                f.score,
                f.loc,
                f.nesting_depth,
                f.cyclomatic_complexity
            );
        }
        let _ = write!(
            text,
            "\nSummary:\n  Total files: {}\n  High complexity: {}\n  Medium complexity: {}\n  Low complexity: {}\n  Average score: {}\n",
            summary.total_files,
            summary.high_complexity,
            summary.medium_complexity,
            summary.low_complexity,
            summary.average_score
        );
        Ok(ComplexityReport {
            files: all,
            summary,
            text,
            index: state,
        })
    }
}

// ---------------------------------------------------------------- get_todos

/// Arguments of `get_todos`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GetTodosArgs {
    /// A file or directory (default: everything).
    pub path: Option<String>,
    /// Only this kind: TODO, FIXME, HACK, XXX, BUG or NOTE (any case).
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Most TODOs returned (default 200); the summary always counts them all.
    pub limit: Option<usize>,
    /// Skip this many (from a previous answer's `nextCursor`).
    pub cursor: Option<usize>,
}

/// One TODO.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TodoInfo {
    pub path: String,
    #[serde(flatten)]
    pub todo: ultra_index::Todo,
}

/// The summary of `get_todos`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct TodoSummary {
    pub total: usize,
    pub by_type: std::collections::BTreeMap<String, usize>,
}

/// Result of `get_todos`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Todos {
    pub todos: Vec<TodoInfo>,
    /// Pass as `cursor` for the next page.
    pub next_cursor: Option<usize>,
    pub summary: TodoSummary,
    pub text: String,
    pub index: IndexState,
}

/// `get_todos`.
pub struct GetTodos;

static GET_TODOS: CommandSpec = CommandSpec::new(
    "code.getTodos",
    "Code: Get TODOs",
    "Code",
    "TODO, FIXME, HACK, XXX, BUG and NOTE comments in code (every comment style of the nine languages), filtered by path and type, with a summary by type.",
)
.touches(Touches::READ)
.tool_name("get_todos")
.read_only()
.examples(&[Example {
    description: "Every TODO",
    args: r#"{"type": "todo"}"#,
    files: FIXTURE,
    expect: Some(r#"{"todos": [{"path": "src/service.ts", "line": 8, "type": "TODO", "text": "cache"}], "summary": {"total": 1}}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for GetTodos {
    type Args = GetTodosArgs;
    type Output = Todos;
    fn spec(&self) -> &'static CommandSpec {
        &GET_TODOS
    }
    fn run(&self, cx: &mut Cx<'_, Services>, a: GetTodosArgs) -> Result<Todos, CommandError> {
        let under = scope(cx, a.path.as_deref())?;
        let kind = a.kind.as_deref().map(str::to_uppercase);
        if let Some(k) = &kind
            && !["TODO", "FIXME", "HACK", "XXX", "BUG", "NOTE"].contains(&k.as_str())
        {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                format!("unknown type {k}"),
            )
            .with_suggestion("use TODO, FIXME, HACK, XXX, BUG or NOTE"));
        }
        let (code, state) = cx.services.code(&[]);
        let idx = code.read();
        let mut todos = Vec::new();
        for f in idx.files_under(&under) {
            for t in &f.todos {
                if kind.as_ref().is_none_or(|k| *k == t.kind) {
                    todos.push(TodoInfo {
                        path: f.path.clone(),
                        todo: t.clone(),
                    });
                }
            }
        }
        let mut by_type = std::collections::BTreeMap::new();
        for t in &todos {
            *by_type.entry(t.todo.kind.clone()).or_insert(0) += 1;
        }
        let total = todos.len();
        let start = a.cursor.unwrap_or(0).min(total);
        let limit = a.limit.unwrap_or(200).clamp(1, 10_000);
        let todos: Vec<TodoInfo> = todos.into_iter().skip(start).take(limit).collect();
        let next_cursor = (start + todos.len() < total).then_some(start + todos.len());
        let mut text = format!("Found {total} TODO comments:\n");
        for (i, t) in todos.iter().enumerate() {
            let _ = write!(
                text,
                "\n{}. {}:{}\n   Type: {}\n   Text: {}\n   Context: {}\n",
                start + i + 1,
                t.path,
                t.todo.line,
                t.todo.kind,
                t.todo.text,
                t.todo.context
            );
        }
        if let Some(n) = next_cursor {
            let _ = writeln!(text, "\n[{} more: pass cursor {n}]", total - n);
        }
        let _ = write!(text, "\nSummary:\n  Total: {total}\n  By type:\n");
        for (k, n) in &by_type {
            let _ = writeln!(text, "    {k}: {n}");
        }
        Ok(Todos {
            summary: TodoSummary { total, by_type },
            todos,
            next_cursor,
            text,
            index: state,
        })
    }
}

// ---------------------------------------------------------------- reindex

/// Arguments of `code.reindex`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReindexArgs {
    /// Forget the stored index and parse every file again.
    #[serde(default)]
    pub cold: bool,
}

/// Result of `code.reindex`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Reindexed {
    /// Files parsed by this call.
    pub parsed: usize,
    pub seconds: f64,
    pub index: IndexState,
}

/// `code.reindex`.
pub struct Reindex;

static REINDEX: CommandSpec = CommandSpec::new(
    "code.reindex",
    "Code: Reindex",
    "Code",
    "Bring the code index up to date now (or rebuild it with `cold`), announcing `index.progress` and `index.ready` events. Queries do this for themselves; this is for warming up ahead of time.",
)
.touches(Touches::READ)
.read_only()
.long()
.examples(&[Example {
    description: "Rebuild from scratch",
    args: r#"{"cold": true}"#,
    files: FIXTURE,
    expect: Some(r#"{"parsed": 2, "index": {"files": 2, "state": "ready"}}"#),
    ..Example::EMPTY
}]);

impl Command<Services> for Reindex {
    type Args = ReindexArgs;
    type Output = Reindexed;
    fn spec(&self) -> &'static CommandSpec {
        &REINDEX
    }
    fn run(&self, cx: &mut Cx<'_, Services>, a: ReindexArgs) -> Result<Reindexed, CommandError> {
        use ultra_protocol::event::names;
        let start = std::time::Instant::now();
        let mut parsed = 0;
        let events = cx.events;
        let mut last = std::time::Instant::now();
        let (_, state) = cx.services.index_now(a.cold, &mut |p| {
            parsed = p.done;
            if last.elapsed().as_millis() >= 100 || p.done == p.total {
                last = std::time::Instant::now();
                events.emit(
                    names::INDEX_PROGRESS,
                    json!({ "done": p.done, "total": p.total, "bytes": p.bytes }),
                    None,
                );
            }
        });
        let seconds = start.elapsed().as_secs_f64();
        events.emit(
            names::INDEX_READY,
            json!({ "files": state.files, "skipped": state.skipped, "seconds": seconds }),
            None,
        );
        Ok(Reindexed {
            parsed,
            seconds,
            index: state,
        })
    }
}
