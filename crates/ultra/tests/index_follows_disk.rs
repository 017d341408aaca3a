//! The code index against a model of the disk: random interleavings of file writes,
//! appends, deletes, renames of files and directories, whole trees made and removed,
//! ignored and skipped directories and a changing `.gitignore`, each made by another
//! process's kind of write (no Ultra command), and each followed *at once* by queries: an
//! answer must reflect every write that finished before the query was sent, with no
//! waiting and no polling.

#![allow(clippy::unwrap_used)]

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{Conn, Rng, Ws};
use serde_json::json;

/// What is on disk: each file's function names, and whether `toggled/` is ignored.
#[derive(Default)]
struct Model {
    files: BTreeMap<String, Vec<String>>,
    toggled_ignored: bool,
    /// Directories whose `.gitignore` says `gen/` (it moves with its directory).
    gen_rules: BTreeSet<String>,
    /// Every name ever written, for checking that the gone ones are gone.
    names: BTreeSet<String>,
}

/// Directories under which nothing is indexed: `.gitignore`d at the top or below,
/// skipped by name at any depth, or hidden.
fn excluded(model: &Model, path: &str) -> bool {
    let dirs: Vec<&str> = path.split('/').collect();
    let dirs = &dirs[..dirs.len() - 1];
    let gen_below = |d: &String| {
        path.strip_prefix(&format!("{d}/"))
            .is_some_and(|rest| rest.split('/').rev().skip(1).any(|c| c == "gen"))
    };
    dirs.first() == Some(&"ignored")
        || (model.toggled_ignored && dirs.first() == Some(&"toggled"))
        || model.gen_rules.iter().any(gen_below)
        || dirs
            .iter()
            .any(|d| *d == "node_modules" || *d == "__pycache__" || d.starts_with('.'))
}

impl Model {
    /// Where `name` is defined, as the index should say.
    fn expected(&self, name: &str) -> BTreeSet<String> {
        self.files
            .iter()
            .filter(|(p, names)| names.iter().any(|n| n == name) && !excluded(self, p))
            .map(|(p, _)| p.clone())
            .collect()
    }

    fn dirs(&self) -> Vec<String> {
        let mut out = BTreeSet::new();
        for p in self.files.keys() {
            let mut parts: Vec<&str> = p.split('/').collect();
            parts.pop();
            while !parts.is_empty() {
                out.insert(parts.join("/"));
                parts.pop();
            }
        }
        out.into_iter().collect()
    }
}

/// Directories new files go into: plain, nested, ignored at the top and below, skipped by
/// name, hidden, and one whose ignoring is switched on and off.
const PLACES: [&str; 11] = [
    "",
    "a",
    "a/b",
    "a/b/c",
    "p/q",
    "ignored",
    "sub",
    "sub/gen",
    "x/node_modules/m",
    ".hidden",
    "toggled",
];

/// `path` below (or at) directory `dir`: the rest of it.
fn under<'a>(path: &'a str, dir: &str) -> Option<&'a str> {
    let rest = path.strip_prefix(dir)?;
    (rest.is_empty() || rest.starts_with('/')).then_some(rest)
}

fn content(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("def {n}():\n    pass\n\n"))
        .collect()
}

fn write(ws: &Ws, rel: &str, names: &[String]) {
    ws.write(rel, &content(names));
}

fn gitignore(ws: &Ws, toggled: bool) {
    let mut text = String::from("ignored/\n");
    if toggled {
        text.push_str("toggled/\n");
    }
    std::fs::write(ws.path(".gitignore"), text).unwrap();
}

