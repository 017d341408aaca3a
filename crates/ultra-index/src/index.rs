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
    defs: foldhash::HashMap<String, Places>,
    /// File name → the paths with that name, sorted: `#include "x.h"` and Java imports
    /// look a name up here instead of scanning every path.
    by_name: foldhash::HashMap<String, Vec<String>>,
    /// Directories holding a `go.mod`, with their module path.
    go_modules: BTreeMap<String, String>,
    generation: u64,
    /// Bumps when what imports can resolve to may have changed: a file added or removed,
    /// a file's imports changed, a `go.mod` changed. Editing a function body leaves it,
    /// and the dependency graph with it, as it was.
    links: u64,
    graph: Mutex<Option<(u64, Arc<Graph>)>>,
    /// Top-level Python package or module name → the directories it is importable from,
    /// derived from the paths when `links` moved.
    python_tops: Mutex<Option<(u64, Arc<PythonTops>)>>,
}

/// Where Python imports can start, derived from the paths (see [`Index::python_tops`]).
#[derive(Default)]
struct PythonTops {
    /// Top-level package or module name → the directories it is importable from.
    roots: foldhash::HashMap<String, Vec<String>>,
    /// Names of the directories that hold an `__init__.py`.
    packages: foldhash::HashSet<String>,
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
        // One lookup decides; a new file (every file of a load) needs no removal. Paths
        // share long prefixes, so each lookup costs many string compares.
        match self.files.get(&record.path) {
            Some(old) if old.hash == record.hash => return false,
            Some(old) => {
                let links = self.links;
                let same_imports = old.imports == record.imports;
                self.remove(&record.path.clone());
                self.links = if same_imports { links } else { links + 1 };
            }
            None => self.links += 1,
        }
        let name = record.path.rsplit('/').next().unwrap_or(&record.path);
        match self.by_name.get_mut(name) {
            Some(paths) => {
                if let Err(at) = paths.binary_search(&record.path) {
                    paths.insert(at, record.path.clone());
                }
            }
            None => {
                self.by_name
                    .insert(name.to_string(), vec![record.path.clone()]);
            }
        }
        let path: Arc<str> = Arc::from(record.path.as_str());
        for (i, d) in record.definitions.iter().enumerate() {
            match self.defs.get_mut(d.name.as_str()) {
                Some(v) => v.at.push((path.clone(), i)),
                None => {
                    let places = Places {
                        mask: char_mask(&d.name),
                        at: vec![(path.clone(), i)],
                    };
                    self.defs.insert(d.name.clone(), places);
                }
            }
        }
        self.files.insert(record.path.clone(), Arc::new(record));
        self.generation += 1;
        true
    }

    /// Leave `path`'s functions and classes to the store that now holds them, when the
    /// record is still the one with content `hash` (see [`FileIndex::details_stored`]);
    /// nothing a lookup by name uses changes.
    pub fn drop_details(&mut self, path: &str, hash: &str) {
        if let Some(f) = self.files.get_mut(path)
            && f.hash == hash
        {
            Arc::make_mut(f).drop_details();
        }
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
        self.links += 1;
    }

    /// Forget a file.
    pub fn remove(&mut self, path: &str) {
        if path.ends_with("go.mod") {
            self.go_modules.remove(resolve::dir_of(path));
        }
        let Some(old) = self.files.remove(path) else {
            return;
        };
        let name = path.rsplit('/').next().unwrap_or(path);
        if let Some(paths) = self.by_name.get_mut(name) {
            paths.retain(|p| p != path);
            if paths.is_empty() {
                self.by_name.remove(name);
            }
        }
        self.links += 1;
        for d in &old.definitions {
            if let Some(v) = self.defs.get_mut(&d.name) {
                v.at.retain(|(p, _)| &**p != path);
                if v.at.is_empty() {
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
            .flat_map(|p| &p.at)
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
    ///
    /// Every name is looked at, so each is first filtered by its [`char_mask`]: an edit
    /// changes at most two bits of it, and a substring's bits are a subset. Only the few
    /// names that pass are lowercased and compared (a miss on a large workspace stays in
    /// the low milliseconds).
    pub fn similar_names(&self, name: &str, n: usize) -> Vec<String> {
        let lower = name.to_lowercase();
        let len = lower.chars().count();
        let mask = char_mask(&lower);
        let max_edits = 2.max(len / 4);
        let mut scored: Vec<(usize, &String)> = Vec::new();
        for (k, places) in &self.defs {
            let klen = k.len(); // bytes: a cheap bound, checked in characters below
            let m = places.mask;
            let may_contain = m & mask == mask && klen >= len;
            let may_be_within = m & mask == m && klen > 2 && klen <= lower.len();
            let may_be_near = (m ^ mask).count_ones() as usize <= 2 * max_edits
                && klen.abs_diff(lower.len()) <= 4 * max_edits;
            if !(may_contain || may_be_within || may_be_near) {
                continue;
            }
            let kl = k.to_lowercase();
            let score = if kl == lower {
                0
            } else if kl.contains(&lower) || lower.contains(&kl) && kl.len() > 2 {
                1 + kl.len().abs_diff(lower.len()).min(5)
            } else if may_be_near && kl.chars().count().abs_diff(len) <= max_edits {
                let d = strsim::levenshtein(&kl, &lower);
                if d > max_edits {
                    continue;
                }
                3 + d
            } else {
                continue;
            };
            scored.push((score, k));
        }
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
            for (path, i) in &places.at {
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
            .filter(|f| f.names.find(name).is_some())
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

    /// The dependency graph, rebuilt when what imports resolve to may have changed since
    /// the last call (not when only code inside files did).
    pub fn graph(&self) -> Arc<Graph> {
        let mut cached = self.graph.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((g, graph)) = cached.as_ref()
            && *g == self.links
        {
            return graph.clone();
        }
        // Resolving is most of the work and reads only: files are shared out among the
        // cores.
        let files: Vec<&Arc<FileIndex>> = self.files.values().collect();
        let threads = crate::build::cores();
        let chunk = files.len().div_ceil(threads).max(1);
        let resolved: Vec<Vec<BTreeSet<String>>> = std::thread::scope(|s| {
            let workers: Vec<_> = files
                .chunks(chunk)
                .map(|part| {
                    s.spawn(move || {
                        part.iter()
                            .map(|f| {
                                let mut deps = BTreeSet::new();
                                for imp in &f.imports {
                                    for target in self.resolve(f, &imp.source, &imp.names) {
                                        if target != f.path {
                                            deps.insert(target);
                                        }
                                    }
                                }
                                deps
                            })
                            .collect()
                    })
                })
                .collect();
            workers
                .into_iter()
                .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        let mut graph = Graph::default();
        for (f, deps) in files.iter().zip(resolved.into_iter().flatten()) {
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
        *cached = Some((self.links, graph.clone()));
        graph
    }

    /// Where Python imports start, as Python finds them: the directory above each
    /// top-level package (the top of an `__init__.py` chain), and a project's directory
    /// (holding `pyproject.toml` or `setup.py`) and its `src/` for plain modules there.
    fn python_tops(&self) -> Arc<PythonTops> {
        let mut cached = self.python_tops.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((g, tops)) = cached.as_ref()
            && *g == self.links
        {
            return tops.clone();
        }
        let mut tops = PythonTops::default();
        for init in self.by_name.get("__init__.py").into_iter().flatten() {
            let package = resolve::dir_of(init);
            tops.packages
                .insert(package.rsplit('/').next().unwrap_or(package).to_string());
        }
        let mut add = |top: &str, root: &str| {
            let roots = tops.roots.entry(top.to_string()).or_default();
            if !roots.iter().any(|r| r == root) {
                roots.push(root.to_string());
            }
        };
        for init in self.by_name.get("__init__.py").into_iter().flatten() {
            let package = resolve::dir_of(init);
            let root = resolve::dir_of(package);
            if !package.is_empty()
                && !self
                    .files
                    .contains_key(&resolve::join(root, "__init__.py").unwrap_or_default())
            {
                add(package.rsplit('/').next().unwrap_or(package), root);
            }
        }
        for marker in ["pyproject.toml", "setup.py"] {
            for project in self.by_name.get(marker).into_iter().flatten() {
                let dir = resolve::dir_of(project);
                for root in [
                    dir.to_string(),
                    resolve::join(dir, "src").unwrap_or_default(),
                ] {
                    for module in self.in_dir(&root) {
                        let name = module.rsplit('/').next().unwrap_or(&module);
                        if let Some(stem) = name.strip_suffix(".py")
                            && stem != "setup"
                        {
                            add(stem, &root);
                        }
                    }
                }
            }
        }
        for roots in tops.roots.values_mut() {
            roots.sort();
        }
        let tops = Arc::new(tops);
        *cached = Some((self.links, tops.clone()));
        tops
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
        if suffix.ends_with('/') {
            return self
                .files
                .keys()
                .filter(|p| p.starts_with(suffix) || p.contains(&format!("/{suffix}")))
                .cloned()
                .collect();
        }
        let name = suffix.rsplit('/').next().unwrap_or(suffix);
        self.by_name
            .get(name)
            .into_iter()
            .flatten()
            .filter(|p| p.as_str() == suffix || p.ends_with(&format!("/{suffix}")))
            .cloned()
            .collect()
    }

    fn python_roots(&self, top: &str) -> Vec<String> {
        self.python_tops()
            .roots
            .get(top)
            .cloned()
            .unwrap_or_default()
    }

    fn may_name(&self, name: &str) -> bool {
        self.by_name.contains_key(name) || self.python_tops().packages.contains(name)
    }

    fn go_modules(&self) -> Vec<(String, String)> {
        self.go_modules
            .iter()
            .map(|(d, m)| (d.clone(), m.clone()))
            .collect()
    }
}

/// Where one name is defined, with the name's [`char_mask`].
#[derive(Debug)]
struct Places {
    mask: u64,
    at: Vec<(Arc<str>, usize)>,
}

/// Which characters a name has, ignoring case: a bit per letter, digit and `_`, the rest
/// folded into the last bits. One substitution changes at most two bits, an insertion or
/// deletion at most one.
fn char_mask(s: &str) -> u64 {
    s.chars().fold(0, |m, c| {
        let bit = match c.to_ascii_lowercase() {
            c @ 'a'..='z' => c as u32 - 'a' as u32,
            c @ '0'..='9' => 26 + c as u32 - '0' as u32,
            '_' => 36,
            c => 37 + (c.to_lowercase().next().unwrap_or(c) as u32) % 27,
        };
        m | 1 << bit
    })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::DefKind;

    /// The suggestions as they were computed before the masks: every name lowercased and
    /// compared.
    fn similar_by_scanning(idx: &Index, name: &str, n: usize) -> Vec<String> {
        let lower = name.to_lowercase();
        let mut scored: Vec<(usize, &String)> = idx
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
                    if d > 2.max(lower.chars().count() / 4) {
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

    /// Random adds, body edits, import edits and removals: the cached graph always equals
    /// one built from scratch, and a body edit keeps the cached graph itself.
    #[test]
    fn the_cached_graph_follows_every_change() {
        use crate::model::Import;
        let mut rng = crate::test_rng::Rng(0x9e37_79b9_7f4a_7c15);
        let mut next = move |m: u64| rng.below(m as usize) as u64;
        let record = |n: u64, imports: Vec<u64>, body: u64| FileIndex {
            path: format!("src/m{n}.ts"),
            lang: Some(Lang::TypeScript),
            hash: format!("{imports:?}/{body}"),
            imports: imports
                .iter()
                .map(|i| Import {
                    source: format!("./m{i}"),
                    line: 1,
                    names: Vec::new(),
                    resolved: None,
                })
                .collect(),
            ..FileIndex::default()
        };
        let mut idx = Index::new();
        let mut model: BTreeMap<u64, (Vec<u64>, u64)> = BTreeMap::new();
        for step in 0..600 {
            let n = next(12);
            let before = idx.graph();
            let body_only = match (next(4), model.get(&n).cloned()) {
                (0, Some(_)) => {
                    idx.remove(&format!("src/m{n}.ts"));
                    model.remove(&n);
                    false
                }
                (1, Some((imports, body))) => {
                    idx.upsert(record(n, imports.clone(), body + 1));
                    model.insert(n, (imports, body + 1));
                    true
                }
                _ => {
                    let imports: Vec<u64> = (0..next(4)).map(|_| next(12)).collect();
                    idx.upsert(record(n, imports.clone(), step));
                    model.insert(n, (imports, step));
                    false
                }
            };
            let after = idx.graph();
            if body_only {
                assert!(Arc::ptr_eq(&before, &after), "step {step}: rebuilt");
            }
            let mut fresh = Index::new();
            for (n, (imports, body)) in &model {
                fresh.upsert(record(*n, imports.clone(), *body));
            }
            let want = fresh.graph();
            assert_eq!(after.deps, want.deps, "step {step}");
            assert_eq!(after.dependents, want.dependents, "step {step}");
        }
    }

    #[test]
    fn similar_names_match_a_full_scan() {
        // A small alphabet makes near names common.
        let mut rng = crate::test_rng::Rng(0x2545_f491_4f6c_dd1d);
        let mut next = move |m: u64| rng.below(m as usize) as u64;
        let alphabet: Vec<char> = "abcdeABCDE_1é".chars().collect();
        let word = |next: &mut dyn FnMut(u64) -> u64| -> String {
            let len = 1 + next(12) as usize;
            (0..len)
                .map(|_| alphabet[next(alphabet.len() as u64) as usize])
                .collect()
        };
        let mut idx = Index::new();
        for f in 0..40 {
            let definitions = (0..50)
                .map(|i| Definition {
                    name: word(&mut next),
                    kind: DefKind::Function,
                    line: i + 1,
                    column: 0,
                    line_end: i + 1,
                    container: None,
                })
                .collect();
            idx.upsert(FileIndex {
                path: format!("f{f}.rs"),
                hash: f.to_string(),
                definitions,
                ..FileIndex::default()
            });
        }
        for _ in 0..500 {
            let q = word(&mut next);
            assert_eq!(
                idx.similar_names(&q, 8),
                similar_by_scanning(&idx, &q, 8),
                "query {q:?}"
            );
        }
    }
}
