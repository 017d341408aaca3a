//! `find`: walk directories in the workspace and print the entries that pass every test
//! (-name -iname -path -type -size -newer -empty, depth limits, `!`/`-not`, `-o` between
//! tests of one kind). Nothing runs: `-exec` and `-delete` are refused with what to do
//! instead.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use ultra_workspace::RelPath;
use ultra_workspace::root::{Kind, Meta};

use super::{Issue, OneOrMany, Promoted, PromotedSpec, Risk, TypedExample, conflict};
use crate::command::{Cx, Example, Io};

/// `find`.
pub struct Find;

/// An entry type for `-type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum EntryType {
    /// A regular file.
    #[serde(rename = "f")]
    File,
    /// A directory.
    #[serde(rename = "d")]
    Dir,
    /// A symbolic link.
    #[serde(rename = "l")]
    Symlink,
}

/// `"f"`, `"d"` or `"l"`, as one plain enum for tool lists.
impl JsonSchema for EntryType {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "EntryType".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "enum": ["f", "d", "l"] })
    }
}

/// Arguments of `find`. Seed 004's shape `{path?, name?, type?}` is accepted too: `path`
/// is where to start, `name` a glob (or several), `type` `f`, `d` or `l` (or several).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FindArgs {
    /// Where to start (default `.`).
    #[serde(default)]
    pub paths: Vec<String>,
    /// Where to start, one path or several (as `paths`: give one of the two).
    #[serde(default)]
    pub path: OneOrMany<String>,
    /// The base name matches this glob, or one of these (`-name '*.rs' -o -name '*.toml'`).
    #[serde(default)]
    pub name: OneOrMany<String>,
    /// As `name`, ignoring case.
    #[serde(default)]
    pub iname: OneOrMany<String>,
    /// The whole path as printed matches this glob, or one of these (`-path`, `-wholename`;
    /// `*` crosses `/`).
    #[serde(default)]
    pub wholename: OneOrMany<String>,
    /// The base name matches none of these globs (`! -name GLOB`).
    #[serde(default)]
    pub not_name: OneOrMany<String>,
    /// The path matches none of these globs (`-not -path './node_modules/*'`).
    #[serde(default)]
    pub not_path: OneOrMany<String>,
    /// `f` file, `d` directory, `l` symlink (any of them when several).
    #[serde(default, rename = "type")]
    pub kind: OneOrMany<EntryType>,
    /// Descend at most this many levels below the starting points.
    pub maxdepth: Option<u32>,
    /// Test nothing above this depth.
    pub mindepth: Option<u32>,
    /// `-size`: `[+-]N[ckMG]`, in 512-byte blocks without a unit, rounded up.
    pub size: Option<String>,
    /// Modified more recently than this file.
    pub newer: Option<String>,
    /// Empty files and directories only.
    #[serde(default)]
    pub empty: bool,
    /// End each path with NUL instead of a newline.
    #[serde(default)]
    pub print0: bool,
    /// `-xdev`: do not descend into directories on other file systems. Shell flag only
    /// (the workspace is one file system as a rule; the tool list stays short).
    #[serde(default)]
    #[schemars(skip)]
    pub xdev: bool,
}

impl FindArgs {
    /// Where to start, from `path` or `paths` (empty: `.`).
    pub fn starts(&self) -> &[String] {
        if self.path.is_empty() {
            &self.paths
        } else {
            &self.path
        }
    }
}

impl Promoted for Find {
    type Args = FindArgs;
    const SPEC: PromotedSpec = PromotedSpec {
        name: "find",
        summary: "List files and directories under paths that pass tests: -name/-iname/-path globs, -type f|d|l, -maxdepth/-mindepth, -size, -newer, -empty, `!`; prints in name order. No -exec or -delete (pipe to xargs).",
        usage: "find [PATH...] [-name GLOB] [-iname GLOB] [-path GLOB] [-type f|d|l] [-maxdepth N] [-mindepth N] [-size [+-]N[ckMG]] [-newer FILE] [-empty] [! TEST] [-print0] [-xdev]",
        cli_examples: &[
            "find src -name '*.rs'",
            "find . -type f -name '*.ts' -not -path './node_modules/*'",
            "find . -maxdepth 1 -type d",
            "find . -type f -size +100k",
        ],
        example: Example {
            args: &[".", "-name", "*.rs"],
            stdin: "",
            stdout: "./src/main.rs\n",
            status: 0,
        },
        typed_example: TypedExample {
            args: r#"{"path": "src", "name": "*.rs", "type": "f"}"#,
            stdout: "src/main.rs\n",
            status: 0,
        },
        max_risk: Risk::READ,
    };

    fn parse_cli_args(&self, args: &[String]) -> Result<Value, Vec<Issue>> {
        parse_cli(args)
    }

