//! Small requests that used to take the whole server down, through `ultra serve` over the
//! socket: each now gets a structured error (or a bounded answer) and the server keeps
//! serving every client.

#![allow(clippy::unwrap_used)] // test helpers outside #[test] fns unwrap too

mod common;

use common::Ws;
use serde_json::{Value, json};

fn nested(open: &str, mid: &str, close: &str, n: usize) -> String {
    format!("{}{mid}{}", open.repeat(n), close.repeat(n))
}

/// Fail if more than `secs` seconds passed since `t` (generous: a bound on runaway work,
/// not a benchmark).
fn assert_within(t: std::time::Instant, secs: u64) {
    let took = t.elapsed();
    assert!(took < std::time::Duration::from_secs(secs), "{took:?}");
}

/// The error's text, whatever shape carries it (an error, or a failed shell status).
fn refusal(r: &Value) -> String {
    if let Some(e) = r.get("error") {
        return e.to_string();
    }
    let res = &r["result"];
    assert_ne!(res["exitCode"], 0, "should have failed: {r}");
    res["stderr"].to_string()
}

#[test]
fn deep_nesting_and_huge_fields_are_refused_and_the_server_lives() {
    let ws = Ws::new();
    let mut server = ws.serve();
    let mut c = ws.agent("fuzz");
    let deep = 3000;
    let awk =
        |c: &mut common::Conn, program: String| c.call("shell.awk", json!({ "program": program }));
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "awk parentheses",
            awk(&mut c, format!("BEGIN{{print {}}}", nested("(", "1", ")", deep))),
            "nests deeper",
        ),
        (
            "awk blocks",
            awk(&mut c, format!("BEGIN{}", nested("{", "", "}", deep))),
            "nests deeper",
        ),
        (
            "awk assignments",
            awk(&mut c, format!("BEGIN{{{}1}}", "a=".repeat(deep))),
            "nests deeper",
        ),
        (
            "awk unary minus",
            awk(&mut c, format!("BEGIN{{x={}1}}", "- ".repeat(deep))),
            "nests deeper",
        ),
        (
            "awk field of field",
            awk(&mut c, format!("BEGIN{{x={}1}}", "$".repeat(deep))),
            "nests deeper",
        ),
        (
            "awk operator chain",
            awk(&mut c, format!("BEGIN{{print {}1}}", "1+".repeat(100_000))),
            "chains more than",
        ),
        (
            "awk sprintf width",
            awk(&mut c, "BEGIN{x=sprintf(\"%*s\", 2^40, \"\")}".into()),
            "over the limit",
        ),
        (
            "awk precision",
            awk(&mut c, "BEGIN{printf \"%.99999999f\", 1}".into()),
            "over the limit",
        ),
        (
            "printf width",
            c.call(
                "ultra.shell.run",
                json!({ "script": "printf '%*d' 9223372036854775807 ''" }),
            ),
            "over the limit",
        ),
        (
            "printf precision",
            c.call("ultra.shell.run", json!({ "script": "printf '%.99999999f' 1" })),
            "over the limit",
        ),
        (
            "awk in a pipeline",
            c.call(
                "ultra.shell.run",
                json!({ "script": format!("echo x | awk 'BEGIN{{print {}}}'", nested("(", "1", ")", deep)) }),
            ),
            "nests deeper",
        ),
    ];
    for (what, r, says) in cases {
        let text = refusal(&r);
        assert!(text.contains(says), "{what}: {text}");
    }
    // printf of multibyte text as a number: bash's answer, no panic.
    let r = c.ok("ultra.shell.run", json!({ "script": "printf '%.9f' é" }));
    assert_eq!(r["stdout"], "0.000000000");
    assert!(
        r["stderr"].as_str().unwrap().contains("invalid number"),
        "{r}"
    );
    // Deep but allowed nesting still works, on the server's worker threads and in a
    // pipeline stage.
    let r = c.ok(
        "shell.awk",
        json!({ "program": format!("BEGIN{{print {}}}", nested("(", "1", ")", 90)) }),
    );
    assert_eq!(r["stdout"], "1\n");
    let r = c.ok(
        "ultra.shell.run",
        json!({ "script": format!("echo x | awk 'BEGIN{{print {}}}'", nested("(", "2", ")", 90)) }),
    );
    assert_eq!(r["stdout"], "2\n", "{r}");
    // Deep JSON arguments are refused by the parser's own limit.
    let r = c.call(
        "ultra.getFileContent",
        json!({ "path": nested("[", "", "]", 1000) }),
    );
    assert!(r.get("error").is_some(), "{r}");
    assert!(server.alive(), "the server died");
    let mut other = ws.connect();
    other.ok("ultra.getWorkspaceInfo", json!({}));
}

