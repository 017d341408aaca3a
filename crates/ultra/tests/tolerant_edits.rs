//! Tolerant edits never corrupt a file, through `ultra serve` over the socket: an anchor
//! found despite drifted indentation lands re-indented to the file (Python, YAML, Go,
//! Makefile, TSX, Rust, Markdown), CRLF and LF match each other and inserted text takes the
//! file's line endings (anchors, `edit_lines`, the shell's `replace` and `write`), a BOM
//! stays, and `sed` stays byte-exact.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns unwrap too

mod common;

use std::process::Stdio;

use common::{Server, Ws};
use serde_json::{Value, json};

/// A server that runs agents' edits without asking (the edits are what is tested here).
fn serve(ws: &Ws) -> Server {
    let mut cmd = ws.command();
    cmd.arg("serve")
        .arg("--socket")
        .arg(&ws.sock)
        .arg("--auto-apply")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    Server::spawn(cmd, ws.sock.clone())
}

fn anchor(c: &mut common::Conn, path: &str, old: &str, new: &str) -> Value {
    c.ok(
        "ultra.applyEdits",
        json!({ "files": [{ "path": path, "edits": [{ "old": old, "new": new, "whitespace": true }] }], "save": true }),
    )
}

struct Case {
    path: &'static str,
    file: &'static str,
    old: &'static str,
    new: &'static str,
    want: &'static str,
}

const CASES: &[Case] = &[
    Case {
        path: "app/models.py",
        file: "class User:\n    def name(self):\n        return self.first\n\n    def age(self):\n        return 3\n",
        old: "def name(self):\n    return self.first\n",
        new: "def name(self):\n    if self.nick:\n        return self.nick\n    return self.first\n",
        want: "class User:\n    def name(self):\n        if self.nick:\n            return self.nick\n        return self.first\n\n    def age(self):\n        return 3\n",
    },
    Case {
        path: ".github/workflows/ci.yml",
        file: "jobs:\n  test:\n    steps:\n      - uses: actions/checkout@v4\n      - run: make test\n",
        old: "- uses: actions/checkout@v4\n- run: make test\n",
        new: "- uses: actions/checkout@v4\n- run: make lint\n- run: make test\n",
        want: "jobs:\n  test:\n    steps:\n      - uses: actions/checkout@v4\n      - run: make lint\n      - run: make test\n",
    },
    Case {
        path: "main.go",
        file: "package main\n\nfunc main() {\n\tfor _, x := range xs {\n\t\tuse(x)\n\t}\n}\n",
        old: "    for _, x := range xs {\n        use(x)\n    }",
        new: "    for _, x := range xs {\n        if x == nil {\n            continue\n        }\n        use(x)\n    }",
        want: "package main\n\nfunc main() {\n\tfor _, x := range xs {\n\t\tif x == nil {\n\t\t\tcontinue\n\t\t}\n\t\tuse(x)\n\t}\n}\n",
    },
    Case {
        path: "Makefile",
        file: "build:\n\tcc -c a.c\n\tcc -o app a.o\n",
        old: "cc -c a.c\ncc -o app a.o",
        new: "cc -c a.c\ncc -c b.c\ncc -o app a.o b.o",
        want: "build:\n\tcc -c a.c\n\tcc -c b.c\n\tcc -o app a.o b.o\n",
    },
    Case {
        path: "src/View.tsx",
        file: "export function View() {\n  return (\n    <div>\n      <Title />\n    </div>\n  );\n}\n",
        old: "<div>\n  <Title />\n</div>",
        new: "<div>\n  <Title />\n  <Body />\n</div>",
        want: "export function View() {\n  return (\n    <div>\n      <Title />\n      <Body />\n    </div>\n  );\n}\n",
    },
    Case {
        path: "src/lib.rs",
        file: "impl Cache {\n    fn get(&self, k: &str) -> Option<&V> {\n        self.map.get(k)\n    }\n}\n",
        old: "fn get(&self, k: &str) -> Option<&V> {\n    self.map.get(k)\n}",
        new: "fn get(&self, k: &str) -> Option<&V> {\n    self.hits.set(self.hits.get() + 1);\n    self.map.get(k)\n}",
        want: "impl Cache {\n    fn get(&self, k: &str) -> Option<&V> {\n        self.hits.set(self.hits.get() + 1);\n        self.map.get(k)\n    }\n}\n",
    },
    Case {
        path: "README.md",
        file: "# Steps\n\n1. Install:\n\n   ```sh\n   make install\n   ```\n",
        old: "```sh\nmake install\n```",
        new: "```sh\nmake install\nmake check\n```",
        want: "# Steps\n\n1. Install:\n\n   ```sh\n   make install\n   make check\n   ```\n",
    },
];

