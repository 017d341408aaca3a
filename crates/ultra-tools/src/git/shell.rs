//! `git` as a dual-mode command (seed 004): `git status -s | awk ...` in the shell, and a
//! typed `git` tool, both through the same libgit2 operations as the `git.*` commands. No
//! git program runs, so hooks, filters and external diff drivers never do.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use ultra_protocol::{CommandError, ErrorCode};
use ultra_shell::promoted::cli::scan;
use ultra_shell::promoted::{Issue, Promoted, PromotedSpec, Risk, TypedExample};
use ultra_shell::run::{Cx, Example, Io};
use ultra_workspace::RelPath;

use ultra_git::Repository;

/// `git`.
pub struct Git;

/// What `git` does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Subcommand {
    /// Branch and changed files.
    Status,
    /// The patch of unstaged (or, with `staged`, staged) changes.
    Diff,
    /// Commits from HEAD back.
    Log,
    /// Stage files (`git add`).
    Add,
    /// Unstage files, leaving the work tree alone (`git reset PATH` / `git restore --staged`).
    Reset,
    /// Commit what is staged.
    Commit,
    /// The local branches.
    Branch,
}

/// Arguments of `git`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GitArgs {
    pub subcommand: Subcommand,
    /// diff and log: only these paths; add, reset and commit: the files to stage or
    /// unstage (a directory means everything under it).
    #[serde(default)]
    pub paths: Vec<String>,
    /// diff: staged changes (index against HEAD).
    #[serde(default)]
    pub staged: bool,
    /// add: every change in the work tree (`-A`); commit: every change to tracked files
    /// (`-a`).
    #[serde(default)]
    pub all: bool,
    /// commit: the message (required).
    pub message: Option<String>,
    /// log: most commits (default 20, at most 500).
    pub limit: Option<usize>,
    /// status: `XY path` lines (`-s`); log: one line per commit (`--oneline`).
    #[serde(default)]
    pub short: bool,
    /// diff: per-file counts instead of the patch (`--stat`).
    #[serde(default)]
    pub stat: bool,
    /// diff: only the changed paths (`--name-only`).
    #[serde(default)]
    pub name_only: bool,
}

const USAGE: &str = "git status [-s] | diff [--staged] [--stat|--name-only] [PATH...] | log [-n N] [--oneline] [PATH...] | add (-A|PATH...) | reset PATH... | commit -m MSG [-a] [PATH...] | branch";

fn issue(path: &str, code: &'static str, message: impl Into<String>) -> Vec<Issue> {
    vec![Issue::new(path, code, message)]
}

impl Promoted for Git {
    type Args = GitArgs;
    const SPEC: PromotedSpec = PromotedSpec {
        name: "git",
        summary: "Git through libgit2 (no hooks or filters run); no push, pull or history rewriting.",
        usage: USAGE,
        cli_examples: &[
            "git status -s",
            "git diff --stat",
            "git log -n 5 --oneline",
            "git add src/a.ts && git commit -m 'fix: handle empty input'",
        ],
        // The standard fixture is no repository: git says so and fails as git does.
        example: Example {
            args: &["status"],
            stdin: "",
            stdout: "",
            status: 128,
        },
        typed_example: TypedExample {
            args: r#"{"subcommand": "log", "short": true}"#,
            stdout: "",
            status: 128,
        },
        max_risk: Risk::OVERWRITE,
    };