/// A runaway loop in awk or sed stops at the call's time limit with an error, and the
/// server answers other clients meanwhile.
#[test]
fn runaway_loops_stop_at_the_time_limit() {
    let ws = Ws::new();
    let mut server = ws.serve();
    let mut c = ws.agent("loop");
    let t = std::time::Instant::now();
    for script in [
        "awk 'BEGIN{while(1);}'",
        "echo x | sed ':a;ba'",
        "awk 'BEGIN{for(;;) x++}'",
    ] {
        let r = c.ok(
            "ultra.shell.run",
            json!({ "script": script, "timeoutMs": 300 }),
        );
        assert_ne!(r["exitCode"], 0, "{script}: {r}");
        assert!(
            r["stderr"].as_str().unwrap().contains("time limit"),
            "{script}: {r}"
        );
    }
    assert_within(t, 10);
    assert!(server.alive());
}

/// The shell language's loops, recursion and substitutions stay inside the call's limits:
/// an endless loop ends at the time limit, one that prints ends at the output cap, recursion
/// is refused at a fixed depth (also when each call starts a pipeline), a variable that
/// doubles stops at its size limit. Each answer says why; the server lives on.
#[test]
fn shell_loops_and_recursion_stop_at_their_limits() {
    let ws = Ws::new();
    let mut server = ws.serve();
    let mut c = ws.agent("loops");
    let t = std::time::Instant::now();
    for script in [
        "while true; do :; done; echo never",
        "until false; do x=1; done",
        "for i in 1 2 3; do while :; do continue 2; done; done; while :; do break 0; done",
        "x=a; while true; do x=$x$x; done",
    ] {
        let r = c.ok(
            "ultra.shell.run",
            json!({ "script": script, "timeoutMs": 500 }),
        );
        assert_eq!(r["exitCode"], 124, "{script}: {r}");
        let err = r["stderr"].as_str().unwrap();
        assert!(err.contains("time limit"), "{script}: {r}");
        assert!(!r["stdout"].as_str().unwrap().contains("never"), "{r}");
    }
    // Printing forever ends at the output cap.
    let r = c.ok(
        "ultra.shell.run",
        json!({ "script": "while true; do echo y; done; echo never", "maxOutput": 1000, "timeoutMs": 20_000 }),
    );
    assert!(r["stdout"].as_str().unwrap().len() <= 1000, "{r}");
    assert!(!r["stdout"].as_str().unwrap().contains("never"), "{r}");
    assert_ne!(r["exitCode"], 0, "{r}");
    // Recursion without end is refused at a depth, then the script stops.
    let r = c.ok(
        "ultra.shell.run",
        json!({ "script": "f() { f; }; f; echo never", "timeoutMs": 20_000 }),
    );
    assert!(
        r["stderr"]
            .as_str()
            .unwrap()
            .contains("maximum function nesting level exceeded (100)"),
        "{r}"
    );
    assert!(!r["stdout"].as_str().unwrap().contains("never"), "{r}");
    // A recursive function in a pipeline, and in substitutions, stop too.
    for script in ["f() { f | f; }; f", "f() { echo $(f)$(f); }; f"] {
        let r = c.ok(
            "ultra.shell.run",
            json!({ "script": script, "timeoutMs": 2000 }),
        );
        assert_ne!(r["exitCode"], 0, "{script}: {r}");
    }
    assert_within(t, 40);
    assert!(server.alive());
    // The shell still works.
    let r = c.ok(
        "ultra.shell.run",
        json!({ "script": "for i in 1 2; do echo $i; done" }),
    );
    assert_eq!(r["stdout"], "1\n2\n", "{r}");
}

