//! Reading code: `get_lines`, `get_function`, `get_class`, `get_structure`.

use super::*;

// ---------------------------------------------------------------- get_lines

/// Arguments of `get_lines`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GetLinesArgs {
    /// File, from the workspace root.
    pub path: String,
    /// First line, 1-based (default 1).
    #[schemars(range(min = 1))]
    pub start: Option<u32>,
    /// Last line, inclusive (default: the last line).
    #[schemars(range(min = 1))]
    pub end: Option<u32>,
}

/// Result of `get_lines`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Lines {
    pub path: String,
    /// First line given.
    pub start: u32,
    /// Last line given: before the end asked for when the answer was full.
    pub end: u32,
    pub total_lines: u32,
    /// The lines, numbered as `cat -n` does.
    pub text: String,
    /// Content hash, for expectedHash.
    pub hash: String,
    /// Where the answer stopped, when it could not hold every line asked for.
    #[serde(flatten)]
    pub cut: Cut,
}

/// `get_lines`.
pub struct GetLines;

impl Command<Services> for GetLines {
    type Args = GetLinesArgs;
    type Output = Lines;
    const SPEC: CommandSpec = CommandSpec::new(
        "code.getLines",
        "Code: Get Lines",
        "Code",
        "Lines of a file numbered as by cat -n (1-based, `end` inclusive), unsaved edits in; up to 48 KiB an answer (then nextStart). hash: for expectedHash.",
    )
    .render(ultra_core::render::lines)
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
    fn run(&self, cx: &mut Cx<'_, Services>, a: GetLinesArgs) -> Result<Lines, CommandError> {
        let rel = resolve(cx, &a.path)?;
        let start = a.start.unwrap_or(1).max(1);
        // Only the window the answer can hold is read (a big file that is not open keeps
        // its line count and hash from an earlier read while it is unchanged).
        let window = {
            let mut ws = cx.services.ws();
            let read = ws.read_window(&rel, start, MAX_LINES_TEXT);
            emit_notices(cx, &mut ws);
            read?
        };
        let total = window.total_lines;
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
        let page = numbered_window(
            &window.text,
            start,
            end,
            MAX_LINES_TEXT,
            window.first_line_len,
        );
        Ok(Lines {
            path: rel.as_str().to_string(),
            start,
            end: page.last,
            total_lines: total,
            cut: page.cut(end),
            text: page.text,
            hash: window.hash,
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
    /// Where `code` stopped, when the function is longer than one answer holds.
    #[serde(flatten)]
    pub cut: Cut,
    pub index: IndexState,
}

/// Most lines `get_function` returns when it falls back to the whole file.
pub const FALLBACK_LINES: u32 = 2_000;

/// `get_function`.
pub struct GetFunction;

impl Command<Services> for GetFunction {
    type Args = GetFunctionArgs;
    type Output = FunctionInfo;
    const SPEC: CommandSpec = CommandSpec::new(
        "code.getFunction",
        "Code: Get Function",
        "Code",
        "Get one function's source (numbered) and metadata: params, async, exported, return type. Methods are `Class.method`; `const f = () => ...` counts. If it is not found, the error lists the file's functions. A file the index does not parse (another language, too big) comes back from its first line, with `fallback` saying why.",
    )
    .render(ultra_core::render::symbol)
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
    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        a: GetFunctionArgs,
    ) -> Result<FunctionInfo, CommandError> {
        let rel = resolve(cx, &a.path)?;
        let (code, state) = cx.services.code(&[rel.as_str().to_string()]);
        let file = code.read().get(rel.as_str()).map(|f| code.details(&f));
        let Some(file) = file.filter(|f| f.lang.is_some()) else {
            // Seed 001: a file that is not indexed is read whole.
            let text = text_of(cx, &rel).ok_or_else(|| not_indexed(&a.path))?;
            let lines = line_count(&text);
            let page = numbered_page(&text, 1, lines.min(FALLBACK_LINES), MAX_LINES_TEXT);
            let shown = page.last;
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
                cut: page.cut(lines),
                code: page.text,
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
        let page = numbered_page(&text, f.line_start, f.line_end, MAX_LINES_TEXT);
        Ok(FunctionInfo {
            cut: page.cut(f.line_end),
            code: page.text,
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
    /// Where `code` stopped, when the class is longer than one answer holds.
    #[serde(flatten)]
    pub cut: Cut,
    pub index: IndexState,
}

/// `get_class`.
pub struct GetClass;

impl Command<Services> for GetClass {
    type Args = GetClassArgs;
    type Output = ClassInfo;
    const SPEC: CommandSpec = CommandSpec::new(
        "code.getClass",
        "Code: Get Class",
        "Code",
        "Get one class's (struct's, interface's, trait's) source (numbered) and metadata: methods, properties, extends, implements, abstract, exported. If it is not found, the error lists the file's classes.",
    )
    .render(ultra_core::render::symbol)
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
    fn run(&self, cx: &mut Cx<'_, Services>, a: GetClassArgs) -> Result<ClassInfo, CommandError> {
        let rel = resolve(cx, &a.path)?;
        let (code, state) = cx.services.code(&[rel.as_str().to_string()]);
        let file = code
            .read()
            .get(rel.as_str())
            .map(|f| code.details(&f))
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
        let page = numbered_page(&text, c.line_start, c.line_end, MAX_LINES_TEXT);
        Ok(ClassInfo {
            cut: page.cut(c.line_end),
            code: page.text,
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
    /// Directories in the whole tree (not only those shown).
    pub directories: usize,
    /// Files in the whole tree (not only those shown).
    pub files: usize,
    /// The ASCII tree and its stats line.
    pub text: String,
    /// Not every entry is shown: the tree was drawn to `shownDepth` (deeper directories
    /// summarised by their counts) or cut at the answer's size.
    pub truncated: bool,
    /// The deepest level drawn, when the tree goes deeper.
    pub shown_depth: Option<u32>,
}

/// `get_structure`.
pub struct GetStructure;

/// Most entries one walk looks at; past it the counts are a lower bound.
const MAX_STRUCTURE: usize = 200_000;

/// Most bytes of tree drawn in one answer.
const STRUCTURE_BYTES: usize = super::super::page::ANSWER_BYTES - 2048;

const BINARY_EXT: [&str; 16] = [
    "png", "jpg", "jpeg", "gif", "ico", "pdf", "zip", "gz", "tar", "so", "dll", "exe", "bin",
    "woff", "woff2", "class",
];

/// One entry of the tree, in walk order (depth first, by name).
struct Entry {
    depth: usize,
    name: String,
    is_dir: bool,
    /// For a directory: files and directories below it.
    files: usize,
    dirs: usize,
}

impl Entry {
    /// The bytes its line takes, about.
    fn cost(&self) -> usize {
        self.depth * 4 + self.name.len() + 12 + if self.is_dir { 24 } else { 0 }
    }
}

impl Command<Services> for GetStructure {
    type Args = GetStructureArgs;
    type Output = Structure;
    const SPEC: CommandSpec = CommandSpec::new(
        "code.getStructure",
        "Code: Get Structure",
        "Code",
        "The directory tree as ASCII with stats. Leaves out .gitignored paths, hidden files, node_modules, .git, build output and binary-looking files. A big tree is drawn as deep as fits in 32 KB, deeper directories with their counts.",
    )
    .render(ultra_core::render::text)
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
            .filter_entry(cx.services.index_exclude().walk_filter(root.path()));
        let mut entries: Vec<Entry> = Vec::new();
        // Directories open above the current entry, innermost last (indexes into entries).
        let mut open: Vec<usize> = Vec::new();
        let mut incomplete = false;
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
                incomplete = true;
                break;
            }
            let depth = e.depth();
            while open.last().is_some_and(|&i| entries[i].depth >= depth) {
                open.pop();
            }
            for &i in &open {
                if is_dir {
                    entries[i].dirs += 1;
                } else {
                    entries[i].files += 1;
                }
            }
            if is_dir {
                open.push(entries.len());
            }
            entries.push(Entry {
                depth,
                name,
                is_dir,
                files: 0,
                dirs: 0,
            });
        }
        let (dirs, files) =
            entries.iter().fold(
                (0, 0),
                |(d, f), e| {
                    if e.is_dir { (d + 1, f) } else { (d, f + 1) }
                },
            );
        // The deepest level whose entries, with all above them, fit in the answer.
        let deepest = entries.iter().map(|e| e.depth).max().unwrap_or(0);
        let mut by_depth = vec![0usize; deepest + 1];
        for e in &entries {
            by_depth[e.depth] += e.cost();
        }
        let mut shown = 0;
        let mut bytes = 0;
        for (d, cost) in by_depth.iter().enumerate().skip(1) {
            if bytes + cost > STRUCTURE_BYTES {
                break;
            }
            bytes += cost;
            shown = d;
        }
        // Even the top level may not fit: then it is cut by bytes.
        let shown = shown.max(1);
        let visible: Vec<&Entry> = entries.iter().filter(|e| e.depth <= shown).collect();
        let title = if rel.as_str().is_empty() {
            "./".to_string()
        } else {
            format!("{}/", rel.as_str())
        };
        let mut text = format!("{title}\n");
        let mut left_out = 0;
        for (i, e) in visible.iter().enumerate() {
            if text.len() + e.cost() > STRUCTURE_BYTES {
                left_out = visible.len() - i;
                break;
            }
            // The prefix: for each ancestor level, whether more siblings follow.
            let mut prefix = String::new();
            for level in 1..e.depth {
                let more = visible[i + 1..]
                    .iter()
                    .take_while(|x| x.depth >= level)
                    .any(|x| x.depth == level);
                prefix.push_str(if more { "│   " } else { "    " });
            }
            let last = !visible[i + 1..]
                .iter()
                .take_while(|x| x.depth >= e.depth)
                .any(|x| x.depth == e.depth);
            let branch = if last { "└── " } else { "├── " };
            let icon = if e.is_dir { "📁 " } else { "📄 " };
            let slash = if e.is_dir { "/" } else { "" };
            let _ = write!(text, "{prefix}{branch}{icon}{}{slash}", e.name);
            if e.is_dir && e.depth == shown && e.files + e.dirs > 0 {
                let _ = write!(text, " ({} files, {} directories)", e.files, e.dirs);
            }
            text.push('\n');
        }
        let at_least = if incomplete { "at least " } else { "" };
        let _ = writeln!(
            text,
            "\nStats: {at_least}{dirs} directories, {at_least}{files} files"
        );
        let cut_depth = shown < deepest;
        if left_out > 0 {
            let _ = writeln!(
                text,
                "[{left_out} more entries at the top level not shown: the answer is cut at {} KB; ask for a subdirectory (`path`)]",
                STRUCTURE_BYTES / 1024
            );
        } else if cut_depth {
            let _ = writeln!(
                text,
                "[drawn {shown} level{} deep to fit in {} KB; deeper directories show their counts: ask for a subdirectory (`path`) to see more]",
                if shown == 1 { "" } else { "s" },
                STRUCTURE_BYTES / 1024
            );
        }
        if incomplete {
            let _ = writeln!(
                text,
                "[the walk stopped at {MAX_STRUCTURE} entries: ask for a subdirectory]"
            );
        }
        Ok(Structure {
            path: rel.as_str().to_string(),
            directories: dirs,
            files,
            text,
            truncated: left_out > 0 || cut_depth || incomplete,
            shown_depth: cut_depth.then_some(shown as u32),
        })
    }
}