    fn validate(&self, a: &FindArgs) -> Result<(), Vec<Issue>> {
        let mut issues = Vec::new();
        if !a.path.is_empty() && !a.paths.is_empty() {
            issues.push(conflict("path", "paths"));
        }
        if let Some(s) = &a.size
            && parse_size(s).is_none()
        {
            issues.push(Issue::new(
                "size",
                "invalid_value",
                format!("invalid -size '{s}': use [+-]N with an optional unit c, k, M or G"),
            ));
        }
        for (field, list) in [
            ("name", &a.name),
            ("iname", &a.iname),
            ("wholename", &a.wholename),
            ("notName", &a.not_name),
            ("notPath", &a.not_path),
        ] {
            for g in list.iter() {
                if let Err(e) = globset::Glob::new(g) {
                    issues.push(Issue::new(field, "invalid_glob", format!("{g}: {e}")));
                }
            }
        }
        if issues.is_empty() {
            Ok(())
        } else {
            Err(issues)
        }
    }

    fn risk(&self, _args: &FindArgs) -> Risk {
        Risk::READ
    }

    fn execute(&self, a: FindArgs, io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        let tests = match Tests::new(&a, io, cx) {
            Ok(t) => t,
            Err(status) => return status,
        };
        let mut w = Walker {
            cx,
            tests: &tests,
            out: std::io::BufWriter::new(&mut *io.stdout),
            status: 0,
            end: if a.print0 { b'\0' } else { b'\n' },
            seen: 0,
            start_dev: 0,
        };
        let starts = if a.starts().is_empty() {
            vec![".".to_string()]
        } else {
            a.starts().to_vec()
        };
        for start in &starts {
            match cx.fs.lstat(cx.cwd, start) {
                Ok(meta) => {
                    let rel = match cx.fs.resolve_read(cx.cwd, start) {
                        Ok(r) => r,
                        Err(e) => {
                            let _ = writeln!(io.stderr, "find: '{start}': {e}");
                            w.status = 1;
                            continue;
                        }
                    };
                    if !w.visit(&rel, start, &meta, 0, io.stderr) {
                        break;
                    }
                }
                Err(e) => {
                    let _ = writeln!(io.stderr, "find: '{start}': {e}");
                    w.status = 1;
                }
            }
        }
        let status = w.status;
        if std::io::Write::flush(&mut w.out).is_err() {
            return 1;
        }
        status
    }
}

/// Most entries one call visits.
const MAX_ENTRIES: usize = 1_000_000;

fn glob_set(list: &[String], icase: bool) -> Option<globset::GlobSet> {
    if list.is_empty() {
        return None;
    }
    let mut b = globset::GlobSetBuilder::new();
    for g in list {
        if let Ok(g) = globset::GlobBuilder::new(g)
            .case_insensitive(icase)
            .backslash_escape(true)
            .build()
        {
            b.add(g);
        }
    }
    b.build().ok()
}

/// `[+-]N[unit]` → (comparison, N, unit bytes).
fn parse_size(s: &str) -> Option<(std::cmp::Ordering, u64, u64)> {
    use std::cmp::Ordering;
    let (cmp, rest) = match s.as_bytes().first()? {
        b'+' => (Ordering::Greater, &s[1..]),
        b'-' => (Ordering::Less, &s[1..]),
        _ => (Ordering::Equal, s),
    };
    let (digits, unit) = match rest.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((i, _)) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let unit = match unit {
        "" | "b" => 512,
        "c" => 1,
        "w" => 2,
        "k" => 1024,
        "M" => 1024 * 1024,
        "G" => 1024 * 1024 * 1024,
        _ => return None,
    };
    Some((cmp, digits.parse().ok()?, unit))
}

struct Tests {
    name: Option<globset::GlobSet>,
    iname: Option<globset::GlobSet>,
    path: Option<globset::GlobSet>,
    not_name: Option<globset::GlobSet>,
    not_path: Option<globset::GlobSet>,
    kinds: Vec<EntryType>,
    maxdepth: u32,
    mindepth: u32,
    size: Option<(std::cmp::Ordering, u64, u64)>,
    newer: Option<u128>,
    empty: bool,
    xdev: bool,
}

impl Tests {
    fn new(a: &FindArgs, io: &mut Io<'_>, cx: &Cx<'_>) -> Result<Tests, i32> {
        let newer = match &a.newer {
            None => None,
            Some(f) => match cx.fs.stat(cx.cwd, f) {
                Ok(m) => Some(m.mtime_ns),
                Err(e) => {
                    let _ = writeln!(io.stderr, "find: '{f}': {e}");
                    return Err(1);
                }
            },
        };
        Ok(Tests {
            name: glob_set(&a.name, false),
            iname: glob_set(&a.iname, true),
            path: glob_set(&a.wholename, false),
            not_name: glob_set(&a.not_name, false),
            not_path: glob_set(&a.not_path, false),
            kinds: a.kind.to_vec(),
            maxdepth: a.maxdepth.unwrap_or(u32::MAX),
            mindepth: a.mindepth.unwrap_or(0),
            size: a.size.as_deref().and_then(parse_size),
            newer,
            empty: a.empty,
            xdev: a.xdev,
        })
    }

