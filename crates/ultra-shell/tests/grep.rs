//! `grep` (a promoted command on ripgrep's crates) compared with GNU grep under `LC_ALL=C`,
//! plus its semantic modes and structured argument errors.

#![allow(clippy::unwrap_used)]

mod common;

use common::Ws;

fn ws() -> Ws {
    let ws = Ws::new();
    ws.add("src/main.rs", "fn main() {\n    println!(\"hello\");\n}\n");
    ws.add(
        "src/lib.rs",
        "// TODO: docs\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\npub fn sub(a: i32, b: i32) -> i32 {\n    a - b // TODO\n}\n",
    );
    ws.add(
        "src/deep/x.py",
        "import os\nprint('hello world')\n# TODO later\n",
    );
    ws.add("log.txt", "ok 1\nerror: disk full\nok 2\nwarn: slow\nok 3\nerror: timeout\nok 4\nok 5\nok 6\nerror: last\n");
    ws.add(
        "words.txt",
        "foo\nfoobar\nbar foo baz\nFOO\nfood\n\n  foo  \n",
    );
    ws.add("pats.txt", "disk\ntimeout\n");
    ws.add("bin.dat", "abc\0def\nerror here\n");
    ws.add("nonl.txt", "last error");
    ws
}

const CASES: &[&str] = &[
    "grep error log.txt",
    "grep -c error log.txt",
    "grep -n error log.txt",
    "grep -v ok log.txt",
    "grep -vc ok log.txt",
    "grep -i foo words.txt",
    "grep -w foo words.txt",
    "grep -x foo words.txt",
    "grep -o 'fo*' words.txt",
    "grep -on 'o' words.txt",
    "grep -E 'error|warn' log.txt",
    "grep 'error\\|warn' log.txt",
    "grep 'error|warn' log.txt",
    "grep -F 'a + b' src/lib.rs",
    "grep 'a + b' src/lib.rs",
    "grep -E 'a \\+ b' src/lib.rs",
    "grep -e disk -e timeout log.txt",
    "grep -f pats.txt log.txt",
    "grep -m 2 error log.txt",
    "grep -m1 -c error log.txt",
    "grep -q error log.txt; echo $?",
    "grep -q nothing log.txt; echo $?",
    "grep nothing log.txt; echo $?",
    "grep error missing.txt; echo $?",
    "grep -s error missing.txt; echo $?",
    "grep -l TODO src/main.rs src/lib.rs",
    "grep -L TODO src/main.rs src/lib.rs",
    "grep -c TODO src/main.rs src/lib.rs",
    "grep -h TODO src/lib.rs src/deep/x.py",
    "grep -H TODO src/lib.rs",
    "grep -r TODO src | sort",
    "grep -rn TODO src/ | sort",
    "grep -rl TODO . | sort",
    "grep -rc TODO src | sort",
    "grep -r --include='*.py' TODO src",
    "grep -r --exclude='*.py' TODO src",
    "grep -r --exclude-dir=deep TODO src",
    "grep -ri HELLO src | sort",
    "grep -A1 disk log.txt",
    "grep -B2 timeout log.txt",
    "grep -C1 error log.txt",
    "grep -n -C1 error log.txt",
    "grep -A1 -m2 error log.txt",
    "grep -2 warn log.txt",
    "grep -c '' words.txt",
    "grep '^$' -n words.txt",
    "grep '^ ' words.txt",
    "grep 'o$' words.txt",
    "grep '[[:upper:]]' words.txt",
    "grep -E '^f.{2}$' words.txt",
    "grep 'fo\\{2\\}d' words.txt",
    "grep -E 'fo{2}d' words.txt",
    "grep error bin.dat",
    "grep -c error bin.dat",
    "grep error nonl.txt",
    "cat log.txt | grep -n warn",
    "cat log.txt | grep -c ok",
    "grep error - < log.txt",
    "grep error log.txt | head -1",
    "grep -rh hello src | sort",
    "grep -x -F 'foo' words.txt",
    "grep -w -c foo words.txt",
    "grep -i -o 'FOO' words.txt",
    "grep -v -e ok -e error log.txt",
    "grep -ril todo src | sort",
    "grep -rL TODO src",
    "grep -E '(a|b) [+-]' src/lib.rs",
    "grep -n 'fn [a-z]*(' src/lib.rs",
    "grep src src; echo $?",
    "grep -x '' words.txt | wc -l",
    // issue 20 §2: -o with `$`, an empty -f file, -b, -a, --color
    "grep -o '[^/]*$' src/main.rs",
    "grep -o 'o*$' words.txt",
    "grep -on 'error.*$' log.txt",
    "touch empty.pats; grep -f empty.pats log.txt; echo $?",
    "touch empty.pats; grep -v -f empty.pats log.txt | wc -l",
    "touch empty.pats; grep -e ok -f empty.pats log.txt",
    "grep -b error log.txt",
    "grep -bo 'ok [0-9]' log.txt",
    "grep -nb -C1 warn log.txt",
    "grep -c -b error log.txt",
    "grep -a error bin.dat",
    "grep -a -c def bin.dat",
    "grep --binary-files=text abc bin.dat",
    "grep --color=never error log.txt",
    "grep --colour=auto -n error log.txt",
    "grep --color=always error log.txt | tr '\\033' E",
    "grep --color=always -n -C1 warn log.txt | tr '\\033' E",
    "grep --color=always -H -o foo words.txt | tr '\\033' E",
    "grep --color=always -v ok log.txt | tr '\\033' E",
    "grep --color=always -rn TODO src | sort | tr '\\033' E",
    "grep -E 'ok [0-9]{1,300}' log.txt | wc -l",
];

