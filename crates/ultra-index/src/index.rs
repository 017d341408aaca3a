//! The index of a workspace: one [`FileIndex`] per file, with the lookups the tools need
//! kept up to date as files are added, changed and removed (definitions by name, files by
//! identifier), and the dependency graph derived on demand and cached per generation.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use crate::lang::Lang;
use crate::model::{DefKind, Definition, FileIndex};
use crate::resolve::{self, Files};

/// More dependents than this makes a file a hub (seed 001).
pub const HUB_THRESHOLD: usize = 5;

/// Where a definition is.
#[derive(Debug, Clone)]
pub struct DefRef {
    pub file: Arc<FileIndex>,
    /// Index into the file's `definitions`.
    pub index: usize,
}

impl DefRef {
    /// The definition itself.
    pub fn def(&self) -> &Definition {
        &self.file.definitions[self.index]
    }
}

/// Imports resolved across the workspace.
#[derive(Debug, Default)]
pub struct Graph {
    /// File → the workspace files it imports (sorted, unique).
    pub deps: BTreeMap<String, Vec<String>>,
    /// File → the files that import it (sorted, unique).
    pub dependents: BTreeMap<String, Vec<String>>,
}

impl Graph {
    /// How many files import `path`.
    pub fn dependent_count(&self, path: &str) -> usize {
        self.dependents.get(path).map_or(0, Vec::len)
    }

    /// More than [`HUB_THRESHOLD`] dependents.
    pub fn is_hub(&self, path: &str) -> bool {
        self.dependent_count(path) > HUB_THRESHOLD
    }
}

/// The index.
#[derive(Default)]
pub struct Index {
    files: BTreeMap<String, Arc<FileIndex>>,
    /// Definition name → (file, index) pairs. (Files containing an identifier are found
    /// by a binary search of each file's sorted names instead of a map of every name: that
    /// map would be the biggest thing in memory.)
    defs: foldhash::HashMap<String, Vec<(Arc<str>, usize)>>,
    /// Directories holding a `go.mod`, with their module path.
    go_modules: BTreeMap<String, String>,
    generation: u64,
    graph: Mutex<Option<(u64, Arc<Graph>)>>,
}

impl Index {
    /// An empty index.
    pub fn new() -> Index {
        Index::default()
    }

    /// Bumps on every change.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// How many files are indexed.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// No file is indexed.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// A file's record.
    pub fn get(&self, path: &str) -> Option<Arc<FileIndex>> {
        self.files.get(path).cloned()
    }

    /// Every record, by path.
    pub fn files(&self) -> impl Iterator<Item = &Arc<FileIndex>> {
        self.files.values()
    }