/// Where the index says `name` is defined (empty for SYMBOL_NOT_FOUND).
fn indexed(c: &mut Conn, name: &str) -> BTreeSet<String> {
    let r = c.call("code.findDefinition", json!({"symbol": name}));
    if let Some(e) = r.get("error") {
        assert_eq!(e["data"]["code"], "SYMBOL_NOT_FOUND", "{name}: {r}");
        return BTreeSet::new();
    }
    let result = &r["result"];
    assert_ne!(result["index"]["state"], "warming", "{result}");
    result["definitions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["path"].as_str().unwrap().to_string())
        .collect()
}

fn check(c: &mut Conn, model: &Model, names: &BTreeSet<String>, seed: u64, step: usize, op: &str) {
    for name in names {
        let want = model.expected(name);
        let got = indexed(c, name);
        assert_eq!(
            got, want,
            "seed {seed}, step {step} ({op}): where is {name}?"
        );
    }
}

fn run(seed: u64, steps: usize) {
    let ws = Ws::new();
    let mut model = Model::default();
    gitignore(&ws, false);
    std::fs::create_dir_all(ws.path("sub")).unwrap();
    std::fs::write(ws.path("sub/.gitignore"), "gen/\n").unwrap();
    model.gen_rules.insert("sub".into());
    let first = vec!["first_fn".to_string()];
    write(&ws, "a/start.py", &first);
    model.files.insert("a/start.py".into(), first.clone());
    model.names.extend(first);
    let _server = ws.serve();
    let mut c = ws.agent("model");
    common::wait_until("the first index", || {
        c.call("code.findDefinition", json!({"symbol": "first_fn"}))["result"]["index"]["state"]
            == "ready"
    });
    let mut rng = Rng(seed);
    let mut k = 0usize;
    for step in 0..steps {
        k += 1;
        let mut touched = BTreeSet::new();
        let files: Vec<String> = model.files.keys().cloned().collect();
        let op = match rng.below(10) {
            // A new file, in a directory that may not exist yet (made with its parents).
            0..=2 => {
                let dir = if rng.below(4) == 0 {
                    format!("{}/n{k}/o{k}", rng.pick(&PLACES))
                        .trim_start_matches('/')
                        .to_string()
                } else {
                    rng.pick(&PLACES).to_string()
                };
                let path = if dir.is_empty() {
                    format!("f{k}.py")
                } else {
                    format!("{dir}/f{k}.py")
                };
                let names: Vec<String> = (0..1 + rng.below(3))
                    .map(|i| format!("fn_{k}_{i}"))
                    .collect();
                write(&ws, &path, &names);
                touched.extend(names.iter().cloned());
                model.files.insert(path.clone(), names);
                format!("new {path}")
            }
            // Another function appended.
            3 if !files.is_empty() => {
                let path = rng.pick(&files).clone();
                let name = format!("fn_{k}_a");
                let names = model.files.get_mut(&path).unwrap();
                names.push(name.clone());
                let mut f = std::fs::OpenOptions::new()
                    .append(true)
                    .open(ws.path(&path))
                    .unwrap();
                std::io::Write::write_all(&mut f, content(std::slice::from_ref(&name)).as_bytes())
                    .unwrap();
                touched.insert(name);
                format!("append to {path}")
            }
            // Rewritten whole: old names go, a new one comes.
            4 if !files.is_empty() => {
                let path = rng.pick(&files).clone();
                let names = vec![format!("fn_{k}_w")];
                touched.extend(model.files[&path].iter().cloned());
                touched.extend(names.iter().cloned());
                write(&ws, &path, &names);
                model.files.insert(path.clone(), names);
                format!("rewrite {path}")
            }
            5 if !files.is_empty() => {
                let path = rng.pick(&files).clone();
                std::fs::remove_file(ws.path(&path)).unwrap();
                touched.extend(model.files.remove(&path).unwrap());
                format!("delete {path}")
            }
            // A file moved to another directory.
            6 if !files.is_empty() => {
                let from = rng.pick(&files).clone();
                let dir = rng.pick(&PLACES);
                let to = if dir.is_empty() {
                    format!("m{k}.py")
                } else {
                    format!("{dir}/m{k}.py")
                };
                std::fs::create_dir_all(ws.path(&to).parent().unwrap()).unwrap();
                std::fs::rename(ws.path(&from), ws.path(&to)).unwrap();
                let names = model.files.remove(&from).unwrap();
                touched.extend(names.iter().cloned());
                model.files.insert(to.clone(), names);
                format!("move {from} to {to}")
            }
            // A directory moved, with everything under it.
            7 if !model.dirs().is_empty() => {
                let dirs = model.dirs();
                let from = rng.pick(&dirs).clone();
                let parent = rng.pick(&PLACES);
                let to = if parent.is_empty() {
                    format!("d{k}")
                } else {
                    format!("{parent}/d{k}")
                };
                if to.starts_with(&format!("{from}/")) {
                    continue;
                }
                std::fs::create_dir_all(ws.path(&to).parent().unwrap()).unwrap();
                std::fs::rename(ws.path(&from), ws.path(&to)).unwrap();
                let moved: Vec<String> = model
                    .files
                    .keys()
                    .filter(|p| p.starts_with(&format!("{from}/")))
                    .cloned()
                    .collect();
                for p in moved {
                    let names = model.files.remove(&p).unwrap();
                    touched.extend(names.iter().cloned());
                    model
                        .files
                        .insert(format!("{to}{}", &p[from.len()..]), names);
                }
                model.gen_rules = std::mem::take(&mut model.gen_rules)
                    .into_iter()
                    .map(|d| under(&d, &from).map_or(d.clone(), |rest| format!("{to}{rest}")))
                    .collect();
                format!("move dir {from} to {to}")
            }
            // A directory removed, with everything under it.
            8 if !model.dirs().is_empty() => {
                let dirs = model.dirs();
                let dir = rng.pick(&dirs).clone();
                std::fs::remove_dir_all(ws.path(&dir)).unwrap();
                let gone: Vec<String> = model
                    .files
                    .keys()
                    .filter(|p| p.starts_with(&format!("{dir}/")))
                    .cloned()
                    .collect();
                for p in gone {
                    touched.extend(model.files.remove(&p).unwrap());
                }
                model.gen_rules.retain(|d| under(d, &dir).is_none());
                format!("remove dir {dir}")
            }
            // `toggled/` ignored or not: what is under it leaves the index or comes in.
            9 => {
                model.toggled_ignored = !model.toggled_ignored;
                gitignore(&ws, model.toggled_ignored);
                for (p, names) in &model.files {
                    if p.starts_with("toggled/") {
                        touched.extend(names.iter().cloned());
                    }
                }
                format!("toggled/ ignored: {}", model.toggled_ignored)
            }
            _ => continue,
        };
        // Shown when the test fails: the steps up to the failure.
        eprintln!("seed {seed}, step {step}: {op}");
        model.names.extend(touched.iter().cloned());
        check(&mut c, &model, &touched, seed, step, &op);
        if step % 25 == 24 {
            let all = model.names.clone();
            check(&mut c, &model, &all, seed, step, "everything");
        }
    }
    let all = model.names.clone();
    check(&mut c, &model, &all, seed, steps, "the end");
}

#[test]
fn every_answer_reflects_the_writes_before_it() {
    let seeds: Vec<u64> = match std::env::var("ULTRA_MODEL_SEED") {
        Ok(s) => vec![s.parse().unwrap()],
        Err(_) => vec![0x9e37_79b9_7f4a_7c15, 0x2545_f491_4f6c_dd1d, 7, 1234567],
    };
    for seed in seeds {
        run(seed, 200);
    }
}