#[test]
fn drifted_anchors_land_at_the_files_indentation() {
    let ws = Ws::new();
    for case in CASES {
        ws.write(case.path, case.file);
    }
    let _server = serve(&ws);
    let mut c = ws.agent("a");
    for case in CASES {
        let r = anchor(&mut c, case.path, case.old, case.new);
        assert_eq!(
            r["files"][0]["matchLevels"][0], "indentation",
            "{}: {r}",
            case.path
        );
        assert_eq!(ws.read(case.path), case.want, "{}", case.path);
    }
}

#[test]
fn line_endings_are_the_files() {
    let ws = Ws::new();
    ws.write("win.txt", "\u{feff}one\r\ntwo\r\nthree\r\n");
    ws.write("unix.txt", "one\ntwo\nthree\n");
    ws.write("lines.txt", "a\r\nb\r\nc\r\n");
    ws.write("shell.txt", "x\r\ny\r\n");
    ws.write("whole.txt", "p\r\nq\r\n");
    ws.write("sed.txt", "k\r\nl\r\n");
    let _server = serve(&ws);
    let mut c = ws.agent("a");

    // An LF anchor in a CRLF file: matched, reported, and the new lines are CRLF; the BOM stays.
    let r = c.ok(
        "ultra.applyEdits",
        json!({ "files": [{ "path": "win.txt", "edits": [{ "old": "two\nthree\n", "new": "2\n2.5\n3\n" }] }], "save": true }),
    );
    assert_eq!(r["files"][0]["matchLevels"][0], "lineEndings", "{r}");
    assert_eq!(ws.read("win.txt"), "\u{feff}one\r\n2\r\n2.5\r\n3\r\n");
    // An agent's CRLF in an LF file does not get in.
    c.ok(
        "ultra.applyEdits",
        json!({ "files": [{ "path": "unix.txt", "edits": [{ "old": "two\r\n", "new": "2\r\n2.5\r\n" }] }], "save": true }),
    );
    assert_eq!(ws.read("unix.txt"), "one\n2\n2.5\nthree\n");
    // edit_lines keeps CRLF.
    c.ok(
        "code.editLines",
        json!({ "path": "lines.txt", "start": 2, "end": 2, "content": "B\nB2" }),
    );
    assert_eq!(ws.read("lines.txt"), "a\r\nB\r\nB2\r\nc\r\n");
    // The shell's replace and write keep it too.
    let out = c.ok(
        "ultra.shell.run",
        json!({ "script": "replace shell.txt 'x\ny' 'x\nx2\ny'" }),
    );
    assert_eq!(out["exitCode"], 0, "{out}");
    assert_eq!(ws.read("shell.txt"), "x\r\nx2\r\ny\r\n");
    let out = c.ok(
        "ultra.shell.run",
        json!({ "script": "write whole.txt <<'EOF'\nP\nQ\nEOF" }),
    );
    assert_eq!(out["exitCode"], 0, "{out}");
    assert_eq!(ws.read("whole.txt"), "P\r\nQ\r\n");
    // sed is byte-exact, as GNU sed is: its `\n` insertion stays LF.
    let out = c.ok(
        "ultra.shell.run",
        json!({ "script": "sed -i 's/k/k\\nK/' sed.txt" }),
    );
    assert_eq!(out["exitCode"], 0, "{out}");
    assert_eq!(ws.read("sed.txt"), "k\nK\r\nl\r\n");
}
