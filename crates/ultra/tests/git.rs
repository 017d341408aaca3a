//! Seed 001's git tools through the real binary on a real repository (made with the `git`
//! CLI), called by an agent over the socket. The repository plants hooks, a filter driver
//! and an external diff driver that would leave marker files if anything ran them
//! (security.md G1-G2): none may.

#![allow(clippy::unwrap_used)]

mod common;

use std::process::Command;

use common::{Ws, git};
use serde_json::json;

/// A repository with one commit, one staged, one modified and one untracked file, and
/// traps: hooks, a clean/smudge filter and a diff driver that would touch `pwned-*` files
/// in the temp dir.
fn repo(extra_config: serde_json::Value) -> Ws {
    let ws = Ws::new();
    ws.config(extra_config);
    git(&ws, &["init", "-q", "-b", "main"]);
    git(&ws, &["config", "user.name", "Ada Agent"]);
    git(&ws, &["config", "user.email", "ada@example.com"]);
    ws.write("src/a.ts", "export const a = 1;\n");
    ws.write("src/b.ts", "export const b = 1;\n");
    git(&ws, &["add", "src/a.ts", "src/b.ts", "ultra.config.json"]);
    git(&ws, &["commit", "-q", "-m", "initial"]);
    let trap = |name: &str| {
        format!(
            "touch '{}'",
            ws.base().join(format!("pwned-{name}")).display()
        )
    };
    for hook in [
        "pre-commit",
        "commit-msg",
        "post-commit",
        "prepare-commit-msg",
    ] {
        let p = ws.path(&format!(".git/hooks/{hook}"));
        std::fs::write(&p, format!("#!/bin/sh\n{}\n", trap(hook))).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    ws.write("src/a.ts", "export const a = 2;\nexport const a2 = 3;\n");
    git(&ws, &["add", "src/a.ts"]);
    // The traps go in after the CLI's own `add` (which would run the filter).
    git(&ws, &["config", "filter.evil.clean", &trap("clean")]);
    git(&ws, &["config", "filter.evil.smudge", &trap("smudge")]);
    git(&ws, &["config", "diff.evil.command", &trap("diff")]);
    ws.write(".gitattributes", "*.ts filter=evil diff=evil\n");
    ws.write("src/b.ts", "export const b = 2;\n");
    ws.write("notes.txt", "untracked\n");
    ws
}

fn no_traps_ran(ws: &Ws) {
    let ran: Vec<String> = std::fs::read_dir(ws.base())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("pwned-"))
        .collect();
    assert!(ran.is_empty(), "ran: {ran:?}");
}

#[test]
fn status_diff_and_commit_without_running_anything_of_the_repository() {
    let ws = repo(json!({"policy": {"commands": {"git.commit": "allow"}}}));
    let _server = ws.serve();
    let mut c = ws.agent("claude");

    let s = c.ok("git.status", json!({}));
    assert_eq!(s["branch"], "main", "{s}");
    assert_eq!(s["detached"], false);
    assert_eq!(s["files"]["staged"], json!(["src/a.ts"]), "{s}");
    assert_eq!(s["files"]["modified"], json!(["src/b.ts"]), "{s}");
    let untracked = s["files"]["untracked"].as_array().unwrap();
    assert!(
        untracked.contains(&json!("notes.txt")) && untracked.contains(&json!(".gitattributes")),
        "{s}"
    );
    assert!(
        s["output"]
            .as_str()
            .unwrap()
            .contains("Staged (1):\n  - src/a.ts"),
        "{s}"
    );

    let d = c.ok("git.diff", json!({}));
    assert_eq!(
        d["files"],
        json!([{"path": "src/b.ts", "insertions": 1, "deletions": 1, "binary": false}]),
        "{d}"
    );
    assert!(
        d["diff"]
            .as_str()
            .unwrap()
            .contains("-export const b = 1;\n+export const b = 2;"),
        "{d}"
    );
    let d = c.ok("git.diff", json!({"staged": true}));
    assert_eq!(
        (d["totalInsertions"].clone(), d["totalDeletions"].clone()),
        (json!(2), json!(1)),
        "{d}"
    );
    let d = c.ok("git.diff", json!({"path": "src/a.ts"}));
    assert_eq!(d["files"], json!([]), "{d}");

    // Refusals change nothing.
    c.err_code("git.commit", json!({"message": "  "}), "INVALID_ARGUMENTS");
    c.err_code(
        "git.diff",
        json!({"path": "../outside"}),
        "PATH_OUTSIDE_WORKSPACE",
    );

    let r = c.ok(
        "git.commit",
        json!({"message": "feat: b is 2", "files": ["src/b.ts"]}),
    );
    assert_eq!(r["hash"], git(&ws, &["rev-parse", "HEAD"]), "{r}");
    assert_eq!(r["files"], json!(["src/a.ts", "src/b.ts"]), "{r}");
    assert_eq!(r["author"], "Ada Agent <ada@example.com>");
    assert_eq!(git(&ws, &["log", "-1", "--format=%s"]), "feat: b is 2");
    // The commit holds the files as they are (no filter touched them).
    assert_eq!(git(&ws, &["show", "HEAD:src/b.ts"]), "export const b = 2;");
    assert_eq!(
        git(&ws, &["show", "HEAD:src/a.ts"]),
        "export const a = 2;\nexport const a2 = 3;"
    );
    c.err_code(
        "git.commit",
        json!({"message": "again"}),
        "NOTHING_TO_COMMIT",
    );

    // History and branches.
    let log = c.ok("git.log", json!({}));
    let summaries: Vec<&str> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["summary"].as_str().unwrap())
        .collect();
    assert_eq!(summaries, ["feat: b is 2", "initial"], "{log}");
    assert_eq!(log[0]["author"], "Ada Agent <ada@example.com>");
    let log = c.ok("git.log", json!({"path": "src/b.ts", "limit": 1}));
    assert_eq!(log.as_array().unwrap().len(), 1, "{log}");
    let b = c.ok("git.branches", json!({}));
    assert_eq!(b, json!([{"name": "main", "current": true}]), "{b}");

    // Stage and unstage.
    ws.write("src/c.ts", "export const c = 1;\n");
    let s = c.ok("git.stage", json!({"files": ["src/c.ts"]}));
    assert_eq!(s["staged"], json!(["src/c.ts"]), "{s}");
    let s = c.ok("git.unstage", json!({"files": ["src/c.ts"]}));
    assert_eq!(s["staged"], json!([]), "{s}");
    c.err_code(
        "git.stage",
        json!({"files": ["../x"]}),
        "PATH_OUTSIDE_WORKSPACE",
    );
    no_traps_ran(&ws);
}

