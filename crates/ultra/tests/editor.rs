//! The terminal editor (`ultra FILES`), driven as a person drives it: the real binary in a
//! real terminal (tmux), keys sent with `send-keys`, the screen read with `capture-pane`;
//! agents on the real socket at the same time.

#![allow(clippy::unwrap_used)]

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use common::{BIN, DEADLINE, Ws};
use serde_json::json;

/// A tmux server of the test's own (its socket in the temp dir) running the editor.
struct Tmux {
    sock: PathBuf,
}

impl Tmux {
    /// Start `ultra ARGS` in a 100x30 terminal in the workspace.
    fn start(ws: &Ws, args: &[&str]) -> Tmux {
        let base = ws.base();
        let sock = base.join("tmux.sock");
        let mut line = format!(
            "cd '{}' && exec env XDG_STATE_HOME='{}' XDG_RUNTIME_DIR='{}' HOME='{}' TERM=xterm-256color '{}' --root '{}'",
            ws.root.display(),
            base.join("state").display(),
            base.join("run").display(),
            base.join("home").display(),
            BIN,
            ws.root.display()
        );
        for a in args {
            line.push_str(&format!(" '{a}'"));
        }
        line.push_str(&format!(" 2>'{}'", base.join("editor.err").display()));
        let t = Tmux { sock };
        t.tmux(&[
            "new-session",
            "-d",
            "-x",
            "100",
            "-y",
            "30",
            "-s",
            "ed",
            &line,
        ]);
        t
    }

    fn tmux(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&self.sock)
            .args(args)
            .output()
            .expect("tmux runs (apt-get install tmux)");
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The screen as text.
    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "ed"])
    }

    /// Wait until the screen satisfies `pred`; panics with the screen after the deadline.
    fn wait(&self, what: &str, pred: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.screen();
            if pred(&s) {
                return s;
            }
            assert!(
                start.elapsed() < DEADLINE * 2,
                "waited for {what}; the screen is:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Wait until the screen shows `text`.
    fn shows(&self, text: &str) -> String {
        self.wait(&format!("`{text}`"), |s| s.contains(text))
    }

    /// Press keys (tmux names: `C-s`, `Enter`, `Up`, `M-a`).
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "ed"];
        args.extend_from_slice(keys);
        self.tmux(&args);
    }

    /// Type text literally (as bytes: tmux would read a trailing `;` as its own).
    fn type_text(&self, text: &str) {
        let hex: Vec<String> = text.bytes().map(|b| format!("{b:02x}")).collect();
        let mut args = vec!["send-keys", "-t", "ed", "-H"];
        args.extend(hex.iter().map(String::as_str));
        self.tmux(&args);
    }

    /// Whether the editor is still running.
    fn running(&self) -> bool {
        self.tmux(&["list-sessions"]).contains("ed:")
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.sock)
            .arg("kill-server")
            .output();
    }
}

/// The status line (the second to last row).
fn status(screen: &str) -> String {
    let rows: Vec<&str> = screen.lines().collect();
    rows.get(rows.len().saturating_sub(2))
        .copied()
        .unwrap_or_default()
        .to_string()
}

const MAIN_RS: &str = "fn main() {\n    let x = 1;\n    println!(\"{x}\");\n}\n";

#[test]
fn opens_types_and_saves() {
    let ws = Ws::new();
    ws.write("src/main.rs", MAIN_RS);
    let t = Tmux::start(&ws, &["src/main.rs"]);
    let s = t.shows("println!");
    assert!(s.contains("    1 fn main() {"), "line numbers:\n{s}");
    assert!(status(&s).contains("src/main.rs"), "{s}");
    assert!(status(&s).contains("rust"), "{s}");
    assert!(status(&s).contains("Ln 1, Col 1"), "{s}");
    // Down, End, then a new line that keeps the indentation.
    t.keys(&["Down", "End", "Enter"]);
    t.type_text("let y = 2;");
    let s = t.shows("let y = 2;");
    assert!(s.contains("    3     let y = 2;"), "indented:\n{s}");
    assert!(status(&s).contains("●"), "dirty:\n{s}");
    assert!(status(&s).contains("last change: human"), "{s}");
    t.keys(&["C-s"]);
    t.wait("the dirty mark to go", |s| {
        !status(s).contains("●") && s.contains("let y = 2;")
    });
    assert_eq!(
        ws.read("src/main.rs"),
        "fn main() {\n    let x = 1;\n    let y = 2;\n    println!(\"{x}\");\n}\n"
    );
    // Backspace removes a character; undo puts it back.
    t.keys(&["BSpace"]);
    t.shows("let y = 2\n");
    t.keys(&["C-z"]);
    t.shows("let y = 2;");
    // Unsaved changes hold Ctrl+Q back; saved, it quits.
    t.keys(&["BSpace", "C-q"]);
    t.shows("BUFFER_DIRTY: unsaved changes in src/main.rs");
    t.keys(&["C-s", "C-q"]);
    t.wait("the editor to quit", |_| !t.running());
    assert!(ws.read("src/main.rs").contains("let y = 2\n"));
}

