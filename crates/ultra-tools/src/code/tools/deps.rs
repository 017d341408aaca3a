//! The import graph: `get_dependencies`, `get_dependents`.

use super::*;

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

impl Command<Services> for GetDependencies {
    type Args = PathArgs;
    type Output = Dependencies;
    const SPEC: CommandSpec = CommandSpec::new(
        "code.getDependencies",
        "Code: Get Dependencies",
        "Code",
        "The workspace files a file imports (resolved per language), each with its type, hub status and entry-point flag; imports of packages are listed separately as external.",
    )
    .render(ultra_core::render::text)
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

impl Command<Services> for GetDependents {
    type Args = PathArgs;
    type Output = Dependents;
    const SPEC: CommandSpec = CommandSpec::new(
        "code.getDependents",
        "Code: Get Dependents",
        "Code",
        "The files that import a file, with their complexity and type; a file with more than 5 dependents is a hub, and the answer warns that changing it affects them.",
    )
    .render(ultra_core::render::text)
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
