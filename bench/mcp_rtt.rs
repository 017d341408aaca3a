//! MCP over stdio next to the same command over the Unix socket, from a raw Rust client (no
//! Python and no JSON parsing in the loop), side by side in one run (issue 23, part 1):
//!   - `ultra mcp` on a pair of pipes: `tools/call` lines after `initialize`;
//!   - `ultra serve` on its socket: the command by its id, as a JSON-RPC 2.0 line.
//! Both clients write one line and read one line, so the difference is the MCP layer (rmcp's
//! framing and dispatch, the result as content blocks) and the pipe against the socket.
//!
//! Workspace: this repository, its code index built first (`ultra index`). Cases:
//! `get_lines` (lines 1-40 of a file) and `find_definition` (a struct). Each run times
//! `--n` calls per server, interleaved in rounds of 100, after `--warmup`; tables give the
//! median over `--runs` of each run's p50 and p99 (nearest rank). Unpinned.
//!
//! Build: `rustc -O --edition 2021 -o target/bench/mcp_rtt bench/mcp_rtt.rs` (`bench/setup.sh`
//! does it). Needs a release build of `ultra`.
//! Run: `target/bench/mcp_rtt [--n 4000] [--warmup 400] [--runs 5] [--ultra target/release/ultra]`

use std::io::{BufRead, BufReader, Write};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "rtt_common.rs"]
mod common;
use common::{median, options, percentile, set};