#[test]
fn matches_gnu() {
    common::differential(&mut ws(), CASES);
    assert!(CASES.len() >= 60, "{}", CASES.len());
}

#[test]
fn bad_flags_give_a_structured_error() {
    let mut ws = ws();
    let (out, err, st) = ws.run("grep --frobnicate x log.txt");
    assert_eq!((out.as_str(), st), ("", 1));
    let v: serde_json::Value = serde_json::from_str(&err).unwrap();
    assert_eq!(v["error"], "invalid_arguments");
    assert_eq!(v["command"], "grep");
    assert_eq!(v["issues"][0]["code"], "unknown_flag");
    assert_eq!(v["issues"][0]["path"], "--frobnicate");
    assert!(v["usage"].as_str().unwrap().contains("grep package"));
    assert!(!v["examples"].as_array().unwrap().is_empty());

    let (_, err, st) = ws.run("grep -A x error log.txt");
    assert_eq!(st, 1);
    let v: serde_json::Value = serde_json::from_str(&err).unwrap();
    assert_eq!(v["issues"][0]["path"], "afterContext");

    let (_, err, st) = ws.run("grep -E 'a(' log.txt");
    assert_eq!(st, 1);
    let v: serde_json::Value = serde_json::from_str(&err).unwrap();
    assert_eq!(v["issues"][0]["code"], "invalid_regex");

    let (_, err, st) = ws.run("grep");
    assert_eq!(st, 1);
    let v: serde_json::Value = serde_json::from_str(&err).unwrap();
    assert_eq!(v["issues"][0]["path"], "pattern");

    let (out, _, st) = ws.run("grep --help");
    assert_eq!(st, 0);
    assert!(
        out.contains("Usage: grep [-i") && out.contains("grep package serde"),
        "{out}"
    );

    // No index behind this shell: said plainly, never an empty "no match".
    let (_, err, st) = ws.run("grep code parser");
    assert_eq!(st, 2);
    assert!(err.contains("no code index"), "{err}");
}