/// A client that pipelines many large reads and reads none of the answers holds a bounded
/// amount of the server's memory; the answers all arrive, whole, once it reads.
#[test]
fn unread_replies_are_bounded_in_bytes() {
    use std::io::{BufRead, Write};
    let ws = Ws::new();
    ws.write("big.txt", &format!("{}\n", "x".repeat(99)).repeat(20_000));
    let server = ws.serve();
    let rss = |pid: u32| status_kib(pid, "VmRSS") * 1024;
    let mut stream = std::os::unix::net::UnixStream::connect(&ws.sock).unwrap();
    let n = 150;
    let mut batch = String::new();
    for id in 1..=n {
        batch.push_str(
            &json!({ "jsonrpc": "2.0", "id": id, "method": "fs.readFile", "params": { "path": "big.txt" } })
                .to_string(),
        );
        batch.push('\n');
    }
    stream.write_all(batch.as_bytes()).unwrap();
    // Let the server work as far as the client lets it.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let held = rss(server.child.id());
    assert!(
        held < 400 << 20,
        "the server holds {} MiB of unread replies",
        held >> 20
    );
    let mut reader = std::io::BufReader::new(stream);
    let mut line = String::new();
    for id in 1..=n {
        line.clear();
        reader.read_line(&mut line).unwrap();
        // Whole lines in order (parsing 300 MB of JSON would make this test slow).
        assert!(
            line.ends_with("}\n") && line.len() > 2_000_000,
            "reply {id}: {} bytes",
            line.len()
        );
        assert!(
            line.contains(&format!("\"id\":{id},")) || line.contains(&format!("\"id\":{id}}}")),
            "reply {id}"
        );
    }
}

/// `ultra.ai.getContext` gathers at most 200 files a call, each at most 1 MiB: a request
/// naming 100,000 paths is refused with the limit instead of being gathered.
#[test]
fn context_requests_are_bounded() {
    let ws = Ws::new();
    ws.write("a.txt", "a\n");
    let _server = ws.serve();
    let mut c = ws.agent("ctx");
    let paths: Vec<String> = (0..100_000).map(|i| format!("f{i}.txt")).collect();
    let e = c.err_code(
        "ultra.ai.getContext",
        json!({ "paths": paths }),
        "INVALID_ARGUMENTS",
    );
    assert_eq!(e["data"]["details"]["limit"], 200, "{e}");
    let ok = c.ok(
        "ultra.ai.getContext",
        json!({ "paths": ["a.txt"], "maxCharsPerFile": u64::MAX }),
    );
    assert!(ok.to_string().contains("a\\n"), "{ok}");
}

/// `replace` with a huge `old`: not found answers at once (no regex is built from it for
/// the whitespace hint), and asking for whitespace tolerance on it is refused.
#[test]
fn a_huge_replace_anchor_is_cheap() {
    let ws = Ws::new();
    ws.write("a.txt", "hello world\n");
    let _server = ws.serve();
    let mut c = ws.agent("rep");
    let old: String = (0..150_000).map(|i| format!("w{i} ")).collect();
    let t = std::time::Instant::now();
    let r = c.call(
        "shell.replace",
        json!({ "file": "a.txt", "old": old, "new": "x" }),
    );
    assert!(refusal(&r).contains("not found"), "{}", refusal(&r));
    let r = c.call(
        "shell.replace",
        json!({ "file": "a.txt", "old": old, "new": "x", "whitespace": true }),
    );
    assert!(
        refusal(&r).contains("whitespace-tolerant matching takes at most"),
        "{}",
        refusal(&r)
    );
    assert_within(t, 10);
    assert_eq!(ws.read("a.txt"), "hello world\n");
}

/// A process's memory figure from `/proc/PID/status` (`VmRSS`, `VmHWM`: the peak), in KiB.
fn status_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status
        .lines()
        .find(|l| l.strip_prefix(field).is_some_and(|r| r.starts_with(':')))
        .unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
}

