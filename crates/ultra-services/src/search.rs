//! `grep code` in the shell: symbol search over a workspace's index.

use std::sync::{Arc, Mutex};

use ultra_indexer::CodeIndex;
use ultra_workspace::{Root, Workspace};

/// [`CodeSearch`](ultra_shell::run::fs::CodeSearch) over a workspace's index, for `grep code`.
pub struct Search {
    pub code: Arc<CodeIndex>,
    pub root: Arc<Root>,
    pub workspace: Arc<Mutex<Workspace>>,
}

impl ultra_shell::run::fs::CodeSearch for Search {
    fn search(
        &self,
        query: &str,
        limit: usize,
    ) -> Result<Vec<ultra_shell::run::fs::SymbolHit>, String> {
        self.code.refresh(&self.root, &self.workspace, &[]);
        let idx = self.code.read();
        Ok(idx
            .search_symbols(query, limit)
            .into_iter()
            .map(|d| {
                let def = d.def();
                let detail = self
                    .code
                    .details(&d.file)
                    .functions
                    .iter()
                    .find(|f| {
                        f.name == def.name && f.line_start <= def.line && def.line <= f.line_end
                    })
                    .map(|f| f.signature.clone())
                    .unwrap_or_default();
                ultra_shell::run::fs::SymbolHit {
                    name: match &def.container {
                        Some(c) => format!("{c}.{}", def.name),
                        None => def.name.clone(),
                    },
                    kind: serde_json::to_value(def.kind)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_string))
                        .unwrap_or_default(),
                    path: d.file.path.clone(),
                    line: def.line,
                    detail,
                }
            })
            .collect())
    }
}

/// [`TextIndex`](ultra_shell::run::fs::TextIndex) over the workspace's text index, for
/// `grep -r` and the `grep` tool.
pub struct Text {
    pub text: Arc<ultra_indexer::TextIndex>,
    pub root: Arc<Root>,
}

impl ultra_shell::run::fs::TextIndex for Text {
    fn view(
        &self,
        patterns: &[String],
        case_insensitive: bool,
    ) -> Option<Box<dyn ultra_shell::run::fs::TextView>> {
        let view = self.text.view(&self.root, patterns, case_insensitive)?;
        Some(Box::new(View(view)))
    }
}

/// A search's view of the text index, for the shell.
struct View(ultra_indexer::TextView);

impl ultra_shell::run::fs::TextView for View {
    fn dir(&self, dir: &str) -> Option<(Arc<ultra_workspace::root::Listing>, Arc<Vec<bool>>)> {
        self.0.dir(dir)
    }
}
