//! Both paths of every promoted command through the real binary: the shell string
//! (`ultra sh 'grep ...'`) and the typed tool (`ultra -c shell.grep -a '{...}'`) reach the
//! same `execute` and print the same output; bad arguments come back as seed 004 §8's
//! structured error on either path; `ultra tools` lists each promoted command as a tool.

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;
use serde_json::{Value, json};

fn fixture() -> Ws {
    let ws = Ws::new();
    ws.write("src/main.rs", "fn main() {\n    run();\n}\n");
    ws.write("src/lib.rs", "pub fn run() {}\n// TODO: more\n");
    ws.write("notes.md", "alpha\nbeta\n");
    ws
}

/// The typed call's data.
fn typed(ws: &Ws, command: &str, args: Value) -> Value {
    let out = ws.cli(&["-c", command, "-a", &args.to_string(), "--json"]);
    let v = out.json();
    assert_eq!(v[0]["success"], true, "{}", v[0]);
    v[0]["data"].clone()
}

/// `ultra sh SCRIPT`: (stdout, stderr, status).
fn sh(ws: &Ws, script: &str) -> (String, String, i32) {
    let out = ws.cli(&["sh", script]);
    (out.stdout(), out.stderr(), out.code())
}

#[test]
fn grep_both_paths_agree() {
    let ws = fixture();
    let (out, _, st) = sh(&ws, "grep -rn 'run' src");
    assert_eq!(st, 0);
    assert_eq!(
        out,
        "src/lib.rs:1:pub fn run() {}\nsrc/main.rs:2:    run();\n"
    );
    let d = typed(
        &ws,
        "shell.grep",
        json!({"pattern": "run", "paths": ["src"], "recursive": true, "lineNumber": true}),
    );
    assert_eq!(d["stdout"], out);
    assert_eq!(d["exitCode"], 0);
    // The tool searches the whole workspace when no path is given.
    let d = typed(&ws, "shell.grep", json!({"pattern": "TODO|alpha"}));
    assert_eq!(d["stdout"], "notes.md:alpha\nsrc/lib.rs:// TODO: more\n");
    // No match is a result (exit 1), not an error.
    let d = typed(
        &ws,
        "shell.grep",
        json!({"pattern": "zzz", "paths": ["notes.md"]}),
    );
    assert_eq!(
        (d["stdout"].as_str(), d["exitCode"].as_i64()),
        (Some(""), Some(1))
    );
}

#[test]
fn find_replace_write_both_paths() {
    let ws = fixture();
    let (out, _, _) = sh(&ws, "find src -name '*.rs'");
    let d = typed(
        &ws,
        "shell.find",
        json!({"paths": ["src"], "name": ["*.rs"]}),
    );
    assert_eq!(d["stdout"], out);
    assert_eq!(out, "src/lib.rs\nsrc/main.rs\n");

    let (out, err, st) = sh(&ws, "write out/a.txt hello world");
    assert_eq!(
        (out.as_str(), err.as_str(), st),
        ("wrote 12 bytes to out/a.txt\n", "", 0)
    );
    assert_eq!(ws.read("out/a.txt"), "hello world\n");
    let (_, _, st) = sh(&ws, "write out/b.txt <<'EOF'\nline $1\nEOF");
    assert_eq!(st, 0);
    assert_eq!(ws.read("out/b.txt"), "line $1\n");
    let d = typed(
        &ws,
        "shell.write",
        json!({"path": "out/c.txt", "content": "typed\n"}),
    );
    assert_eq!(d["stdout"], "wrote 6 bytes to out/c.txt\n");
    assert_eq!(ws.read("out/c.txt"), "typed\n");

    let (out, _, st) = sh(&ws, "replace src/lib.rs 'pub fn run' 'pub fn go'");
    assert_eq!(
        (out.as_str(), st),
        ("replaced 1 occurrence in src/lib.rs (line 1)\n", 0)
    );
    let d = typed(
        &ws,
        "shell.replace",
        json!({"file": "src/main.rs", "old": "run();", "new": "go();"}),
    );
    assert_eq!(
        d["stdout"],
        "replaced 1 occurrence in src/main.rs (line 2)\n"
    );
    assert_eq!(ws.read("src/main.rs"), "fn main() {\n    go();\n}\n");
    // Ambiguous or missing text changes nothing and says why.
    ws.write("dup.txt", "x = 1\nx = 1\n");
    let d = typed(
        &ws,
        "shell.replace",
        json!({"file": "dup.txt", "old": "x = 1", "new": "y"}),
    );
    assert_eq!(d["exitCode"], 1);
    assert!(
        d["stderr"]
            .as_str()
            .unwrap()
            .contains("2 occurrences (lines 1, 2)"),
        "{d}"
    );
    let d = typed(
        &ws,
        "shell.replace",
        json!({"file": "dup.txt", "old": "x  =  1", "new": "y"}),
    );
    assert!(d["stderr"].as_str().unwrap().contains("use -s"), "{d}");
    assert_eq!(ws.read("dup.txt"), "x = 1\nx = 1\n");
}