/// Small requests whose output multiplies (a one-byte pattern replaced by 64 KiB, a string
/// doubled in a loop) are stopped at a limit with an error instead of growing the server
/// until an allocation fails and takes every client down; nothing is written.
#[test]
fn multiplying_requests_stop_at_a_limit() {
    let ws = Ws::new();
    let line = format!("{}\n", "a".repeat(5_000));
    ws.write("a.txt", &line);
    let mut server = ws.serve();
    let mut c = ws.agent("grow");
    let long = "x".repeat(64 * 1024);
    // Edits: refused whole with TOO_LARGE before any of the new text is built.
    let e = c.err_code(
        "search.findAndReplace",
        json!({ "query": "a", "replacement": long }),
        "TOO_LARGE",
    );
    assert_eq!(e["data"]["details"]["limit"], 256 << 20, "{e}");
    let e = c.err_code(
        "ultra.applyEdits",
        json!({ "files": [{ "path": "a.txt", "edits": [{ "old": "a", "new": long, "replaceAll": true }] }] }),
        "TOO_LARGE",
    );
    assert!(
        e["data"]["suggestion"]
            .as_str()
            .unwrap()
            .contains("smaller batches"),
        "{e}"
    );
    // Regex replacements count what each expansion really adds.
    let ok = c.ok(
        "search.findAndReplace",
        json!({ "query": "(a+)", "replacement": "$1$1", "options": { "useRegex": true } }),
    );
    assert_eq!(ok["count"], 1, "{ok}");
    assert_eq!(ws.read("a.txt"), format!("{}\n", "a".repeat(10_000)));
    c.ok("ultra.undo", json!({ "txnId": ok["txnId"] }));
    c.ok("ultra.saveAll", json!({}));
    // The shell: refused with its memory limit named, exit status non-zero.
    let mut shell = |script: String| {
        let r = c.ok("ultra.shell.run", json!({ "script": script }));
        assert_ne!(r["exitCode"], 0, "{r}");
        r["stderr"].as_str().unwrap().to_string()
    };
    let x64k = "x".repeat(60_000);
    for (script, says) in [
        (format!("sed -n 's/a/{x64k}/gp' a.txt"), "memory limit"),
        (
            format!("awk '{{ gsub(/a/, \"{x64k}\"); print length($0) }}' a.txt"),
            "memory limit",
        ),
        (
            "awk 'BEGIN { s = \"ab\"; for (i = 0; i < 40; i++) s = s s; print length(s) }'"
                .to_string(),
            "memory limit",
        ),
        (format!("replace --all a.txt a {x64k}"), "memory limit"),
    ] {
        let err = shell(script.clone());
        assert!(err.contains(says), "{}: {err}", &script[..40]);
    }
    // Shell variables: a doubled variable stops at 1 MiB (sessions keep them), and words
    // that repeat one stop at 16 MiB per command.
    let doubled = format!("x=ab; {}", "x=$x$x; ".repeat(40));
    let r = c.ok(
        "ultra.shell.run",
        json!({ "script": format!("{doubled} echo $x | wc -c"), "session": "s" }),
    );
    assert_eq!(r["stdout"], "1048577\n", "{r}");
    assert!(
        r["stderr"]
            .as_str()
            .unwrap()
            .contains("limit for a variable"),
        "{r}"
    );
    let r = c.ok(
        "ultra.shell.run",
        json!({ "script": format!("echo {} | wc -c", "$x ".repeat(100)), "session": "s" }),
    );
    assert!(
        r["stderr"]
            .as_str()
            .unwrap()
            .contains("limit for one command"),
        "{r}"
    );
    let r = c.ok(
        "ultra.shell.run",
        json!({ "script": format!("cat <<EOF | wc -c\n{}\nEOF", "$x$x\n".repeat(20)), "session": "s" }),
    );
    assert!(
        r["stderr"].as_str().unwrap().contains("here-document"),
        "{r}"
    );
    assert_eq!(ws.read("a.txt"), line, "nothing was written");
    // What used to need many GB stayed within a few.
    let peak = status_kib(server.child.id(), "VmHWM") >> 10;
    assert!(peak < 3 << 10, "the server peaked at {peak} MiB");
    // A long UI array is refused by the window budget.
    c.ok("window.create", json!({ "id": "w", "title": "t" }));
    c.ok(
        "component.render",
        json!({ "id": "l", "windowId": "w", "target": "root", "type": "list", "props": { "items": ["a"] } }),
    );
    let items: Vec<u64> = (0..100_000).collect();
    let e = c.err_code(
        "component.update",
        json!({ "id": "l", "props": { "items": items } }),
        "INVALID_ARGUMENTS",
    );
    assert!(e["message"].as_str().unwrap().contains("too much"), "{e}");
    assert!(server.alive());
}