#[test]
fn highlighting_and_syntax_error_markers() {
    let ws = Ws::new();
    ws.write("src/lib.rs", "fn ok() {}\nfn bad( {\n");
    let t = Tmux::start(&ws, &["src/lib.rs"]);
    let s = t.shows("fn ok");
    assert!(
        s.contains("E    2 fn bad( {"),
        "error marker in the gutter:\n{s}"
    );
    // Colours are in the escape sequences: `fn` as a keyword.
    let colored = t.tmux(&["capture-pane", "-p", "-e", "-t", "ed"]);
    assert!(
        colored.contains("\u{1b}[35mfn") || colored.contains("\u{1b}[38;5;5mfn"),
        "keyword coloured magenta:\n{colored}"
    );
}

#[test]
fn palette_finds_commands_and_asks_for_arguments() {
    let ws = Ws::new();
    ws.write("a.txt", "one\ntwo\nthree\nfour\n");
    let t = Tmux::start(&ws, &["a.txt"]);
    t.shows("three");
    t.keys(&["C-p"]);
    t.shows("Commands");
    t.type_text("go to line");
    t.shows("ultra.goToLine");
    t.keys(&["Enter"]);
    // goToLine needs `line`: the editor asks for it from the command's schema.
    t.shows("line (Line (1-based))");
    t.type_text("x");
    t.keys(&["Enter"]);
    t.shows("line must be a whole number");
    t.keys(&["C-u"]);
    t.type_text("3");
    t.keys(&["Enter"]);
    t.wait("the cursor on line 3", |s| {
        status(s).contains("Ln 3, Col 1")
    });
    // Ctrl+G is goToLine's default key: the same prompt, no palette.
    t.keys(&["C-g"]);
    t.shows("line (Line (1-based))");
    t.type_text("4");
    t.keys(&["Enter"]);
    t.wait("line 4", |s| status(s).contains("Ln 4, Col 1"));
    // A query's answer opens in a panel.
    t.keys(&["C-p"]);
    t.type_text("inspect context keys");
    t.shows("ultra.inspectContextKeys");
    t.keys(&["Enter"]);
    let s = t.shows("editorLangId");
    assert!(s.contains("\"activeEditor\": \"a.txt\""), "{s}");
    assert!(s.contains("\"paletteOpen\": false"), "{s}");
    t.keys(&["Escape"]);
    t.wait("the panel to close", |s| !s.contains("editorLangId"));
}

#[test]
fn keybinding_overrides_from_config() {
    let ws = Ws::new();
    ws.config(json!({
        "keybindings": [
            { "key": "ctrl+e", "command": "ultra.cursorLineEnd" },
            { "command": "-ultra.save" },
            { "key": "ctrl+k", "command": "ultra.toggleSidebar", "when": "editorLangId == 'rust'" },
            { "key": "ctrl+k", "command": "ultra.toggleAgentPane", "when": "editorLangId != 'rust'" }
        ]
    }));
    ws.write("src/main.rs", MAIN_RS);
    ws.write("notes.txt", "plain\n");
    let t = Tmux::start(&ws, &["src/main.rs"]);
    t.shows("println!");
    t.keys(&["C-e"]);
    t.wait("the cursor at the end of line 1", |s| {
        status(s).contains("Ln 1, Col 12")
    });
    t.type_text("!");
    t.keys(&["C-s"]);
    t.shows("ctrl+s is not bound");
    assert_eq!(ws.read("src/main.rs"), MAIN_RS, "save was unbound");
    // The when-clause picks the binding by language.
    t.keys(&["C-k"]);
    t.shows("Files");
    t.keys(&["C-p"]);
    t.type_text("ultra.openFile");
    t.wait("openFile first", |s| {
        let rows: Vec<&str> = s.lines().collect();
        rows.iter()
            .position(|l| l.contains("> ultra.openFile"))
            .and_then(|i| rows.get(i + 1))
            .is_some_and(|l| l.contains("File: Open File"))
    });
    t.keys(&["Enter"]);
    t.shows("path");
    t.type_text("notes.txt");
    t.keys(&["Enter"]);
    t.wait("notes.txt active", |s| status(s).contains("notes.txt"));
    t.keys(&["C-k"]);
    t.shows("Agents");
}

