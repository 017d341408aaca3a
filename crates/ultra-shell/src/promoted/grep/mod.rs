//! `grep`: line search on ripgrep's crates with GNU grep's flags and output, plus the
//! semantic modes of seed 004: `grep package QUERY` (declared dependencies) and
//! `grep skill QUERY` (ranked search over Markdown docs) and `grep code QUERY` (ranked
//! symbol search over the code index, when the layer above provides one).

mod fast;
mod packages;
mod parallel;
mod print;
mod regions;
mod search;
mod skills;
mod walk;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Issue, OneOrMany, Promoted, PromotedSpec, Risk, TypedExample, cli, conflict};
use crate::command::{Cx, Example, Io};

/// `grep`.
pub struct Grep;

/// What `grep` searches for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Lines matching `pattern` in files (ordinary grep).
    #[default]
    Regex,
    /// Ranked search of the workspace's Markdown docs for `query`.
    Skill,
    /// The workspace's declared dependencies (Cargo, npm, Python, Go) matching `query`.
    Package,
    /// Ranked symbol search over the code index (functions, classes, types) for `query`.
    Code,
}

/// How `pattern` is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Syntax {
    /// POSIX basic regex (`grep`, `-G`): `\|`, `\(`, `\+` are operators.
    Basic,
    /// POSIX extended regex (`-E`): `|`, `(`, `+`, `{n}` are operators.
    #[default]
    Extended,
    /// Plain strings (`-F`).
    Fixed,
}

/// Arguments of `grep`. Seed 004's shape `{pattern, path?, include?}` is accepted too
/// (`path` and `include` each a string or an array).
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GrepArgs {
    /// Default `regex`.
    #[serde(default)]
    pub mode: Mode,
    /// Regex mode: the pattern; several patterns are separated by newlines (as `-e P -e Q`).
    pub pattern: Option<String>,
    /// Regex mode: a workspace file holding one pattern per line (`-f`).
    pub pattern_file: Option<String>,
    /// Skill, package and code modes: what to look for.
    pub query: Option<String>,
    /// Files or directories to search (default: the whole workspace).
    // On the shell path an empty list reads stdin, as grep does.
    #[serde(default)]
    pub paths: Vec<String>,
    /// A file or directory, or several (as `paths`: give one of the two).
    #[serde(default)]
    pub path: OneOrMany<String>,
    /// Only files whose name matches this glob or one of these (`*.rs`, `*.{ts,tsx}`).
    #[serde(default)]
    pub include: OneOrMany<String>,
    /// Skip files whose name matches this glob or one of these.
    #[serde(default)]
    pub exclude: OneOrMany<String>,
    /// Skip directories whose name matches this glob or one of these.
    #[serde(default)]
    pub exclude_dir: OneOrMany<String>,
    /// Pattern syntax (default `extended`; the shell's `grep` uses `basic` unless -E or -F).
    #[serde(default)]
    pub syntax: Syntax,
    /// -i: ignore case.
    #[serde(default)]
    pub ignore_case: bool,
    /// -n: prefix lines with their number.
    #[serde(default)]
    pub line_number: bool,
    /// -r: search directories recursively (default when a directory is given; `false`
    /// refuses one, as grep without -r does).
    pub recursive: Option<bool>,
    /// -l: print only the names of files with a match.
    #[serde(default)]
    pub files_with_matches: bool,
    /// -L: print only the names of files without a match.
    #[serde(default)]
    pub files_without_match: bool,
    /// -c: print only a count of matching lines per file.
    #[serde(default)]
    pub count: bool,
    /// -v: select non-matching lines.
    #[serde(default)]
    pub invert_match: bool,
    /// -w: match whole words only.
    #[serde(default)]
    pub word: bool,
    /// -x: match whole lines only.
    #[serde(default)]
    pub line: bool,
    /// -o: print only the matched parts, one per line.
    #[serde(default)]
    pub only_matching: bool,
    /// -H (true) / -h (false): print file names; default: when more than one file may match.
    pub with_filename: Option<bool>,
    /// -A: lines of context after each match.
    pub after_context: Option<u64>,
    /// -B: lines of context before each match.
    pub before_context: Option<u64>,
    /// -C: lines of context around each match (-A and -B override it).
    pub context: Option<u64>,
    /// -m: stop reading a file after this many matching lines.
    pub max_count: Option<u64>,
    /// -q: print nothing; the exit status says whether anything matched.
    #[serde(default)]
    pub quiet: bool,
    /// -s: suppress messages about missing or unreadable files.
    #[serde(default)]
    pub no_messages: bool,
    /// Skill, package and code modes: most results (default 10).
    pub limit: Option<usize>,
    /// -b: prefix each line (with -o, each match) with its byte offset. Shell flag only.
    #[serde(default)]
    #[schemars(skip)]
    pub byte_offset: bool,
    /// -a: search binary files as text. Shell flag only.
    #[serde(default)]
    #[schemars(skip)]
    pub text: bool,
    /// --color=always: mark matches, names and numbers with GNU grep's default colours.
    /// Shell flag only (`auto` is never: the output is not a terminal).
    #[serde(default)]
    #[schemars(skip)]
    pub color: bool,
}

