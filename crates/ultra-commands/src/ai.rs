//! AI commands (seed 000 `ai.ts`): context for files, with validator guidelines, and progress.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use ultra_core::command::{CommandSpec, Example, Touches};
use ultra_core::registry::RegistryError;
use ultra_core::{Command, Cx, Registry};
use ultra_protocol::event::names;
use ultra_protocol::{CommandError, ErrorCode};

use ultra_services::Services;
use ultra_services::util::{cap_chars, is_human};

/// Register the AI commands.
pub fn register(r: &mut Registry<Services>) -> Result<(), RegistryError> {
    r.register(GetContext)?;
    r.register(ReportProgress)?;
    Ok(())
}

/// Most paths one `ultra.ai.getContext` gathers.
pub const MAX_CONTEXT_PATHS: usize = 200;
/// Most characters of one file it returns, whatever `maxCharsPerFile` says.
pub const MAX_CHARS_PER_FILE: usize = 1 << 20;

/// Arguments of `ultra.ai.getContext`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GetContextArgs {
    /// Files the agent is about to work on (at most 200).
    pub paths: Vec<String>,
    /// Most characters of content per file (default 64 KiB, at most 1 MiB).
    pub max_chars_per_file: Option<usize>,
}

/// One file's context.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileContext {
    pub path: String,
    /// The content, or null with `error` when it cannot be read.
    pub content: Option<String>,
    pub language: String,
    pub truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<CommandError>,
    /// The file's definitions from the code index (name, kind, line; methods as
    /// `Type.method`), for source files of a known language.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub symbols: Vec<SymbolSummary>,
}

/// One definition in a file's context.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SymbolSummary {
    pub name: String,
    pub kind: ultra_index::DefKind,
    pub line: u32,
}

/// Result of `ultra.ai.getContext`.
#[derive(Debug, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Context {
    pub files: Vec<FileContext>,
    /// Guidelines and rules from validators, when any are loaded.
    pub validator_context: Option<serde_json::Value>,
}

/// `ultra.ai.getContext`.
pub struct GetContext;

impl Command<Services> for GetContext {
    type Args = GetContextArgs;
    type Output = Context;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.ai.getContext",
        "AI: Get Context for Files",
        "AI",
        "Get files' content and symbols (from the code index) plus the guidelines and rules validators will enforce on them, before editing. Unreadable files are reported per file, not as a failure.",
    )
    .touches(Touches::READ)
    .long()
    .read_only()
    .examples(&[Example {
        description: "Context for one file",
        args: r#"{"paths": ["src/app.ts", "missing.ts"]}"#,
        files: &[("src/app.ts", "const x = 1;\n")],
        expect: Some(r#"{"files": [{"path": "src/app.ts", "content": "const x = 1;\n", "symbols": [{"name": "x", "kind": "const", "line": 1}]}, {"path": "missing.ts", "content": null}]}"#),
        ..Example::EMPTY
    }]);

    fn run(
        &self,
        cx: &mut Cx<'_, Services>,
        args: GetContextArgs,
    ) -> Result<Context, CommandError> {
        // What one answer may gather: an agent's context window is far smaller anyway.
        if args.paths.len() > MAX_CONTEXT_PATHS {
            return Err(CommandError::new(
                ErrorCode::InvalidArguments,
                format!(
                    "{} paths asked for; at most {MAX_CONTEXT_PATHS} per call",
                    args.paths.len()
                ),
            )
            .with_details(json!({ "limit": MAX_CONTEXT_PATHS, "given": args.paths.len() }))
            .with_suggestion(
                "ask for the files you will work on now, in several calls if needed",
            ));
        }
        let max = args
            .max_chars_per_file
            .unwrap_or(64 * 1024)
            .min(MAX_CHARS_PER_FILE);
        let mut files = Vec::new();
        let mut rels = Vec::new();
        {
            let mut ws = cx.services.ws();
            for p in &args.paths {
                let snap = ws
                    .resolve_read(p, is_human(cx))
                    .and_then(|rel| ws.snapshot(&rel));
                match snap {
                    Ok(s) => {
                        let (content, truncated) = cap_chars(s.rope.to_string(), max);
                        rels.push(s.path.to_string());
                        files.push(FileContext {
                            path: s.path.to_string(),
                            content: Some(content),
                            language: s.language.into(),
                            truncated,
                            hash: s.hash,
                            error: None,
                            symbols: Vec::new(),
                        });
                    }
                    Err(e) => files.push(FileContext {
                        path: p.clone(),
                        content: None,
                        language: ultra_workspace::text::language_of(p).into(),
                        truncated: false,
                        hash: None,
                        error: Some(e.into()),
                        symbols: Vec::new(),
                    }),
                }
            }
        }
        // Symbols from the index (the files asked about are indexed first).
        if rels.iter().any(|p| ultra_index::Lang::of_path(p).is_some()) {
            let (code, _) = cx.services.code(&rels);
            let idx = code.read();
            for f in files.iter_mut().filter(|f| f.content.is_some()) {
                if let Some(rec) = idx.get(&f.path) {
                    f.symbols = rec
                        .definitions
                        .iter()
                        .map(|d| SymbolSummary {
                            name: match &d.container {
                                Some(c) => format!("{c}.{}", d.name),
                                None => d.name.clone(),
                            },
                            kind: d.kind,
                            line: d.line,
                        })
                        .collect();
                }
            }
        }
        let validator_context = if cx.validator_ids().is_empty() {
            None
        } else {
            Some(serde_json::to_value(cx.validator_context(&rels)?).unwrap_or_default())
        };
        Ok(Context {
            files,
            validator_context,
        })
    }
}

/// Arguments of `ultra.ai.reportProgress`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ProgressArgs {
    pub message: String,
    pub step: Option<u32>,
    pub total_steps: Option<u32>,
}

/// Result of `ultra.ai.reportProgress`.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Reported {
    pub reported: bool,
}

/// `ultra.ai.reportProgress`.
pub struct ReportProgress;

impl Command<Services> for ReportProgress {
    type Args = ProgressArgs;
    type Output = Reported;

    const SPEC: CommandSpec = CommandSpec::new(
        "ultra.ai.reportProgress",
        "AI: Report Progress",
        "AI",
        "Report progress on a multi-step task; subscribers (the UI, `ultra serve`'s terminal) receive an ai.progress event.",
    )
    .touches(Touches::NOTHING)
    .idempotent()
    .examples(&[Example { description: "Step 2 of 5", args: r#"{"message": "running tests", "step": 2, "totalSteps": 5}"#, expect: Some(r#"{"reported": true}"#), ..Example::EMPTY }]);

    fn run(&self, cx: &mut Cx<'_, Services>, args: ProgressArgs) -> Result<Reported, CommandError> {
        let mut progress =
            json!({ "message": args.message, "step": args.step, "totalSteps": args.total_steps });
        cx.events
            .emit(names::PROGRESS, progress.clone(), Some(cx.source));
        progress["source"] = json!(cx.source.kind);
        progress["agentId"] = json!(cx.source.agent_id);
        cx.services.view().set_progress(progress);
        Ok(Reported { reported: true })
    }
}
