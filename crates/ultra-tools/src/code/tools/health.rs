//! The state of the code and its index: `get_complexity`, `get_todos`, `reindex`.

use super::*;

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

impl Command<Services> for GetComplexity {
    type Args = GetComplexityArgs;
    type Output = ComplexityReport;
    const SPEC: CommandSpec = CommandSpec::new(
        "code.getComplexity",
        "Code: Get Complexity",
        "Code",
        "Complexity per file, most complex first: lines of code (no comments), nesting depth, cyclomatic complexity and a 0-100 score, with a summary.",
    )
    .render(ultra_core::render::text)
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
    /// Most TODOs returned (default 200); the summary always
    /// counts them all.
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

impl Command<Services> for GetTodos {
    type Args = GetTodosArgs;
    type Output = Todos;
    const SPEC: CommandSpec = CommandSpec::new(
        "code.getTodos",
        "Code: Get TODOs",
        "Code",
        "TODO, FIXME, HACK, XXX, BUG and NOTE comments in code, filtered by path and type, with a summary by type.",
    )
    .render(ultra_core::render::text)
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
        let mut page = Pager::new(limit);
        let todos: Vec<TodoInfo> = todos
            .into_iter()
            .skip(start)
            .map(|mut t| {
                t.todo.context = clip(&t.todo.context, None);
                t.todo.text = clip(&t.todo.text, None);
                t
            })
            .take_while(|t| page.admit(t))
            .collect();
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
            let _ = writeln!(text, "\n{}", more(total, n, page.full, "`path` or `type`"));
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

impl Command<Services> for Reindex {
    type Args = ReindexArgs;
    type Output = Reindexed;
    const SPEC: CommandSpec = CommandSpec::new(
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
