//! Seed 001's read, search and analysis tools over the code index (`tools/`) and seed
//! 003's position queries (`state.rs`); the index itself is a service
//! ([`ultra_indexer::CodeIndex`]).

pub mod state;
pub mod tools;

use std::sync::Mutex;

use ultra_workspace::{Root, Workspace};

pub use ultra_indexer::{CodeIndex, IndexState, StoreAt};

/// [`CodeSearch`](ultra_shell::run::fs::CodeSearch) over a workspace's index, for `grep code`.
pub struct Search {
    pub code: std::sync::Arc<CodeIndex>,
    pub root: std::sync::Arc<Root>,
    pub workspace: std::sync::Arc<Mutex<Workspace>>,
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
                let detail = d
                    .file
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