    /// Whether an entry passes; `children` counts a directory's entries for `-empty`.
    fn pass(&self, shown: &str, meta: &Meta, children: impl FnOnce() -> usize) -> bool {
        let base = match shown.trim_end_matches('/').rsplit('/').next() {
            Some("") | None => shown,
            Some(b) => b,
        };
        // name and iname together mean "either", as `-name A -o -iname B`.
        let by_name = match (&self.name, &self.iname) {
            (None, None) => true,
            (n, i) => {
                n.as_ref().is_some_and(|g| g.is_match(base))
                    || i.as_ref().is_some_and(|g| g.is_match(base))
            }
        };
        if !by_name
            || self.path.as_ref().is_some_and(|g| !g.is_match(shown))
            || self.not_name.as_ref().is_some_and(|g| g.is_match(base))
            || self.not_path.as_ref().is_some_and(|g| g.is_match(shown))
        {
            return false;
        }
        if !self.kinds.is_empty() {
            let kind = match meta.kind {
                Kind::File => Some(EntryType::File),
                Kind::Dir => Some(EntryType::Dir),
                Kind::Symlink => Some(EntryType::Symlink),
                Kind::Other => None,
            };
            if !kind.is_some_and(|k| self.kinds.contains(&k)) {
                return false;
            }
        }
        if let Some((cmp, n, unit)) = self.size {
            let units = meta.len.div_ceil(unit);
            if units.cmp(&n) != cmp {
                return false;
            }
        }
        if let Some(t) = self.newer
            && meta.mtime_ns <= t
        {
            return false;
        }
        if self.empty {
            let empty = match meta.kind {
                Kind::File => meta.len == 0,
                Kind::Dir => children() == 0,
                _ => false,
            };
            if !empty {
                return false;
            }
        }
        true
    }
}

struct Walker<'a, 'c, W: std::io::Write> {
    cx: &'a Cx<'c>,
    tests: &'a Tests,
    out: W,
    status: i32,
    end: u8,
    seen: usize,
    /// The file system of the starting point being walked (for -xdev).
    start_dev: u64,
}

impl<W: std::io::Write> Walker<'_, '_, W> {
    /// Visit an entry and, for a directory within the depth limit, its children in name
    /// order. False when output is gone or the entry cap is reached.
    fn visit(
        &mut self,
        rel: &RelPath,
        shown: &str,
        meta: &Meta,
        depth: u32,
        err: &mut dyn std::io::Write,
    ) -> bool {
        self.seen += 1;
        if self.seen > MAX_ENTRIES {
            let _ = writeln!(
                err,
                "find: stopped after {MAX_ENTRIES} entries; narrow the search"
            );
            self.status = 1;
            return false;
        }
        let is_dir = meta.kind == Kind::Dir;
        let mut children: Option<Vec<ultra_workspace::root::Entry>> = None;
        if depth == 0 {
            self.start_dev = meta.dev;
        }
        let descend = is_dir
            && depth < self.tests.maxdepth
            && (!self.tests.xdev || meta.dev == self.start_dev);
        if is_dir && (descend || self.tests.empty) {
            match self.cx.fs.root().list(rel, false, MAX_ENTRIES) {
                Ok((list, _)) => children = Some(list),
                Err(e) => {
                    let _ = writeln!(err, "find: '{shown}': {e}");
                    self.status = 1;
                }
            }
        }
        if depth >= self.tests.mindepth
            && self
                .tests
                .pass(shown, meta, || children.as_ref().map_or(0, Vec::len))
        {
            let ok = self
                .out
                .write_all(shown.as_bytes())
                .and_then(|()| self.out.write_all(&[self.end]));
            if ok.is_err() {
                return false;
            }
        }
        if !descend {
            return true;
        }
        for child in children.unwrap_or_default() {
            if !self.cx.fs.readable(&child.path) {
                continue;
            }
            let shown_child = if shown.ends_with('/') {
                format!("{shown}{}", child.name)
            } else {
                format!("{shown}/{}", child.name)
            };
            if !self.visit(&child.path, &shown_child, &child.meta, depth + 1, err) {
                return false;
            }
        }
        true
    }
}

/// The argument of test `flag` at `args[*i]`.
fn value(args: &[String], i: &mut usize, issues: &mut Vec<Issue>, flag: &str) -> Option<String> {
    match args.get(*i) {
        Some(v) => {
            *i += 1;
            Some(v.clone())
        }
        None => {
            issues.push(Issue::new(
                flag,
                "missing_value",
                format!("missing argument to `{flag}'"),
            ));
            None
        }
    }
}