#[test]
fn an_agents_commit_waits_for_a_person_and_shows_what_it_would_commit() {
    let ws = repo(json!({}));
    let _server = ws.serve();
    let mut c = ws.agent("claude");
    let e = c.err_code(
        "git.commit",
        json!({"message": "feat: b", "files": ["src/b.ts"]}),
        "CONFIRMATION_REQUIRED",
    );
    let preview = e["data"]["details"]["preview"].as_str().unwrap();
    assert!(
        preview.contains("src/a.ts") && preview.contains("src/b.ts"),
        "{preview}"
    );
    assert_eq!(git(&ws, &["log", "--format=%s"]), "initial");
    no_traps_ran(&ws);
}

#[test]
fn outside_a_repository_git_tools_say_so() {
    let ws = Ws::new();
    let _server = ws.serve();
    let mut c = ws.agent("claude");
    c.err_code("git.status", json!({}), "NOT_A_GIT_REPOSITORY");
}

/// The real `git` CLI with the trap drivers switched off, as an oracle.
fn git_oracle(ws: &Ws, args: &[&str]) -> String {
    let mut all = vec![
        "-c",
        "filter.evil.clean=cat",
        "-c",
        "filter.evil.smudge=cat",
        "-c",
        "diff.evil.command=",
        "-c",
        "core.abbrev=7",
    ];
    all.extend_from_slice(args);
    let out = Command::new("git")
        .args(&all)
        .current_dir(ws.path(""))
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", ws.base().join("home"))
        .output()
        .expect("git runs");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn sh(c: &mut common::Conn, script: &str) -> serde_json::Value {
    c.ok("ultra.shell.run", json!({ "script": script }))
}

/// `git` in the shell and as a typed tool (seed 004's dual mode): its output matches the
/// git CLI's for the same repository, it pipes, and an agent's commit still waits for a
/// person; nothing of the repository's runs.
#[test]
fn git_as_a_shell_command_prints_what_git_prints() {
    let ws = repo(json!({}));
    let _server = ws.serve();
    let mut c = ws.agent("claude");

    for (ours, theirs) in [
        ("git status -s", vec!["status", "--short"]),
        ("git diff --stat", vec!["diff", "--stat"]),
        (
            "git diff --cached --stat",
            vec!["diff", "--cached", "--stat"],
        ),
        ("git diff --name-only", vec!["diff", "--name-only"]),
        ("git log --oneline", vec!["log", "--oneline"]),
        ("git branch", vec!["branch"]),
    ] {
        let r = sh(&mut c, ours);
        assert_eq!(r["exitCode"], 0, "{ours}: {r}");
        assert_eq!(r["stdout"], git_oracle(&ws, &theirs), "{ours}");
    }
    // It pipes like any command.
    let r = sh(&mut c, "git status -s | grep '^??' | wc -l");
    assert_eq!(r["stdout"].as_str().unwrap().trim(), "2", "{r}");
    // The same through the typed tool.
    let r = c.ok("shell.git", json!({"subcommand": "status", "short": true}));
    assert_eq!(r["stdout"], git_oracle(&ws, &["status", "--short"]), "{r}");

    // Bad arguments: seed 004's structured error on the shell path, INVALID_ARGUMENTS typed.
    let r = sh(&mut c, "git push --force");
    assert_eq!(r["exitCode"], 1, "{r}");
    assert!(
        r["stderr"].as_str().unwrap().contains("invalid_arguments"),
        "{r}"
    );
    c.err_code(
        "shell.git",
        json!({"subcommand": "commit"}),
        "INVALID_ARGUMENTS",
    );
    c.err_code(
        "shell.git",
        json!({"subcommand": "status", "staged": true}),
        "INVALID_ARGUMENTS",
    );
    let r = sh(&mut c, "git add ../outside");
    assert_ne!(r["exitCode"], 0, "{r}");

    // Staging is an ordinary write; a commit waits for a person.
    let r = sh(&mut c, "git add notes.txt && git reset src/a.ts");
    assert_eq!(r["exitCode"], 0, "{r}");
    assert_eq!(
        git_oracle(&ws, &["diff", "--cached", "--name-only"]),
        "notes.txt\n"
    );
    c.err_code(
        "ultra.shell.run",
        json!({"script": "git commit -m 'feat: notes'"}),
        "CONFIRMATION_REQUIRED",
    );
    assert_eq!(git(&ws, &["log", "--format=%s"]), "initial");
    no_traps_ran(&ws);
}

/// `ultra sh` is admitted by the executor as the `shell` tool's call is: a policy that
/// denies the commit's risk to the command line refuses the whole script before anything
/// runs (exit 126, the policy named), and every script run or refused is in the audit log.
#[test]
fn ultra_sh_meets_policy_and_the_audit_log() {
    let log = |ws: &Ws| std::fs::read_to_string(ws.base().join("audit.ndjson")).unwrap_or_default();
    let ws = repo(json!({
        "policy": { "sources": { "cli": { "destructive": "deny" } } },
        "audit": { "path": "AUDIT" },
    }));
    let audit = ws.base().join("audit.ndjson");
    let cfg = std::fs::read_to_string(ws.path("ultra.config.json")).unwrap();
    std::fs::write(
        ws.path("ultra.config.json"),
        cfg.replace("AUDIT", audit.to_str().unwrap()),
    )
    .unwrap();
    let before = git(&ws, &["rev-parse", "HEAD"]);
    let out = ws.cli(&["sh", "echo started && git commit -a -m 'no'"]);
    assert_eq!(out.code(), 126, "{}", out.stderr());
    assert!(out.stderr().contains("[POLICY_DENIED]"), "{}", out.stderr());
    assert!(
        out.stderr().contains("policy.sources.cli.destructive"),
        "{}",
        out.stderr()
    );
    // Refused before anything ran: no output, no commit.
    assert_eq!(out.stdout(), "");
    assert_eq!(git(&ws, &["rev-parse", "HEAD"]), before);
    // A read-only script still runs, and both are recorded.
    let out = ws.cli(&["sh", "git status -s | head -n 1"]);
    assert_eq!(out.code(), 0, "{}", out.stderr());
    let text = log(&ws);
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert_eq!(lines[0]["command"], "ultra.shell.run");
    assert_eq!(lines[0]["outcome"], "POLICY_DENIED");
    assert_eq!(lines[0]["source"]["type"], "cli");
    assert_eq!(lines[1]["command"], "ultra.shell.run");
    assert_eq!(lines[1]["outcome"], "ok");
    no_traps_ran(&ws);
}

/// A person's `ultra sh` commits at once; `-a` takes the tracked changes; paths follow
/// the shell's working directory.
#[test]
fn a_person_commits_through_the_shell() {
    let ws = repo(json!({}));
    let out = ws.cli(&[
        "sh",
        "cd src && git commit -a -m 'feat: all of it' && git log -n 1 --oneline && git status -s",
    ]);
    assert_eq!(out.code(), 0, "{}", out.stderr());
    let head = git(&ws, &["rev-parse", "--short=7", "HEAD"]);
    let text = out.stdout();
    assert!(
        text.starts_with(&format!(
            "[main {head}] feat: all of it\n 2 files changed\n"
        )),
        "{text}"
    );
    assert!(
        text.contains(&format!("{head} feat: all of it\n")),
        "{text}"
    );
    assert_eq!(
        git_oracle(&ws, &["show", "--name-only", "--format=", "HEAD"]),
        "src/a.ts\nsrc/b.ts\n"
    );
    // The untracked files stay out of a `-a` commit, as with git.
    assert!(
        text.ends_with("?? .gitattributes\n?? notes.txt\n"),
        "{text}"
    );
    no_traps_ran(&ws);
}
