//! Round trips over a Unix socket from a raw Rust client (no Python in the loop), one
//! request at a time, side by side in one run (issue 23, part 1):
//!   - the floor: a Rust std line echo (`bench/echo.rs`), sent Ultra's request bytes;
//!   - Neovim's msgpack RPC: `nvim_eval("1")` (`nvim --headless --clean --listen`);
//!   - Ultra: `ultra.getWorkspaceInfo` over JSON-RPC lines (`ultra serve`, default
//!     configuration: the audit log is on).
//! Each placement is measured `--runs` times with the tools' order rotating: unpinned, and
//! pinned (this client on CPU 0, every server thread on CPU 1, with `taskset -a -p`); in
//! each, first with a client that blocks in `read` for the reply, then with one that spins
//! on a non-blocking socket, which leaves the client's own wake-up out of the figure.
//! Tables give the median over runs of each run's p50 and p99 (nearest rank), then
//! pipelined throughput (`--pipeline` requests written at once by a second thread).
//!
//! Build: `rustc -O --edition 2021 -o target/bench/rtt bench/rtt.rs` (no dependencies;
//! `bench/setup.sh` does it, with the echo server). Needs `nvim`, `taskset` and a release
//! build of `ultra`.
//! Run: `target/bench/rtt [--n 20000] [--warmup 1000] [--runs 5] [--pipeline 20000]
//!      [--ultra target/release/ultra] [--echo target/bench/echo]`

use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

#[path = "rtt_common.rs"]
mod common;
use common::{median, options, percentile, pin, set, Spinning, Wait};

struct Args {
    n: usize,
    warmup: usize,
    runs: usize,
    pipeline: usize,
    ultra: PathBuf,
    echo: PathBuf,
}

fn args() -> Args {
    let mut a = Args {
        n: 20_000,
        warmup: 1_000,
        runs: 5,
        pipeline: 20_000,
        ultra: PathBuf::from("target/release/ultra"),
        echo: PathBuf::from("target/bench/echo"),
    };
    let usage = "[--n N] [--warmup N] [--runs N] [--pipeline N] [--ultra PATH] [--echo PATH]";
    options("rtt", usage, |flag, value| match flag {
        "--n" => set(&mut a.n, value),
        "--warmup" => set(&mut a.warmup, value),
        "--runs" => set(&mut a.runs, value),
        "--pipeline" => set(&mut a.pipeline, value),
        "--ultra" => set(&mut a.ultra, value),
        "--echo" => set(&mut a.echo, value),
        _ => false,
    });
    a
}