/// Appending to a string in a loop is linear (in place, as gawk does), not quadratic.
#[test]
fn awk_appends_in_place() {
    let ws = Ws::new();
    let _server = ws.serve();
    let mut c = ws.agent("append");
    let r = c.ok(
        "ultra.shell.run",
        json!({ "script": "awk 'BEGIN { while (i++ < 1000000) s = s \"x\"; print length(s) }'", "timeoutMs": 30_000 }),
    );
    assert_eq!(r["stdout"], "1000000\n", "{r}");
}

/// An endless producer in a pipeline stops at the call's time limit: the pipe closes, the
/// consumer finishes with what it got, and the answer says why.
#[test]
fn an_endless_pipeline_stops_at_the_time_limit() {
    let ws = Ws::new();
    let mut server = ws.serve();
    let mut c = ws.agent("pipe");
    let t = std::time::Instant::now();
    let r = c.ok(
        "ultra.shell.run",
        json!({ "script": "seq 1 100000000000 | tail -n 1; echo never", "timeoutMs": 1000 }),
    );
    assert_eq!(r["exitCode"], 124, "{r}");
    let err = r["stderr"].as_str().unwrap();
    assert!(err.contains("time limit"), "{r}");
    let out = r["stdout"].as_str().unwrap();
    assert!(!out.contains("never"), "nothing runs after the limit: {r}");
    assert_within(t, 30);
    assert!(server.alive());
}

/// A command that works for seconds (staging 10,000 paths) does not hold other
/// connections: a read on another connection is answered while it runs.
#[test]
fn a_long_command_does_not_hold_other_connections() {
    let ws = Ws::new();
    common::git(&ws, &["init", "-q"]);
    for i in 0..100 {
        ws.write(&format!("f{i}.txt"), "x\n");
    }
    let _server = ws.serve();
    // Long enough to overlap the read (seconds against its 100 ms head start), short
    // enough for the client's 10 s deadline on a loaded machine: 10,000 paths took 5-8 s
    // alone on 2 vCPUs and over 10 s beside the rest of the suite.
    let paths: Vec<String> = (0..4_000).map(|i| format!("f{}.txt", i % 100)).collect();
    let mut slow = ws.agent("slow");
    let stage = std::thread::spawn(move || {
        slow.ok("git.stage", json!({ "files": paths }));
        std::time::Instant::now()
    });
    let mut fast = ws.agent("fast");
    std::thread::sleep(std::time::Duration::from_millis(100));
    let read = fast.ok("ultra.getFileContent", json!({ "path": "f1.txt" }));
    let answered = std::time::Instant::now();
    assert!(read.to_string().contains("x\\n"), "{read}");
    let staged = stage.join().unwrap();
    assert!(
        answered < staged,
        "the read waited {:?} for the stage to finish",
        answered - staged
    );
}

/// Many matches on one long line (a minified file) cost one pass over the line, and each
/// match's columns are exact (counted in characters, this client's position encoding).
#[test]
fn matches_on_one_long_line_are_found_in_one_pass() {
    let ws = Ws::new();
    let unit = "é😀a";
    ws.write("min.js", &format!("{}\n", unit.repeat(30_000)));
    let _server = ws.serve();
    let mut c = ws.agent("min");
    let t = std::time::Instant::now();
    let r = c.ok(
        "search.findInFiles",
        json!({ "query": "a", "options": { "maxResults": 100_000 } }),
    );
    let matches = r["results"][0]["matches"].as_array().unwrap();
    assert_eq!(matches.len(), 30_000);
    let last = &matches[29_999]["range"];
    // Each unit is three characters; the last `a` is the third of the last unit.
    assert_eq!(last["start"]["character"], 29_999 * 3 + 2, "{last}");
    assert_eq!(last["end"]["character"], 29_999 * 3 + 3, "{last}");
    assert_eq!(
        matches[0]["preview"].as_str().unwrap().chars().count(),
        200,
        "previews stay short"
    );
    assert_within(t, 30);
}