    fn parse_cli_args(&self, args: &[String]) -> Result<Value, Vec<Issue>> {
        let Some((sub, rest)) = args.split_first() else {
            return Err(issue(
                "subcommand",
                "missing_field",
                "name a subcommand: status, diff, log, add, reset, commit or branch",
            ));
        };
        match sub.as_str() {
            "status" => {
                let o = scan(rest, "s", &[("short", 's'), ("porcelain", 's')])?;
                if let Some(p) = o.operands.first() {
                    return Err(issue(
                        "paths",
                        "invalid_value",
                        format!("git status takes no paths ('{p}'); use git diff PATH"),
                    ));
                }
                Ok(json!({ "subcommand": "status", "short": o.has('s') }))
            }
            "diff" => {
                let o = scan(
                    rest,
                    "SsN",
                    &[
                        ("staged", 'S'),
                        ("cached", 'S'),
                        ("stat", 's'),
                        ("name-only", 'N'),
                    ],
                )?;
                Ok(json!({
                    "subcommand": "diff", "staged": o.has('S'), "stat": o.has('s'),
                    "nameOnly": o.has('N'), "paths": o.operands,
                }))
            }
            "log" => {
                // `-5` is `-n 5`.
                let mut words = Vec::new();
                for w in rest {
                    match w.strip_prefix('-') {
                        Some(d) if !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()) => {
                            words.extend(["-n".to_string(), d.to_string()]);
                        }
                        _ => words.push(w.clone()),
                    }
                }
                let o = scan(&words, "n:o", &[("max-count", 'n'), ("oneline", 'o')])?;
                let limit = match o.last('n') {
                    Some(n) => {
                        Some(ultra_shell::promoted::cli::count("-n", n).map_err(|i| vec![i])?)
                    }
                    None => None,
                };
                Ok(json!({
                    "subcommand": "log", "limit": limit, "short": o.has('o'), "paths": o.operands,
                }))
            }
            "add" => {
                let o = scan(rest, "A", &[("all", 'A')])?;
                Ok(json!({ "subcommand": "add", "all": o.has('A'), "paths": o.operands }))
            }
            "reset" | "restore" => {
                let o = scan(rest, "S", &[("staged", 'S')])?;
                if sub == "restore" && !o.has('S') {
                    return Err(issue(
                        "subcommand",
                        "invalid_value",
                        "only `git restore --staged PATH...` is here; to discard work-tree changes, edit the file back or ask a person",
                    ));
                }
                let mut paths = o.operands;
                if sub == "reset" && paths.first().is_some_and(|p| p == "HEAD") {
                    paths.remove(0);
                }
                Ok(json!({ "subcommand": "reset", "paths": paths }))
            }
            "commit" => {
                let o = scan(rest, "m:a", &[("message", 'm'), ("all", 'a')])?;
                let message: Vec<&str> = o
                    .flags
                    .iter()
                    .filter(|(c, _)| *c == 'm')
                    .map(|(_, m)| m.as_str())
                    .collect();
                Ok(json!({
                    "subcommand": "commit",
                    "message": (!message.is_empty()).then(|| message.join("\n\n")),
                    "all": o.has('a'), "paths": o.operands,
                }))
            }
            "branch" => {
                let o = scan(rest, "", &[])?;
                if let Some(name) = o.operands.first() {
                    return Err(issue(
                        "subcommand",
                        "invalid_value",
                        format!(
                            "creating or switching branches ('{name}') is not here; run_command `git branch {name}` asks a person"
                        ),
                    ));
                }
                Ok(json!({ "subcommand": "branch" }))
            }
            other => Err(issue(
                "subcommand",
                "invalid_value",
                format!(
                    "`git {other}` is not here: status, diff, log, add, reset, commit and branch are; others go through run_command, which a person approves"
                ),
            )),
        }
    }

    fn validate(&self, a: &GitArgs) -> Result<(), Vec<Issue>> {
        use Subcommand::*;
        let mut issues = Vec::new();
        let mut only = |set: bool, field: &str, subs: &[Subcommand]| {
            if set && !subs.contains(&a.subcommand) {
                issues.push(Issue::new(
                    field,
                    "invalid_value",
                    format!("{field} does not apply to {:?}", a.subcommand).to_lowercase(),
                ));
            }
        };
        only(
            !a.paths.is_empty(),
            "paths",
            &[Diff, Log, Add, Reset, Commit],
        );
        only(a.staged, "staged", &[Diff]);
        only(a.all, "all", &[Add, Commit]);
        only(a.message.is_some(), "message", &[Commit]);
        only(a.limit.is_some(), "limit", &[Log]);
        only(a.short, "short", &[Status, Log]);
        only(a.stat, "stat", &[Diff]);
        only(a.name_only, "nameOnly", &[Diff]);
        if a.stat && a.name_only {
            issues.push(Issue::new(
                "nameOnly",
                "invalid_value",
                "choose one of stat and nameOnly",
            ));
        }
        match a.subcommand {
            Commit if a.message.as_deref().is_none_or(|m| m.trim().is_empty()) => {
                issues.push(Issue::new(
                    "message",
                    "missing_field",
                    "a commit needs a message: git commit -m 'fix: handle empty input'",
                ));
            }
            Add if a.paths.is_empty() && !a.all => issues.push(Issue::new(
                "paths",
                "missing_field",
                "name the files to stage, or -A for every change",
            )),
            Reset if a.paths.is_empty() => issues.push(Issue::new(
                "paths",
                "missing_field",
                "name the files to unstage",
            )),
            _ => {}
        }
        if issues.is_empty() {
            Ok(())
        } else {
            Err(issues)
        }
    }

    /// A commit moves the branch and is one of seed 001's always-confirmed actions, so
    /// it counts as destructive: the default policy puts an agent's commit to a person.
    fn risk(&self, a: &GitArgs) -> Risk {
        match a.subcommand {
            Subcommand::Status | Subcommand::Diff | Subcommand::Log | Subcommand::Branch => {
                Risk::READ
            }
            Subcommand::Add | Subcommand::Reset => Risk::WRITE,
            Subcommand::Commit => Risk::OVERWRITE,
        }
    }

    fn preview(&self, a: &GitArgs, root: &ultra_workspace::Root) -> Option<String> {
        if a.subcommand != Subcommand::Commit {
            return None;
        }
        let repo = ultra_git::open(root.path()).ok()?;
        let mut more = a.paths.clone();
        if a.all {
            more.extend(ultra_git::changed_tracked(&repo).ok()?);
        }
        ultra_git::commit_preview(&repo, a.message.as_deref().unwrap_or(""), &more)
    }

    fn execute(&self, a: GitArgs, io: &mut Io<'_>, cx: &Cx<'_>) -> i32 {
        match run(&a, cx) {
            Ok(text) => i32::from(io.stdout.write_all(text.as_bytes()).is_err()),
            Err(e) => {
                let _ = writeln!(io.stderr, "git: {}", e.message);
                if let Some(s) = &e.suggestion {
                    let _ = writeln!(io.stderr, "hint: {s}");
                }
                match e.code {
                    ErrorCode::NotARepository | ErrorCode::GitFailed => 128,
                    _ => 1,
                }
            }
        }
    }
}