/// How a tool's reply ends.
#[derive(Clone, Copy)]
enum Reply {
    /// One line.
    Line,
    /// Exactly these bytes (Neovim's `[1, 0, nil, 1]`: msgid 0 on every call).
    Exact(&'static [u8]),
}

struct Tool {
    name: &'static str,
    sock: PathBuf,
    request: Vec<u8>,
    reply: Reply,
    pid: u32,
}

const ULTRA_REQUEST: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ultra.getWorkspaceInfo\"}\n";
/// msgpack `[0, 0, "nvim_eval", ["1"]]`.
const NVIM_REQUEST: &[u8] = b"\x94\x00\x00\xa9nvim_eval\x91\xa11";
const NVIM_REPLY: &[u8] = b"\x94\x01\x00\xc0\x01";

/// Read one reply into `buf`; false at EOF.
fn read_reply<R: Read>(r: &mut BufReader<R>, kind: Reply, buf: &mut Vec<u8>) -> bool {
    buf.clear();
    match kind {
        Reply::Line => r.read_until(b'\n', buf).map(|n| n > 0).unwrap_or(false),
        Reply::Exact(bytes) => {
            buf.resize(bytes.len(), 0);
            r.read_exact(buf).is_ok()
        }
    }
}

fn check(tool: &Tool, reply: &[u8]) {
    let ok = match tool.reply {
        Reply::Exact(bytes) => reply == bytes,
        Reply::Line if tool.name == "floor" => reply == tool.request,
        Reply::Line => reply.windows(9).any(|w| w == b"\"result\":"),
    };
    if !ok {
        eprintln!("{}: unexpected reply {:?}", tool.name, String::from_utf8_lossy(reply));
        std::process::exit(1);
    }
}

/// One run: `n` timed calls after `warmup`, the client waiting as `wait` says; (p50, p99)
/// in µs.
fn latency(tool: &Tool, warmup: usize, n: usize, wait: Wait) -> (f64, f64) {
    let stream = UnixStream::connect(&tool.sock).expect("connect");
    stream.set_nonblocking(wait == Wait::Spin).expect("nonblocking");
    let w = Spinning(stream.try_clone().expect("clone"));
    timed(tool, w, BufReader::with_capacity(1 << 16, Spinning(stream)), warmup, n)
}

fn timed<W: Write, R: Read>(tool: &Tool, mut w: W, mut r: BufReader<R>, warmup: usize, n: usize) -> (f64, f64) {
    let mut buf = Vec::with_capacity(4096);
    let mut times = Vec::with_capacity(n);
    for i in 0..warmup + n {
        let t = Instant::now();
        w.write_all(&tool.request).expect("write");
        if !read_reply(&mut r, tool.reply, &mut buf) {
            eprintln!("{}: connection closed", tool.name);
            std::process::exit(1);
        }
        let dt = t.elapsed();
        if i == 0 || i % 997 == 0 {
            check(tool, &buf);
        }
        if i >= warmup {
            times.push(dt.as_nanos() as u64);
        }
    }
    (percentile(&mut times, 0.50), percentile(&mut times, 0.99))
}

/// `count` requests written at once by a second thread while this one reads the replies;
/// replies per second.
fn pipelined(tool: &Tool, count: usize) -> f64 {
    let stream = UnixStream::connect(&tool.sock).expect("connect");
    let mut w = stream.try_clone().expect("clone");
    let mut r = BufReader::with_capacity(1 << 16, stream);
    let blob: Vec<u8> = tool.request.repeat(count);
    let mut buf = Vec::new();
    let t = Instant::now();
    let writer = std::thread::spawn(move || w.write_all(&blob).expect("write"));
    for _ in 0..count {
        if !read_reply(&mut r, tool.reply, &mut buf) {
            eprintln!("{}: connection closed while pipelining", tool.name);
            std::process::exit(1);
        }
    }
    check(tool, &buf);
    let _ = writer.join();
    count as f64 / t.elapsed().as_secs_f64()
}

/// Pin this client to `client` and every thread of every server to `server`.
fn place(me: u32, tools: &[Tool], client: &str, server: &str) {
    pin(me, client);
    for t in tools {
        pin(t.pid, server);
    }
}

/// `measure` of every tool, `runs` times, the tools' order rotating from run to run (so
/// that the host's changing load hits them alike); per tool, its runs' results.
fn interleaved<T>(tools: &[Tool], runs: usize, mut measure: impl FnMut(&Tool) -> T) -> Vec<Vec<T>> {
    let mut out: Vec<Vec<T>> = tools.iter().map(|_| Vec::new()).collect();
    for run in 0..runs {
        for k in 0..tools.len() {
            let i = (k + run) % tools.len();
            out[i].push(measure(&tools[i]));
        }
    }
    out
}

/// Wait for a `ready` line on the child's stdout (Ultra and the echo print one).
fn wait_ready(child: &mut Child, name: &str) {
    let out = child.stdout.take().expect("stdout");
    let mut line = String::new();
    let mut r = BufReader::new(out);
    loop {
        line.clear();
        if r.read_line(&mut line).unwrap_or(0) == 0 {
            eprintln!("rtt: {name} exited before it was ready");
            std::process::exit(1);
        }
        if line.starts_with("ready") || line.contains("listening") {
            break;
        }
    }
    // Keep draining so the child never blocks on a full pipe.
    std::thread::spawn(move || for _ in r.lines() {});
}

fn wait_socket(sock: &Path) {
    let t = Instant::now();
    while UnixStream::connect(sock).is_err() {
        if t.elapsed() > Duration::from_secs(10) {
            eprintln!("rtt: {} never accepted", sock.display());
            std::process::exit(1);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn main() {
    let a = args();
    for (bin, hint) in [(&a.ultra, "cargo build --release -p ultra"), (&a.echo, "bench/setup.sh")] {
        if !bin.exists() {
            eprintln!("rtt: {} is missing ({hint})", bin.display());
            std::process::exit(2);
        }
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        eprintln!("rtt: pinning needs 2 CPUs");
        std::process::exit(2);
    }
    let all = format!("0-{}", cpus - 1);
    let tmp = std::env::temp_dir().join(format!("ultra-rtt-{}", std::process::id()));
    let (ws, run, state, home) = (tmp.join("ws"), tmp.join("run"), tmp.join("state"), tmp.join("home"));
    for d in [&ws, &run, &state, &home] {
        std::fs::create_dir_all(d).expect("temp dir");
    }
    // Ultra refuses a runtime directory others can enter.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    std::fs::write(ws.join("a.txt"), "hello\n").expect("write");
    let mut children: Vec<Child> = Vec::new();

    let sock = run.join("ultra.sock");
    let mut ultra = Command::new(&a.ultra)
        .args(["serve", "--root"])
        .arg(&ws)
        .arg("--socket")
        .arg(&sock)
        .arg("--no-prompt")
        .env("XDG_STATE_HOME", &state)
        .env("XDG_RUNTIME_DIR", &run)
        .env_remove("ULTRA_SOCKET")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start ultra");
    wait_ready(&mut ultra, "ultra");
    let ultra_tool = Tool {
        name: "ultra",
        sock,
        request: ULTRA_REQUEST.to_vec(),
        reply: Reply::Line,
        pid: ultra.id(),
    };
    children.push(ultra);

    let sock = run.join("nvim.sock");
    let nvim = Command::new("nvim")
        .args(["--headless", "--clean", "--listen"])
        .arg(&sock)
        .current_dir(&ws)
        .env("XDG_DATA_HOME", home.join("data"))
        .env("XDG_STATE_HOME", home.join("state"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start nvim (apt-get install neovim)");
    wait_socket(&sock);
    let nvim_tool = Tool {
        name: "nvim",
        sock,
        request: NVIM_REQUEST.to_vec(),
        reply: Reply::Exact(NVIM_REPLY),
        pid: nvim.id(),
    };
    children.push(nvim);

    let sock = run.join("echo.sock");
    let mut echo = Command::new(&a.echo)
        .arg(&sock)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start echo");
    wait_ready(&mut echo, "echo");
    let echo_tool = Tool {
        name: "floor",
        sock,
        request: ULTRA_REQUEST.to_vec(),
        reply: Reply::Line,
        pid: echo.id(),
    };
    children.push(echo);

    let tools = [echo_tool, nvim_tool, ultra_tool];
    let me = std::process::id();
    println!(
        "## Round trips over a Unix socket (`target/bench/rtt`, n={} after {} warm-up, {} runs)\n",
        a.n, a.warmup, a.runs
    );
    println!("| placement | client | floor p50 | Neovim p50 | Ultra p50 | Ultra − floor | floor p99 | Neovim p99 | Ultra p99 |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for placement in ["unpinned", "pinned"] {
        let (client_cpus, server_cpus) = if placement == "pinned" {
            ("0", "1")
        } else {
            (all.as_str(), all.as_str())
        };
        place(me, &tools, client_cpus, server_cpus);
        for (client, wait) in Wait::BOTH {
            let runs = interleaved(&tools, a.runs, |t| {
                let (m, h) = latency(t, a.warmup, a.n, wait);
                eprintln!("{placement}, client {client}: {} p50 {m:.1} µs p99 {h:.1} µs", t.name);
                (m, h)
            });
            let m50: Vec<f64> = runs.iter().map(|r| median(r.iter().map(|x| x.0).collect())).collect();
            let m99: Vec<f64> = runs.iter().map(|r| median(r.iter().map(|x| x.1).collect())).collect();
            println!(
                "| {placement} | {client} | {:.1} µs | {:.1} µs | {:.1} µs | {:+.1} µs | {:.1} µs | {:.1} µs | {:.1} µs |",
                m50[0], m50[1], m50[2], m50[2] - m50[0], m99[0], m99[1], m99[2]
            );
        }
    }
    place(me, &tools, &all, &all);
    println!("\n| pipelined ({} requests written at once, unpinned) | replies/s | vs floor |", a.pipeline);
    println!("|---|---|---|");
    let rates: Vec<f64> = interleaved(&tools, a.runs, |t| pipelined(t, a.pipeline))
        .into_iter()
        .map(median)
        .collect();
    for (t, r) in tools.iter().zip(&rates) {
        println!("| {} | {:.0} | {:.2}× |", t.name, r, r / rates[0]);
    }
    for mut c in children {
        let _ = c.kill();
        let _ = c.wait();
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