#[test]
fn package_mode_reads_every_manifest_kind() {
    let mut ws = ws();
    ws.add(
        "Cargo.toml",
        "[package]\nname = \"demo\"\n\n[dependencies]\nserde = { version = \"1.0\", features = [\"derive\"] }\nserde_json = \"1\"\ntokio.workspace = true\n\n[dev-dependencies]\ntempfile = \"3\"\n",
    );
    ws.add(
        "Cargo.lock",
        "version = 4\n\n[[package]]\nname = \"demo\"\nversion = \"0.1.0\"\n\n[[package]]\nname = \"serde\"\nversion = \"1.0.229\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n",
    );
    ws.add(
        "web/package.json",
        r#"{"name": "web", "dependencies": {"react-dnd": "^16.0.0", "react": "^18"}, "devDependencies": {"vitest": "1.0.0"}}"#,
    );
    ws.add(
        "web/node_modules/x/package.json",
        r#"{"dependencies": {"hidden-dep": "1"}}"#,
    );
    ws.add(
        "py/pyproject.toml",
        "[project]\nname = \"p\"\ndependencies = [\"requests[socks]>=2.31\", \"django~=5.0\"]\n",
    );
    ws.add(
        "py/requirements-dev.txt",
        "pytest==8.0  # tests\n-r base.txt\n",
    );
    ws.add("go/go.mod", "module x\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0\n)\nrequire golang.org/x/sync v0.6.0\n");

    let (out, err, st) = ws.run("grep package serde");
    assert_eq!(st, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[0].starts_with("serde 1.0  (Cargo.toml:5 Cargo.toml [dependencies])"),
        "{out}"
    );
    assert!(out.contains("serde_json 1"), "{out}");
    assert!(out.contains("serde 1.0.229  (Cargo.lock:"), "{out}");

    let (out, _, st) = ws.run("grep package drag and drop dnd");
    assert_eq!(st, 0);
    assert!(
        out.starts_with("react-dnd ^16.0.0  (web/package.json:1 package.json dependencies)"),
        "{out}"
    );
    let (out, _, _) = ws.run("grep package requests");
    assert!(out.contains("requests >=2.31  (py/pyproject.toml"), "{out}");
    let (out, _, _) = ws.run("grep package pytest");
    assert!(
        out.contains("pytest ==8.0  (py/requirements-dev.txt:1"),
        "{out}"
    );
    let (out, _, _) = ws.run("grep package cobra");
    assert!(
        out.contains("github.com/spf13/cobra v1.8.0  (go/go.mod:4"),
        "{out}"
    );
    let (out, _, _) = ws.run("grep package tokio");
    assert!(out.contains("tokio (workspace)"), "{out}");
    let (out, err, st) = ws.run("grep package hidden-dep");
    assert_eq!(
        (out.as_str(), st),
        ("", 1),
        "installed packages are not declared ones"
    );
    assert!(err.contains("no declared dependency"), "{err}");
}

#[test]
fn skill_mode_ranks_markdown_sections() {
    let mut ws = ws();
    ws.add(
        "docs/release.md",
        "# Releasing\n\nIntro.\n\n## Publishing a release\n\nTag the commit, then run the publish script.\nThe release notes come from CHANGELOG.\n\n## Unrelated\n\nNothing here.\n",
    );
    ws.add(
        "README.md",
        "# Demo\n\nSee docs for the release process.\n\n```\n# not a heading\n```\n",
    );
    ws.add("notes.txt", "release release release\n");
    let (out, err, st) = ws.run("grep skill 'how to publish a release'");
    assert_eq!(st, 0, "{err}");
    let first = out.lines().next().unwrap();
    assert_eq!(
        first.split("  [").next().unwrap(),
        "docs/release.md:5  ## Publishing a release",
        "{out}"
    );
    assert!(out.contains("Tag the commit"), "{out}");
    assert!(!out.contains("notes.txt"), "{out}");
    assert!(!out.contains("not a heading"), "{out}");
    let (_, err, st) = ws.run("grep skill zebra");
    assert_eq!(st, 1);
    assert!(err.contains("Markdown"), "{err}");
}

/// A walk over many files searches them on several threads; the output is still in name
/// order, with GNU's `--` between context groups across files, and `-q`/`-l` stop early.
#[test]
fn parallel_walk_keeps_order_and_groups() {
    let mut ws = ws();
    let mut names = Vec::new();
    for i in 0..40 {
        let name = format!("many/f{i:02}.txt");
        let body = if i % 3 == 0 {
            format!("a{i}\nneedle {i}\nb{i}\nc{i}\nneedle again\n")
        } else {
            format!("nothing {i}\n")
        };
        ws.add(&name, &body);
        names.push(name);
    }
    let listed = names.join(" ");
    for flags in ["-n -A1", "-C1", "-c", "-l", "-L", "-o -n"] {
        let (out, err, st) = ws.run(&format!("grep -r {flags} needle many"));
        let (gout, gst) = ws.gnu(&format!("grep -H {flags} needle {listed}"));
        assert_eq!((out.as_str(), st), (gout.as_str(), gst), "{flags}: {err}");
    }
    let (out, _, st) = ws.run("grep -rq needle many; echo $?");
    assert_eq!((out.as_str(), st), ("0\n", 0));
    let (out, _, _) = ws.run("grep -r needle many | head -2");
    assert_eq!(out, "many/f00.txt:needle 0\nmany/f00.txt:needle again\n");
}