/// The shell's `find` words to typed arguments.
fn parse_cli(args: &[String]) -> Result<Value, Vec<Issue>> {
    let mut i = 0;
    let mut paths = Vec::new();
    while i < args.len() && !args[i].starts_with('-') && args[i] != "!" && args[i] != "(" {
        paths.push(args[i].clone());
        i += 1;
    }
    let mut v = json!({ "paths": paths });
    let mut negate = false;
    // The test kind of the previous test, so `-o` may join tests of one kind only.
    let mut last: Option<&str> = None;
    let mut or_pending = false;
    let mut issues = Vec::new();
    let push = |v: &mut Value, key: &str, val: Value| {
        let slot = &mut v[key];
        if slot.is_null() {
            *slot = json!([]);
        }
        if let Some(a) = slot.as_array_mut() {
            a.push(val);
        }
    };
    while i < args.len() {
        let a = args[i].as_str();
        i += 1;
        match a {
            "!" | "-not" => {
                negate = !negate;
                continue;
            }
            "(" | ")" | "-a" | "-and" | "-print" => continue,
            "-o" | "-or" => {
                or_pending = true;
                continue;
            }
            _ => {}
        }
        let kind = match a {
            "-name" | "-iname" => "name",
            other => other,
        };
        if or_pending && last != Some(kind) {
            issues.push(Issue::new(
                a,
                "unsupported_expression",
                "-o may only join tests of one kind (-name A -o -name B, -type f -o -type d)",
            ));
        }
        or_pending = false;
        last = Some(kind);
        let neg = std::mem::take(&mut negate);
        let neg_unsupported = |issues: &mut Vec<Issue>| {
            issues.push(Issue::new(
                a,
                "unsupported_expression",
                format!("`!` works with -name and -path, not {a}"),
            ));
        };
        match a {
            "-name" | "-iname" | "-path" | "-wholename" => {
                let Some(g) = value(args, &mut i, &mut issues, a) else {
                    continue;
                };
                let key = match (a, neg) {
                    ("-name", false) => "name",
                    ("-iname", false) => "iname",
                    ("-path" | "-wholename", false) => "wholename",
                    ("-name", true) => "notName",
                    ("-path" | "-wholename", true) => "notPath",
                    _ => {
                        neg_unsupported(&mut issues);
                        continue;
                    }
                };
                push(&mut v, key, json!(g));
            }
            "-type" => {
                let Some(t) = value(args, &mut i, &mut issues, a) else {
                    continue;
                };
                if neg {
                    neg_unsupported(&mut issues);
                }
                for part in t.split(',') {
                    if !matches!(part, "f" | "d" | "l") {
                        issues.push(Issue::new(
                            "-type",
                            "invalid_value",
                            format!("unknown argument to -type: {part} (use f, d or l)"),
                        ));
                    }
                    push(&mut v, "type", json!(part));
                }
            }
            "-maxdepth" | "-mindepth" => {
                let Some(n) = value(args, &mut i, &mut issues, a) else {
                    continue;
                };
                match n.parse::<u32>() {
                    Ok(n) => v[&a[1..]] = json!(n),
                    Err(_) => issues.push(Issue::new(
                        a,
                        "invalid_value",
                        format!("{a} needs a non-negative whole number, not '{n}'"),
                    )),
                }
            }
            "-size" | "-newer" => {
                let Some(s) = value(args, &mut i, &mut issues, a) else {
                    continue;
                };
                if neg {
                    neg_unsupported(&mut issues);
                }
                v[&a[1..]] = json!(s);
            }
            "-empty" => {
                if neg {
                    neg_unsupported(&mut issues);
                }
                v["empty"] = json!(true);
            }
            "-print0" => v["print0"] = json!(true),
            "-xdev" | "-mount" => v["xdev"] = json!(true),
            "-exec" | "-execdir" | "-ok" | "-okdir" | "-delete" | "-fprint" | "-fls"
            | "-fprintf" => {
                issues.push(Issue::new(
                    a,
                    "unsupported_flag",
                    format!(
                        "{a} is not available: Ultra's find runs nothing and changes nothing; pipe the list instead (find ... -print0 | xargs -0 CMD)"
                    ),
                ));
                // Skip the -exec command up to its terminator.
                while i < args.len() && args[i] != ";" && args[i] != "+" {
                    i += 1;
                }
                i += 1;
            }
            other => issues.push(Issue::new(
                other,
                "unknown_flag",
                format!("unknown predicate `{other}'"),
            )),
        }
    }
    if issues.is_empty() {
        Ok(v)
    } else {
        Err(issues)
    }
}