#[test]
fn an_agent_edit_arrives_while_the_person_types() {
    let ws = Ws::new();
    ws.write("src/main.rs", MAIN_RS);
    // The editor hosts the workspace and serves its socket; the agent joins there.
    let sock = ws.sock.display().to_string();
    let t = Tmux::start(&ws, &["--socket", &sock, "src/main.rs"]);
    let s = t.shows("println!");
    assert!(status(&s).contains("hosting; agents join at"), "{s}");
    t.keys(&["M-a"]);
    t.shows("Agents");
    t.keys(&["C-End"]);
    t.type_text("// person");
    t.shows("// person");
    let mut agent = common::Conn::open(&ws.sock);
    agent.identify(json!({ "source": "ai", "agentId": "claude" }));
    agent.ok(
        "ultra.insertText",
        json!({ "path": "src/main.rs", "text": "// agent\n", "position": { "line": 0, "character": 0 } }),
    );
    // The line appears marked, and the agent pane says who changed what.
    let s = t.shows("▌    1 // agent");
    let s = if s.contains("claude changed src/main.rs:1-1") {
        s
    } else {
        t.shows("claude changed src/main.rs:1-1")
    };
    assert!(status(&s).contains("last change: ai claude"), "{s}");
    // The person keeps typing where their cursor is (it moved down with the agent's line).
    t.type_text(" more");
    let s = t.shows("// person more");
    assert!(s.contains("    6 // person more"), "{s}");
    // The person's undo takes back their own typing, not the agent's line.
    t.keys(&["C-z"]);
    let s = t.wait("the person's last typing undone", |s| {
        !s.contains("// person more")
    });
    assert!(s.contains("// agent"), "the agent's edit stays:\n{s}");
    let content = agent.ok("ultra.getFileContent", json!({ "path": "src/main.rs" }));
    assert!(
        content["content"]
            .as_str()
            .unwrap_or("")
            .starts_with("// agent\n")
    );
}

#[test]
fn attaches_to_a_running_server_and_approves_an_agents_edit() {
    let ws = Ws::new();
    ws.write("a.txt", "alpha\nbeta\ngamma\n");
    let _server = ws.serve();
    let sock = ws.sock.display().to_string();
    let t = Tmux::start(&ws, &["--socket", &sock, "a.txt"]);
    let s = t.shows("gamma");
    assert!(status(&s).contains("attached to"), "{s}");
    // The person's typing is in the server's buffer.
    t.type_text("X");
    t.shows("Xalpha");
    let mut agent = ws.agent("claude");
    let content = agent.ok("ultra.getFileContent", json!({ "path": "a.txt" }));
    assert_eq!(content["content"], "Xalpha\nbeta\ngamma\n");
    t.keys(&["C-s"]);
    t.wait("saved", |s| !status(s).contains("●"));
    // An agent's confirmed edit pops up with its diff; y approves it.
    let worker = std::thread::spawn(move || {
        agent.call(
            "code.editLines",
            json!({ "path": "a.txt", "start": 2, "end": 2, "content": "BETA" }),
        )
    });
    let s = t.shows("Approve?");
    assert!(s.contains("claude asks to run code.editLines"), "{s}");
    assert!(s.contains("-beta") && s.contains("+BETA"), "the diff:\n{s}");
    // y answers once the popup has been up a moment (not a y typed as it appeared).
    std::thread::sleep(Duration::from_millis(700));
    t.keys(&["y"]);
    let reply = worker.join().expect("agent thread");
    assert!(reply.get("error").is_none(), "approved: {reply}");
    t.shows("BETA");
    assert_eq!(ws.read("a.txt"), "Xalpha\nBETA\ngamma\n");
}