    /// Records under `dir` ("" for all), by path.
    pub fn files_under<'a>(
        &'a self,
        dir: &'a str,
    ) -> impl Iterator<Item = &'a Arc<FileIndex>> + 'a {
        let prefix = if dir.is_empty() {
            String::new()
        } else {
            format!("{}/", dir.trim_end_matches('/'))
        };
        self.files
            .range(prefix.clone()..)
            .take_while(move |(p, _)| p.starts_with(&prefix))
            .map(|(_, f)| f)
            .chain(self.files.get(dir).filter(|_| !dir.is_empty()))
    }

    /// Whether `path` is indexed with this content hash already.
    pub fn is_current(&self, path: &str, hash: &str) -> bool {
        self.files.get(path).is_some_and(|f| f.hash == hash)
    }

    /// Add or replace a file's record; false when the content hash is unchanged.
    pub fn upsert(&mut self, record: FileIndex) -> bool {
        if self.is_current(&record.path, &record.hash) {
            return false;
        }
        self.remove(&record.path.clone());
        let path: Arc<str> = Arc::from(record.path.as_str());
        for (i, d) in record.definitions.iter().enumerate() {
            match self.defs.get_mut(d.name.as_str()) {
                Some(v) => v.push((path.clone(), i)),
                None => {
                    self.defs.insert(d.name.clone(), vec![(path.clone(), i)]);
                }
            }
        }
        self.files.insert(record.path.clone(), Arc::new(record));
        self.generation += 1;
        true
    }

    /// Record a `go.mod` (its `module` line), for resolving Go imports.
    pub fn set_go_module(&mut self, gomod_path: &str, content: &str) {
        let dir = resolve::dir_of(gomod_path).to_string();
        match content
            .lines()
            .find_map(|l| l.trim().strip_prefix("module "))
            .map(|m| m.trim().trim_matches('"').to_string())
        {
            Some(m) => {
                self.go_modules.insert(dir, m);
            }
            None => {
                self.go_modules.remove(&dir);
            }
        }
        self.generation += 1;
    }

    /// Forget a file.
    pub fn remove(&mut self, path: &str) {
        if path.ends_with("go.mod") {
            self.go_modules.remove(resolve::dir_of(path));
        }
        let Some(old) = self.files.remove(path) else {
            return;
        };
        for d in &old.definitions {
            if let Some(v) = self.defs.get_mut(&d.name) {
                v.retain(|(p, _)| &**p != path);
                if v.is_empty() {
                    self.defs.remove(&d.name);
                }
            }
        }
        self.generation += 1;
    }

    /// Every definition named `name`, by path and line.
    pub fn definitions(&self, name: &str) -> Vec<DefRef> {
        let mut out: Vec<DefRef> = self
            .defs
            .get(name)
            .into_iter()
            .flatten()
            .filter_map(|(p, i)| {
                self.files.get(&**p).map(|f| DefRef {
                    file: f.clone(),
                    index: *i,
                })
            })
            .collect();
        out.sort_by(|a, b| {
            (a.file.path.as_str(), a.def().line).cmp(&(b.file.path.as_str(), b.def().line))
        });
        out
    }

    /// Definition names close to `name` (case-insensitive match, shared prefix, or a small
    /// edit distance), best first.
    pub fn similar_names(&self, name: &str, n: usize) -> Vec<String> {
        let lower = name.to_lowercase();
        let mut scored: Vec<(usize, &String)> = self
            .defs
            .keys()
            .filter_map(|k| {
                let kl = k.to_lowercase();
                let score = if kl == lower {
                    0
                } else if kl.contains(&lower) || lower.contains(&kl) && kl.len() > 2 {
                    1 + kl.len().abs_diff(lower.len()).min(5)
                } else {
                    let d = strsim::levenshtein(&kl, &lower);
                    if d > 2.max(lower.len() / 4) {
                        return None;
                    }
                    3 + d
                };
                Some((score, k))
            })
            .collect();
        scored.sort();
        scored.into_iter().take(n).map(|(_, k)| k.clone()).collect()
    }

    /// Definitions ranked against a free-text query (`grep code QUERY`): each query word
    /// scores against the words of a name (`UserService` → user, service; `get_user` →
    /// get, user), exact words above prefixes above substrings, the whole name matching
    /// best; classes and functions before variables. Best first.
    pub fn search_symbols(&self, query: &str, limit: usize) -> Vec<DefRef> {
        let terms: Vec<String> = words(query);
        if terms.is_empty() {
            return Vec::new();
        }
        let joined: String = terms.concat();
        let rank = |k: DefKind| match k {
            DefKind::Class
            | DefKind::Struct
            | DefKind::Interface
            | DefKind::Trait
            | DefKind::Enum => 0,
            DefKind::Function | DefKind::Method => 1,
            DefKind::Type | DefKind::Module => 2,
            DefKind::Const | DefKind::Variable => 3,
        };
        let mut scored: Vec<(u32, u8, usize, DefRef)> = Vec::new();
        for (name, places) in &self.defs {
            let name_parts = words(name);
            for (path, i) in places {
                let Some(file) = self.files.get(&**path) else {
                    continue;
                };
                let def = &file.definitions[*i];
                // A method also answers to its type's name (`db get` → `Db.get`).
                let mut parts = def.container.as_deref().map(words).unwrap_or_default();
                parts.extend(name_parts.iter().cloned());
                let mut score = 0;
                for t in &terms {
                    let best = parts
                        .iter()
                        .map(|p| {
                            if p == t {
                                6
                            } else if p.starts_with(t.as_str())
                                || (t.starts_with(p.as_str()) && p.len() > 2)
                            {
                                3
                            } else if p.contains(t.as_str()) {
                                1
                            } else {
                                0
                            }
                        })
                        .max()
                        .unwrap_or(0);
                    if best == 0 {
                        score = 0;
                        break;
                    }
                    score += best;
                }
                // The whole query may be the identifier itself, written another way.
                if name_parts.concat() == joined || parts.concat() == joined {
                    score += 10;
                }
                if score > 0 {
                    scored.push((
                        score,
                        rank(def.kind),
                        name.len(),
                        DefRef {
                            file: file.clone(),
                            index: *i,
                        },
                    ));
                }
            }
        }
        scored.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then(a.1.cmp(&b.1))
                .then(a.2.cmp(&b.2))
                .then_with(|| a.3.file.path.cmp(&b.3.file.path))
                .then(a.3.def().line.cmp(&b.3.def().line))
        });
        scored
            .into_iter()
            .take(limit)
            .map(|(_, _, _, d)| d)
            .collect()
    }

    /// Files containing identifier `name`, by path.
    pub fn files_with_name(&self, name: &str) -> Vec<Arc<FileIndex>> {
        self.files
            .values()
            .filter(|f| f.names.binary_search_by(|n| n.as_str().cmp(name)).is_ok())
            .cloned()
            .collect()
    }

    /// The workspace files an import of `path` names.
    pub fn resolve(&self, file: &FileIndex, source: &str, names: &[String]) -> Vec<String> {
        match file.lang {
            Some(lang) => resolve::resolve(self, lang, &file.path, source, names),
            None => Vec::new(),
        }
    }

    /// The dependency graph, rebuilt when the index changed since the last call.
    pub fn graph(&self) -> Arc<Graph> {
        let mut cached = self.graph.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((g, graph)) = cached.as_ref()
            && *g == self.generation
        {
            return graph.clone();
        }
        let mut graph = Graph::default();
        for f in self.files.values() {
            let mut deps = BTreeSet::new();
            for imp in &f.imports {
                for target in self.resolve(f, &imp.source, &imp.names) {
                    if target != f.path {
                        deps.insert(target);
                    }
                }
            }
            for d in &deps {
                graph
                    .dependents
                    .entry(d.clone())
                    .or_default()
                    .push(f.path.clone());
            }
            graph
                .deps
                .insert(f.path.clone(), deps.into_iter().collect());
        }
        for v in graph.dependents.values_mut() {
            v.sort();
            v.dedup();
        }
        let graph = Arc::new(graph);
        *cached = Some((self.generation, graph.clone()));
        graph
    }
}