impl GrepArgs {
    /// The files and directories to search, from `path` or `paths`.
    pub fn targets(&self) -> &[String] {
        if self.path.is_empty() {
            &self.paths
        } else {
            &self.path
        }
    }
}

const USAGE: &str = "grep [-iEFnrRlLcvwxohHqsab] [--color[=WHEN]] [-e PATTERN]... [-f FILE] [-A N] [-B N] [-C N] [-m N] [--include=GLOB] [--exclude=GLOB] [--exclude-dir=GLOB] PATTERN [FILE...] | grep code QUERY | grep package QUERY | grep skill QUERY";

impl Promoted for Grep {
    type Args = GrepArgs;
    const SPEC: PromotedSpec = PromotedSpec {
        name: "grep",
        summary: "Search files for lines matching a regex (GNU grep flags; -r recurses, --include filters), `grep code QUERY` for ranked symbols (functions, classes) from the code index, `grep package QUERY` for declared dependencies, `grep skill QUERY` for ranked Markdown docs.",
        usage: USAGE,
        cli_examples: &[
            "grep -rn 'fn main' src/",
            "grep -rl --include='*.rs' 'TODO' .",
            "grep -c -E 'error|warn' build.log",
            "grep code 'user service'",
            "grep package serde",
            "grep skill 'release process'",
        ],
        example: Example {
            args: &["-rn", "main", "src"],
            stdin: "",
            stdout: "src/main.rs:1:fn main() {}\n",
            status: 0,
        },
        typed_example: TypedExample {
            args: r#"{"pattern": "a|c", "path": "f.txt", "lineNumber": true}"#,
            stdout: "2:a\n3:c\n",
            status: 0,
        },
        max_risk: Risk::READ,
    };

    fn parse_cli_args(&self, args: &[String]) -> Result<Value, Vec<Issue>> {
        parse_cli(args)
    }

    fn validate(&self, a: &GrepArgs) -> Result<(), Vec<Issue>> {
        let mut issues = Vec::new();
        if !a.path.is_empty() && !a.paths.is_empty() {
            issues.push(conflict("path", "paths"));
        }
        match a.mode {
            Mode::Regex => {
                if a.pattern.is_none() && a.pattern_file.is_none() {
                    issues.push(Issue::new(
                        "pattern",
                        "missing_field",
                        "a pattern is required (or patternFile)",
                    ));
                }
                if a.query.is_some() {
                    issues.push(Issue::new(
                        "query",
                        "invalid_value",
                        "query is for mode skill or package; regex mode takes pattern",
                    ));
                }
                if let Some(p) = &a.pattern
                    && let Err(e) = search::matcher(a, &search::split_patterns(p))
                {
                    issues.push(Issue::new("pattern", "invalid_regex", e));
                }
            }
            Mode::Skill | Mode::Package | Mode::Code => {
                if a.query.as_deref().is_none_or(|q| q.trim().is_empty()) {
                    issues.push(Issue::new(
                        "query",
                        "missing_field",
                        "a query is required for this mode",
                    ));
                }
            }
        }
        if a.limit == Some(0) {
            issues.push(Issue::new(
                "limit",
                "invalid_value",
                "limit must be at least 1",
            ));
        }
        if issues.is_empty() {
            Ok(())
        } else {
            Err(issues)
        }
    }