#[test]
fn an_agent_opens_the_palette_and_toggles_views() {
    let ws = Ws::new();
    ws.write("a.txt", "alpha\n");
    let _server = ws.serve();
    let sock = ws.sock.display().to_string();
    let t = Tmux::start(&ws, &["--socket", &sock, "a.txt"]);
    t.shows("alpha");
    let mut agent = ws.agent("claude");
    agent.ok("ultra.commandPalette", json!({ "query": "save all" }));
    let s = t.shows("> save all");
    assert!(s.contains("ultra.saveAll"), "{s}");
    // Enter does not run what an agent put first until the person chooses.
    t.keys(&["Enter"]);
    t.shows("an agent opened the palette");
    assert!(t.screen().contains("> save all"), "still open");
    t.keys(&["Escape"]);
    t.wait("the palette to close", |s| !s.contains("> save all"));
    agent.ok("ultra.splitView", json!({ "direction": "vertical" }));
    t.wait("two groups", |s| s.matches("alpha").count() >= 2);
    agent.ok(
        "ultra.ai.reportProgress",
        json!({ "message": "running tests", "step": 2, "totalSteps": 5 }),
    );
    let s = t.shows("running tests");
    assert!(status(&s).contains("claude [2/5]: running tests"), "{s}");
}

#[test]
fn without_a_terminal_the_editor_says_so() {
    let ws = Ws::new();
    ws.write("a.txt", "x\n");
    let out = ws.cli(&["a.txt"]);
    assert_eq!(out.code(), 2);
    assert!(
        out.stderr().contains("needs a terminal"),
        "{}",
        out.stderr()
    );
}

#[test]
fn the_terminal_panel_runs_a_shell_and_gives_keys_back() {
    let ws = Ws::new();
    ws.write("a.txt", "alpha\n");
    let t = Tmux::start(&ws, &["a.txt"]);
    t.shows("alpha");
    t.keys(&["M-t"]);
    t.shows("Terminal term-1");
    // Keys go to the shell now, Ctrl+U and all.
    t.type_text("echo one-$((40+2))");
    t.keys(&["Enter"]);
    t.shows("one-42");
    t.type_text("junk");
    t.keys(&["C-u"]);
    t.type_text("printf 'x%.0s' 1 2 3");
    t.keys(&["Enter"]);
    t.shows("xxx");
    assert_eq!(ws.read("a.txt"), "alpha\n", "nothing typed into the file");
    // Alt+J gives keys back to the editor.
    t.keys(&["M-j"]);
    t.type_text("B");
    t.shows("Balpha");
    // Hidden, the terminal lives on; shown again, its screen is still there.
    t.keys(&["M-t"]);
    t.wait("the panel to hide", |s| !s.contains("Terminal term-1"));
    t.keys(&["M-t"]);
    let s = t.shows("Terminal term-1");
    assert!(s.contains("one-42"), "{s}");
}

#[test]
fn multiple_cursors_find_replace_and_go_to_definition() {
    let ws = Ws::new();
    ws.write(
        "src/util.ts",
        "export function total(xs: number[]) {\n  return xs.length;\n}\n",
    );
    ws.write(
        "src/app.ts",
        "import { total } from './util';\nconst a = 1;\nconst b = a + a;\nconsole.log(total([b]));\n",
    );
    let t = Tmux::start(&ws, &["src/app.ts"]);
    t.shows("console.log");
    // Ctrl+D on `a` twice more: three cursors, typed over together.
    t.keys(&["C-g"]);
    t.type_text("2");
    t.keys(&[
        "Enter", "Right", "Right", "Right", "Right", "Right", "Right",
    ]);
    t.keys(&["C-d", "C-d", "C-d"]);
    t.wait("three cursors", |s| status(s).contains("3 cursors"));
    t.type_text("n");
    t.shows("const b = n + n;");
    assert!(t.screen().contains("const n = 1;"));
    // Find, then replace from the prompt.
    // (Escape alone: followed at once by another key, a terminal reads it as Alt.)
    t.keys(&["Escape"]);
    t.wait("one cursor", |s| !status(s).contains("cursors"));
    t.keys(&["C-f"]);
    t.shows("query");
    t.type_text("console");
    t.keys(&["Enter"]);
    t.wait("the match selected", |s| status(s).contains("Ln 4, Col 8"));
    t.keys(&["C-r"]);
    t.shows("search");
    t.type_text("console.log");
    t.keys(&["Enter"]);
    t.shows("replace");
    t.type_text("print");
    t.keys(&["Enter"]);
    t.shows("print(total([b]));");
    // F12 on `total` opens its definition from the index.
    t.keys(&[
        "End", "Left", "Left", "Left", "Left", "Left", "Left", "Left",
    ]);
    t.keys(&["F12"]);
    t.wait("util.ts active", |s| status(s).contains("src/util.ts"));
    assert!(
        status(&t.screen()).contains("Ln 1, Col 1"),
        "{}",
        t.screen()
    );
}