impl Files for Index {
    fn exists(&self, path: &str) -> bool {
        self.files.contains_key(path)
    }

    fn in_dir(&self, dir: &str) -> Vec<String> {
        self.files_under(dir)
            .filter(|f| resolve::dir_of(&f.path) == dir)
            .map(|f| f.path.clone())
            .collect()
    }

    fn with_suffix(&self, suffix: &str) -> Vec<String> {
        self.files
            .keys()
            .filter(|p| {
                if suffix.ends_with('/') {
                    p.starts_with(suffix) || p.contains(&format!("/{suffix}"))
                } else {
                    p.as_str() == suffix || p.ends_with(&format!("/{suffix}"))
                }
            })
            .cloned()
            .collect()
    }

    fn go_modules(&self) -> Vec<(String, String)> {
        self.go_modules
            .iter()
            .map(|(d, m)| (d.clone(), m.clone()))
            .collect()
    }
}

/// The lowercase words of an identifier or a query, split at non-alphanumerics and where a
/// lowercase letter or digit meets an uppercase one (`parseHttpRequest` → parse, http,
/// request; `get_user` → get, user).
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for c in s.chars() {
        if !c.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        cur.extend(c.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// What kind of file a path is, for dependency answers (seed 001).
pub fn file_type(path: &str) -> &'static str {
    let lower = path.to_lowercase();
    let name = lower.rsplit('/').next().unwrap_or(&lower);
    if lower.contains("/test/")
        || lower.contains("/tests/")
        || lower.starts_with("test/")
        || lower.starts_with("tests/")
        || lower.contains("__tests__")
        || name.contains(".test.")
        || name.contains(".spec.")
        || name.ends_with("_test.go")
        || name.starts_with("test_")
        || name.ends_with("_test.py")
    {
        "test"
    } else if name.ends_with(".d.ts")
        || lower.contains("/types/")
        || name.starts_with("types.")
        || name == "types"
    {
        "types"
    } else if name.contains("config")
        || name.contains("settings")
        || lower.starts_with("config/")
        || lower.contains("/config/")
    {
        "config"
    } else if Lang::of_path(path).is_some() {
        "source"
    } else {
        "unknown"
    }
}

/// Whether a file is an entry point: a package or module's index, a program's main.
pub fn is_entry_point(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let stem = name.split('.').next().unwrap_or(name);
    matches!(
        stem,
        "index" | "main" | "lib" | "mod" | "__init__" | "__main__" | "app" | "server" | "cli"
    )
}