#[test]
fn sed_and_awk_both_paths() {
    let ws = fixture();
    let (out, _, st) = sh(&ws, "sed -n 's/^\\(a\\)lpha/\\1LPHA/p' notes.md");
    assert_eq!((out.as_str(), st), ("aLPHA\n", 0));
    let d = typed(
        &ws,
        "shell.sed",
        json!({"script": ["s/^\\(a\\)lpha/\\1LPHA/p"], "quiet": true, "files": ["notes.md"]}),
    );
    assert_eq!(d["stdout"], out);
    // The seed's substitution form, in place; the delimiter is chosen for the caller.
    let d = typed(
        &ws,
        "shell.sed",
        json!({"pattern": "b/e", "replacement": "x", "files": ["notes.md"]}),
    );
    assert_eq!(d["stdout"], "alpha\nbeta\n");
    let d = typed(
        &ws,
        "shell.sed",
        json!({"pattern": "beta", "replacement": "BETA", "inPlace": true, "files": ["notes.md"]}),
    );
    assert_eq!(d["exitCode"], 0, "{d}");
    assert_eq!(ws.read("notes.md"), "alpha\nBETA\n");

    let (out, _, st) = sh(
        &ws,
        "awk -F'(' '/fn/ {n++; print n\": \"$1} END {print NR}' src/main.rs",
    );
    assert_eq!((out.as_str(), st), ("1: fn main\n3\n", 0));
    let d = typed(
        &ws,
        "shell.awk",
        json!({"program": "/fn/ {n++; print n\": \"$1} END {print NR}", "fieldSeparator": "(", "files": ["src/main.rs"]}),
    );
    assert_eq!(d["stdout"], out);
    let d = typed(
        &ws,
        "shell.awk",
        json!({"program": "BEGIN {print x * 2}", "assign": ["x=21"]}),
    );
    assert_eq!(d["stdout"], "42\n");
    // A program that does not parse: the same structured error on both paths.
    let (_, err, st) = sh(&ws, "awk '{print $1' notes.md");
    assert_eq!(st, 1);
    let v: Value = serde_json::from_str(&err).unwrap();
    assert_eq!(v["issues"][0]["code"], "syntax_error", "{v}");
    let out = ws.cli(&[
        "-c",
        "shell.awk",
        "-a",
        r#"{"program": "{print $1"}"#,
        "--json",
    ]);
    let v = &out.json()[0];
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENTS", "{v}");
    assert_eq!(v["error"]["details"]["issues"][0]["code"], "syntax_error");
    // Refused, never spawned.
    let (_, err, st) = sh(&ws, "awk 'BEGIN { system(\"touch pwned\") }'");
    assert_eq!(st, 2);
    assert!(err.contains("spawns no processes"), "{err}");
    assert!(!ws.exists("pwned"));
}

#[test]
fn bad_arguments_are_structured_on_both_paths() {
    let ws = fixture();
    // Shell path: seed 004 §8 JSON on stderr, exit status 1.
    let (out, err, st) = sh(&ws, "grep -Z x notes.md");
    assert_eq!((out.as_str(), st), ("", 1));
    let v: Value = serde_json::from_str(&err).unwrap();
    assert_eq!(v["error"], "invalid_arguments");
    assert_eq!(v["issues"][0]["code"], "unknown_flag");
    // Typed path, schema failure: INVALID_ARGUMENTS pointing at the field.
    let out = ws.cli(&[
        "-c",
        "shell.grep",
        "-a",
        r#"{"pattern": "x", "lineNumbers": true}"#,
        "--json",
    ]);
    let v = &out.json()[0];
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENTS", "{v}");
    assert_eq!(v["error"]["details"]["issues"][0]["code"], "unknown_field");
    // Typed path, semantic failure: the same issue shape, usage and examples.
    let out = ws.cli(&["-c", "shell.grep", "-a", r#"{"pattern": "a("}"#, "--json"]);
    let v = &out.json()[0];
    assert_eq!(v["error"]["code"], "INVALID_ARGUMENTS", "{v}");
    let d = &v["error"]["details"];
    assert_eq!(d["issues"][0]["path"], "pattern");
    assert_eq!(d["issues"][0]["code"], "invalid_regex");
    assert!(d["usage"].as_str().unwrap().starts_with("grep "));
    assert!(!d["examples"].as_array().unwrap().is_empty());
    // Outside the workspace: denied, nothing touched.
    let (_, err, st) = sh(&ws, "write ../escape.txt x");
    assert_eq!(st, 1);
    assert!(err.contains("write: ../escape.txt"), "{err}");
    assert!(!ws.base().join("escape.txt").exists());
}

#[test]
fn tools_list_each_promoted_command() {
    let ws = fixture();
    let out = ws.cli(&["tools", "--format", "openai"]);
    let text = out.ok();
    let v: Value = serde_json::from_str(&text).unwrap();
    let names: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap())
        .collect();
    for n in ["shell", "grep", "find", "replace", "write", "sed", "awk"] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    let grep = v
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "grep")
        .unwrap();
    let params = &grep["function"]["parameters"]["properties"];
    assert!(
        params.get("pattern").is_some() && params.get("include").is_some(),
        "{params}"
    );
    let shell = v
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["function"]["name"] == "shell")
        .unwrap();
    let d = shell["function"]["description"].as_str().unwrap();
    assert!(d.len() <= 4096, "{}", d.len());
    // The shell names each promoted command; its own tool tells its flags and modes.
    assert!(
        d.contains("Also typed tools") && d.contains(" grep "),
        "{d}"
    );
    let grep_says = grep["function"]["description"].as_str().unwrap();
    assert!(grep_says.contains("grep package QUERY"), "{grep_says}");
}