#[test]
fn up_and_down_keep_the_column_through_short_lines() {
    let ws = Ws::new();
    ws.write("a.txt", "a long first line\nab\nanother long line\n");
    let t = Tmux::start(&ws, &["a.txt"]);
    t.shows("another long line");
    t.keys(&["End"]);
    t.wait("end of line 1", |s| status(s).contains("Ln 1, Col 18"));
    t.keys(&["Down"]);
    t.wait("line 2, clamped", |s| status(s).contains("Ln 2, Col 3"));
    t.keys(&["Down"]);
    t.wait("line 3, back at column 18", |s| {
        status(s).contains("Ln 3, Col 18")
    });
    // Any other move forgets the goal.
    t.keys(&["Left", "Up", "Up"]);
    t.wait("line 1, column 17", |s| status(s).contains("Ln 1, Col 17"));
}

#[test]
fn files_open_from_the_sidebar() {
    let ws = Ws::new();
    ws.write("a.txt", "alpha\n");
    ws.write("b.txt", "bravo\n");
    let t = Tmux::start(&ws, &["a.txt"]);
    t.shows("alpha");
    t.keys(&["M-e"]);
    t.shows("Files (focus)");
    // Keys choose files now, they do not type.
    t.keys(&["Down", "x"]);
    t.keys(&["Enter"]);
    t.wait("b.txt open", |s| {
        status(s).contains("b.txt") && s.contains("bravo")
    });
    let s = t.screen();
    assert!(
        !s.contains("Files (focus)"),
        "focus back in the editor:\n{s}"
    );
    assert_eq!(ws.read("a.txt"), "alpha\n");
    t.type_text("B");
    t.shows("Bbravo");
}

#[test]
fn a_new_file_opens_empty_and_is_written_on_save() {
    let ws = Ws::new();
    let t = Tmux::start(&ws, &["notes/todo.md"]);
    let s = t.wait("the empty buffer", |s| status(s).contains("notes/todo.md"));
    assert!(
        !status(&s).contains("●"),
        "nothing typed, nothing to lose:\n{s}"
    );
    assert!(!ws.exists("notes"), "not written before a save");
    t.type_text("- [ ] write tests");
    t.shows("- [ ] write tests");
    t.keys(&["C-s"]);
    t.wait("saved", |s| !status(s).contains("●"));
    assert_eq!(ws.read("notes/todo.md"), "- [ ] write tests");
    // Ctrl+O asks for a path and opens it.
    ws.write("other.txt", "other\n");
    t.keys(&["C-o"]);
    t.shows("path");
    t.type_text("other.txt");
    t.keys(&["Enter"]);
    t.wait("other.txt open", |s| {
        status(s).contains("other.txt") && s.contains("other")
    });
}

#[test]
fn a_jump_far_down_a_long_line_scrolls_both_ways() {
    let ws = Ws::new();
    let mut text: String = (1..=200).map(|i| format!("line {i}\n")).collect();
    text.push_str(&format!("{}END\n", "x".repeat(300)));
    ws.write("long.txt", &text);
    let t = Tmux::start(&ws, &["long.txt"]);
    t.shows("line 1");
    // The end of the last line: 200 lines down and 300 columns right at once.
    t.keys(&["C-End", "Up", "End"]);
    let s = t.wait("the cursor at the end of line 201", |s| {
        status(s).contains("Ln 201, Col 304")
    });
    assert!(s.contains("xEND"), "scrolled right to the cursor:\n{s}");
}

#[test]
fn a_reopened_file_is_highlighted_from_its_new_text() {
    let ws = Ws::new();
    ws.write("a.rs", "fn a() {}\n");
    let _server = ws.serve();
    let mut c = ws.connect();
    let first_span = |c: &mut common::Conn| {
        c.ok("ultra.openFile", json!({ "path": "a.rs" }));
        let v = c.ok("ultra.getViewport", json!({ "height": 1 }));
        v["lines"][0]["spans"][0].clone()
    };
    assert_eq!(
        first_span(&mut c),
        json!({ "start": 0, "end": 2, "scope": "keyword" })
    );
    // Closed, changed on disk, opened again: version 1 once more, new text.
    c.ok("ultra.closeFile", json!({ "path": "a.rs" }));
    ws.write("a.rs", "const X: u8 = 1;\n");
    assert_eq!(
        first_span(&mut c),
        json!({ "start": 0, "end": 5, "scope": "keyword" })
    );
}