const CASES: [(&str, &str, &str); 2] = [
    (
        "get_lines",
        "code.getLines",
        r#"{"path":"crates/ultra-core/src/executor.rs","start":1,"end":40}"#,
    ),
    ("find_definition", "code.findDefinition", r#"{"symbol":"Executor"}"#),
];

struct Args {
    n: usize,
    warmup: usize,
    runs: usize,
    ultra: PathBuf,
}

fn args() -> Args {
    let mut a = Args { n: 4_000, warmup: 400, runs: 5, ultra: PathBuf::from("target/release/ultra") };
    let usage = "[--n N] [--warmup N] [--runs N] [--ultra PATH]";
    options("mcp_rtt", usage, |flag, value| match flag {
        "--n" => set(&mut a.n, value),
        "--warmup" => set(&mut a.warmup, value),
        "--runs" => set(&mut a.runs, value),
        "--ultra" => set(&mut a.ultra, value),
        _ => false,
    });
    a
}

/// A line client over any pair of streams.
struct Lines<W: Write, R: BufRead> {
    w: W,
    r: R,
    buf: Vec<u8>,
}

impl<W: Write, R: BufRead> Lines<W, R> {
    /// Send `line`, read one reply line (into `buf`).
    fn call(&mut self, line: &[u8]) -> &[u8] {
        self.w.write_all(line).expect("write");
        self.w.flush().expect("flush");
        self.buf.clear();
        if self.r.read_until(b'\n', &mut self.buf).unwrap_or(0) == 0 {
            eprintln!("mcp_rtt: the server closed the connection");
            std::process::exit(1);
        }
        &self.buf
    }
}

fn check(who: &str, reply: &[u8]) {
    let has = |s: &[u8]| reply.windows(s.len()).any(|w| w == s);
    if !has(b"\"result\":") || has(b"\"isError\":true") {
        eprintln!("mcp_rtt: {who}: unexpected reply {}", String::from_utf8_lossy(reply));
        std::process::exit(1);
    }
}

fn main() {
    let a = args();
    if !a.ultra.exists() {
        eprintln!("mcp_rtt: {} is missing (cargo build --release -p ultra)", a.ultra.display());
        std::process::exit(2);
    }
    let repo = std::env::current_dir().expect("cwd");
    if !repo.join("crates/ultra-core/src/executor.rs").exists() {
        eprintln!("mcp_rtt: run it from the repository's root");
        std::process::exit(2);
    }
    let tmp = std::env::temp_dir().join(format!("ultra-mcp-rtt-{}", std::process::id()));
    let (run, state) = (tmp.join("run"), tmp.join("state"));
    for d in [&run, &state] {
        std::fs::create_dir_all(d).expect("temp dir");
    }
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    let ultra = |args: &[&str]| {
        let mut c = Command::new(&a.ultra);
        c.arg("--root").arg(&repo).args(args);
        c.env("XDG_STATE_HOME", &state).env("XDG_RUNTIME_DIR", &run).env_remove("ULTRA_SOCKET");
        c
    };
    // Both servers start on the built index.
    let built = ultra(&["index"]).stdout(Stdio::null()).stderr(Stdio::null()).status();
    if !built.is_ok_and(|s| s.success()) {
        eprintln!("mcp_rtt: `ultra index` failed");
        std::process::exit(1);
    }

    let mut mcp_child: Child = ultra(&["mcp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start ultra mcp");
    let mut mcp: Lines<ChildStdin, BufReader<ChildStdout>> = Lines {
        w: mcp_child.stdin.take().expect("stdin"),
        r: BufReader::with_capacity(1 << 16, mcp_child.stdout.take().expect("stdout")),
        buf: Vec::new(),
    };
    let init = br#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcp_rtt","version":"1"}}}"#;
    check("initialize", mcp.call(&[init.as_slice(), b"\n"].concat()));
    mcp.w.write_all(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n").expect("write");

    let sock = run.join("s.sock");
    let mut serve_child = ultra(&["serve", "--socket"])
        .arg(&sock)
        .arg("--no-prompt")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start ultra serve");
    let mut ready = String::new();
    BufReader::new(serve_child.stdout.take().expect("stdout")).read_line(&mut ready).expect("ready");
    let t = Instant::now();
    let stream = loop {
        match UnixStream::connect(&sock) {
            Ok(s) => break s,
            Err(_) if t.elapsed() < Duration::from_secs(10) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => {
                eprintln!("mcp_rtt: cannot connect to {}: {e}", sock.display());
                std::process::exit(1);
            }
        }
    };
    let mut socket = Lines {
        w: stream.try_clone().expect("clone"),
        r: BufReader::with_capacity(1 << 16, stream),
        buf: Vec::new(),
    };

    println!(
        "## MCP stdio against the Unix socket (`target/bench/mcp_rtt`, n={} per server after {} warm-up, {} runs, unpinned)\n",
        a.n, a.warmup, a.runs
    );
    println!("| tool | MCP stdio p50 / p99 | socket p50 / p99 | p50 ratio |");
    println!("|---|---|---|---|");
    for (tool, command, args) in CASES {
        let mcp_line = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{{\"name\":\"{tool}\",\"arguments\":{args}}}}}\n"
        );
        let socket_line = format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"{command}\",\"params\":{args}}}\n");
        check(tool, mcp.call(mcp_line.as_bytes()));
        check(command, socket.call(socket_line.as_bytes()));
        let (mut m50, mut m99, mut s50, mut s99) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for run in 0..a.runs {
            let (mut tm, mut ts) = (Vec::with_capacity(a.n), Vec::with_capacity(a.n));
            let rounds = (a.warmup + a.n).div_ceil(100);
            for round in 0..rounds {
                // The order within a round alternates from run to run and round to round.
                for k in 0..2 {
                    let is_mcp = (k + run + round) % 2 == 0;
                    for _ in 0..100 {
                        let t = Instant::now();
                        if is_mcp {
                            mcp.call(mcp_line.as_bytes());
                        } else {
                            socket.call(socket_line.as_bytes());
                        }
                        let dt = t.elapsed().as_nanos() as u64;
                        if round * 100 >= a.warmup {
                            if is_mcp { tm.push(dt) } else { ts.push(dt) }
                        }
                    }
                }
            }
            check(tool, &mcp.buf);
            check(command, &socket.buf);
            m50.push(percentile(&mut tm, 0.5));
            m99.push(percentile(&mut tm, 0.99));
            s50.push(percentile(&mut ts, 0.5));
            s99.push(percentile(&mut ts, 0.99));
            eprintln!("{tool} run {}: mcp p50 {:.0} µs, socket p50 {:.0} µs", run + 1, m50[run], s50[run]);
        }
        let (m50, m99, s50, s99) = (median(m50), median(m99), median(s50), median(s99));
        println!("| {tool} | {m50:.0} / {m99:.0} µs | {s50:.0} / {s99:.0} µs | **{:.2}×** |", m50 / s50);
    }
    for mut c in [mcp_child, serve_child] {
        let _ = c.kill();
        let _ = c.wait();
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