/// Run the call and render what git would print.
fn run(a: &GitArgs, cx: &Cx<'_>) -> Result<String, CommandError> {
    let repo: Repository = ultra_git::open(cx.fs.root().path())?;
    let paths = a
        .paths
        .iter()
        .map(|p| cx.fs.resolve_entry(cx.cwd, p).map_err(CommandError::from))
        .collect::<Result<Vec<RelPath>, _>>()?;
    let mut out = String::new();
    match a.subcommand {
        Subcommand::Status => {
            let s = ultra_git::status(&repo)?;
            out = if a.short { s.short } else { s.output };
        }
        Subcommand::Diff => {
            let d = ultra_git::diff(&repo, &paths, a.staged)?;
            if a.name_only {
                for f in &d.files {
                    out.push_str(&format!("{}\n", f.path));
                }
            } else if a.stat {
                // git's layout: names padded, counts right-aligned, a bar of at most 40.
                let width = d.files.iter().map(|f| f.path.len()).max().unwrap_or(0);
                let most = d.files.iter().map(|f| f.insertions + f.deletions).max();
                let digits = most.unwrap_or(0).to_string().len();
                let scale = |n: usize| match most {
                    Some(m) if m > 40 => (n * 40).div_ceil(m),
                    _ => n,
                };
                for f in &d.files {
                    let bar = if f.binary {
                        "Bin".to_string()
                    } else {
                        format!(
                            "{:>digits$} {}{}",
                            f.insertions + f.deletions,
                            "+".repeat(scale(f.insertions)),
                            "-".repeat(scale(f.deletions))
                        )
                    };
                    out.push_str(&format!(" {:width$} | {bar}\n", f.path));
                }
                if !d.files.is_empty() {
                    // As git: a zero count is left out unless both are zero.
                    let (i, del) = (d.total_insertions, d.total_deletions);
                    let mut line =
                        format!(" {} file{} changed", d.files.len(), plural(d.files.len()));
                    if i > 0 || del == 0 {
                        line.push_str(&format!(", {i} insertion{}(+)", plural(i)));
                    }
                    if del > 0 || i == 0 {
                        line.push_str(&format!(", {del} deletion{}(-)", plural(del)));
                    }
                    out.push_str(&line);
                    out.push('\n');
                }
            } else {
                out = d.diff;
            }
        }
        Subcommand::Log => {
            for c in ultra_git::log(&repo, &paths, a.limit.unwrap_or(20).clamp(1, 500))? {
                if a.short {
                    out.push_str(&format!("{} {}\n", &c.hash[..7], c.summary));
                } else {
                    let date = ultra_shell::builtins::format_time(
                        c.timestamp,
                        0,
                        "%a %b %e %H:%M:%S %Y +0000",
                    );
                    out.push_str(&format!(
                        "commit {}\nAuthor: {}\nDate:   {date}\n\n    {}\n\n",
                        c.hash, c.author, c.summary
                    ));
                }
            }
        }
        Subcommand::Add => {
            if a.all {
                ultra_git::stage_all(&repo)?;
            }
            ultra_git::stage(&repo, cx.fs.root(), &paths)?;
        }
        Subcommand::Reset => ultra_git::unstage(&repo, &paths)?,
        Subcommand::Commit => {
            if a.all {
                ultra_git::stage_tracked(&repo)?;
            }
            ultra_git::stage(&repo, cx.fs.root(), &paths)?;
            let c = ultra_git::commit(&repo, a.message.as_deref().unwrap_or(""))?;
            out = format!(
                "[{} {}] {}\n {} file{} changed\n",
                ultra_git::branch_name(&repo),
                &c.hash[..7],
                c.message.lines().next().unwrap_or(""),
                c.files.len(),
                plural(c.files.len())
            );
        }
        Subcommand::Branch => {
            for b in ultra_git::branches(&repo)? {
                out.push_str(&format!(
                    "{} {}\n",
                    if b.current { "*" } else { " " },
                    b.name
                ));
            }
        }
    }
    Ok(out)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}
