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
    pub start: u32,
    pub end: u32,
    pub total_lines: u32,
    /// The lines, numbered as `cat -n` does.
    pub text: String,
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
        "Read lines of a file with line numbers (cat -n format); 1-based, `end` inclusive. Open buffers are read as they are, saved or not.",
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
        let Some(text) = text_of(cx, &rel) else {
            // Say why the read was refused (a hard link, a special file) when it was.
            let refused = cx.services.ws().root().read(&rel).err();
            return Err(refused.map(CommandError::from).unwrap_or_else(|| {
                CommandError::new(
                    ErrorCode::FileNotFound,
                    format!("cannot read {} as text", a.path),
                )
            }));
        };
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

impl Command<Services> for GetFunction {
    type Args = GetFunctionArgs;
    type Output = FunctionInfo;
    const SPEC: CommandSpec = CommandSpec::new(
        "code.getFunction",
        "Code: Get Function",
        "Code",
        "Get one function's source (numbered) and metadata: params, async, exported, return type. Methods are `Class.method`; `const f = () => ...` counts. If it is not found, the error lists the file's functions. A file the index does not parse (another language, or too big) comes back whole (up to 2,000 lines) with `fallback` saying why.",
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

/// Most entries one structure answer lists.
const MAX_STRUCTURE: usize = 5000;

const BINARY_EXT: [&str; 16] = [
    "png", "jpg", "jpeg", "gif", "ico", "pdf", "zip", "gz", "tar", "so", "dll", "exe", "bin",
    "woff", "woff2", "class",
];

impl Command<Services> for GetStructure {
    type Args = GetStructureArgs;
    type Output = Structure;
    const SPEC: CommandSpec = CommandSpec::new(
        "code.getStructure",
        "Code: Get Structure",
        "Code",
        "The directory tree as ASCII with stats. Leaves out .gitignored paths, hidden files, node_modules, .git, dist, build, target, coverage and binary-looking files.",
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