    fn risk(&self, _args: &GrepArgs) -> Risk {
        Risk::READ
    }

    fn execute(&self, args: GrepArgs, io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        match args.mode {
            Mode::Regex => search::run(&args, io, cx),
            Mode::Package => packages::run(&args, io, cx),
            Mode::Skill => skills::run(&args, io, cx),
            Mode::Code => code(&args, io, cx),
        }
    }
}

/// The shell's `grep` words to typed arguments.
fn parse_cli(args: &[String]) -> Result<Value, Vec<Issue>> {
    if let Some(m @ ("skill" | "package" | "code")) = args.first().map(String::as_str) {
        let query = args[1..].join(" ");
        return Ok(json!({ "mode": m, "query": query }));
    }
    const LONGS: &[(&str, char)] = &[
        ("ignore-case", 'i'),
        ("line-number", 'n'),
        ("recursive", 'r'),
        ("dereference-recursive", 'R'),
        ("files-with-matches", 'l'),
        ("files-without-match", 'L'),
        ("count", 'c'),
        ("invert-match", 'v'),
        ("word-regexp", 'w'),
        ("line-regexp", 'x'),
        ("only-matching", 'o'),
        ("extended-regexp", 'E'),
        ("fixed-strings", 'F'),
        ("basic-regexp", 'G'),
        ("regexp", 'e'),
        ("file", 'f'),
        ("no-filename", 'h'),
        ("with-filename", 'H'),
        ("after-context", 'A'),
        ("before-context", 'B'),
        ("context", 'C'),
        ("max-count", 'm'),
        ("quiet", 'q'),
        ("silent", 'q'),
        ("no-messages", 's'),
        ("include", '\u{1}'),
        ("exclude", '\u{2}'),
        ("exclude-dir", '\u{3}'),
        ("byte-offset", 'b'),
        ("text", 'a'),
        ("binary-files", '\u{5}'),
        ("color", '\u{4}'),
        ("colour", '\u{4}'),
    ];
    // `-5` is GNU shorthand for `-C 5`.
    let mut words = Vec::with_capacity(args.len());
    for a in args {
        if a.len() > 1 && a.starts_with('-') && a[1..].bytes().all(|b| b.is_ascii_digit()) {
            words.push("-C".to_string());
            words.push(a[1..].to_string());
        } else if a == "--color" || a == "--colour" {
            words.push("--color=auto".to_string());
        } else {
            words.push(a.clone());
        }
    }
    let o = cli::scan(
        &words,
        "inrRlLcvwxoEFGe:f:hHA:B:C:m:qsab\u{1}:\u{2}:\u{3}:\u{4}:\u{5}:",
        LONGS,
    )?;
    let mut issues = Vec::new();
    let mut num = |flag: char, name: &str| -> Option<u64> {
        let v = o.last(flag)?;
        match cli::count(&format!("-{flag}"), v) {
            Ok(n) => Some(n),
            Err(mut i) => {
                i.path = name.to_string();
                issues.push(i);
                None
            }
        }
    };
    let after = num('A', "afterContext");
    let before = num('B', "beforeContext");
    let context = num('C', "context");
    let max = num('m', "maxCount");
    let explicit: Vec<&str> = o
        .flags
        .iter()
        .filter(|(c, _)| *c == 'e')
        .map(|(_, v)| v.as_str())
        .collect();
    let mut operands = o.operands.iter();
    let pattern = if !explicit.is_empty() {
        Some(explicit.join("\n"))
    } else if o.has('f') {
        None
    } else {
        match operands.next() {
            Some(p) => Some(p.clone()),
            None => {
                issues.push(Issue::new("pattern", "missing_field", "no PATTERN given"));
                None
            }
        }
    };
    let color = match o.last('\u{4}') {
        None | Some("never" | "auto" | "tty" | "if-tty" | "none" | "no") => false,
        Some("always" | "yes" | "force") => true,
        Some(other) => {
            issues.push(Issue::new(
                "--color",
                "invalid_value",
                format!("invalid argument '{other}' for '--color' (valid: always, never, auto)"),
            ));
            false
        }
    };
    let text = match o.last('\u{5}') {
        None => o.has('a'),
        Some("text") => true,
        Some("binary") => o.has('a'),
        Some(other) => {
            issues.push(Issue::new(
                "--binary-files",
                "invalid_value",
                format!("invalid argument '{other}' for '--binary-files' (valid: binary, text)"),
            ));
            false
        }
    };
    if !issues.is_empty() {
        return Err(issues);
    }
    let recursive = o.has('r') || o.has('R');
    let mut paths: Vec<&String> = operands.collect();
    let dash = "-".to_string();
    if paths.is_empty() && !recursive {
        paths.push(&dash);
    }
    // The last of -E/-F/-G wins, as in GNU grep.
    let syntax = o
        .flags
        .iter()
        .rev()
        .find_map(|(c, _)| match c {
            'E' => Some("extended"),
            'F' => Some("fixed"),
            'G' => Some("basic"),
            _ => None,
        })
        .unwrap_or("basic");
    let with_filename = o.flags.iter().rev().find_map(|(c, _)| match c {
        'H' => Some(true),
        'h' => Some(false),
        _ => None,
    });
    let all = |c: char| -> Vec<&str> {
        o.flags
            .iter()
            .filter(|(f, _)| *f == c)
            .map(|(_, v)| v.as_str())
            .collect()
    };
    Ok(json!({
        "mode": "regex",
        "pattern": pattern,
        "patternFile": o.last('f'),
        "paths": paths,
        "include": all('\u{1}'),
        "exclude": all('\u{2}'),
        "excludeDir": all('\u{3}'),
        "syntax": syntax,
        "ignoreCase": o.has('i'),
        "lineNumber": o.has('n'),
        "recursive": recursive,
        "filesWithMatches": o.has('l'),
        "filesWithoutMatch": o.has('L'),
        "count": o.has('c'),
        "invertMatch": o.has('v'),
        "word": o.has('w'),
        "line": o.has('x'),
        "onlyMatching": o.has('o'),
        "withFilename": with_filename,
        "afterContext": after,
        "beforeContext": before,
        "context": context,
        "maxCount": max,
        "quiet": o.has('q'),
        "noMessages": o.has('s'),
        "byteOffset": o.has('b'),
        "text": text,
        "color": color,
    }))
}

/// `grep code QUERY`: definitions from the code index, best first.
fn code(a: &GrepArgs, io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
    let query = a.query.as_deref().unwrap_or("");
    let Some(index) = cx.fs.code() else {
        let _ = writeln!(
            io.stderr,
            "grep code: no code index is available here; use `grep -rn PATTERN` for a text search"
        );
        return 2;
    };
    match index.search(query, a.limit.unwrap_or(10)) {
        Ok(hits) if hits.is_empty() => {
            let _ = writeln!(io.stderr, "grep code: no symbol matches '{query}'");
            1
        }
        Ok(hits) => {
            let mut out = String::new();
            for h in hits {
                out.push_str(&format!(
                    "{}:{}  {} {}  {}\n",
                    h.path, h.line, h.kind, h.name, h.detail
                ));
            }
            i32::from(io.stdout.write_all(out.as_bytes()).is_err())
        }
        Err(e) => {
            let _ = writeln!(io.stderr, "grep code: {e}");
            2
        }
    }
}
