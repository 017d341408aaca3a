//! Round trips over a WebSocket from a raw Rust client (no dependencies, no JSON parsing in
//! the loop), side by side in one run (issue 23, part 1):
//!   - the floor: a tokio-tungstenite echo (`crates/ultra-ws/examples/ws_echo.rs`), sent
//!     Ultra's request bytes;
//!   - Ultra: `ultra.getWorkspaceInfo` (or `--method`) over JSON-RPC text frames (`ultra
//!     serve` with its WebSocket on, its rate limit off, otherwise the default configuration: the audit log
//!     is on), after `auth.authenticate`.
//! Each placement is measured `--runs` times with the order rotating: unpinned, and pinned
//! (this client on CPU 0, every server thread on CPU 1, with `taskset -a -p`); in each,
//! with a client that blocks in `read` for the reply and with one that spins on a
//! non-blocking socket (see `rtt.rs`). Tables give the median over runs of each run's p50
//! and p99 (nearest rank).
//!
//! Build: `rustc -O --edition 2021 -o target/bench/ws_rtt bench/ws_rtt.rs` and
//! `cargo build --release -p ultra-ws --example ws_echo` (`bench/setup.sh` does both).
//! Run: `target/bench/ws_rtt [--n 20000] [--warmup 1000] [--runs 5]
//!      [--ultra target/release/ultra] [--echo target/release/examples/ws_echo]
//!      [--method ultra.getWorkspaceInfo]`

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

#[path = "rtt_common.rs"]
mod common;
use common::{median, options, percentile, pin, set, Spinning, Wait};

const TOKEN: &str = "bench-token-0123456789abcdef0123456789abcdef";

struct Args {
    n: usize,
    warmup: usize,
    runs: usize,
    ultra: PathBuf,
    echo: PathBuf,
    /// The method called (without parameters); the floor is sent the same bytes.
    method: String,
}

fn args() -> Args {
    let mut a = Args {
        n: 20_000,
        warmup: 1_000,
        runs: 5,
        ultra: PathBuf::from("target/release/ultra"),
        echo: PathBuf::from("target/release/examples/ws_echo"),
        method: "ultra.getWorkspaceInfo".into(),
    };
    let usage = "[--n N] [--warmup N] [--runs N] [--ultra PATH] [--echo PATH] [--method NAME]";
    options("ws_rtt", usage, |flag, value| match flag {
        "--n" => set(&mut a.n, value),
        "--warmup" => set(&mut a.warmup, value),
        "--runs" => set(&mut a.runs, value),
        "--ultra" => set(&mut a.ultra, value),
        "--echo" => set(&mut a.echo, value),
        "--method" => set(&mut a.method, value),
        _ => false,
    });
    a
}

fn fail(msg: String) -> ! {
    eprintln!("ws_rtt: {msg}");
    std::process::exit(1)
}

/// A client connection: the HTTP upgrade done, frames written masked, read unmasked.
struct Conn {
    w: Spinning<TcpStream>,
    r: BufReader<Spinning<TcpStream>>,
    frame: Vec<u8>,
    payload: Vec<u8>,
}

impl Conn {
    fn open(port: u16) -> Conn {
        let s = TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| fail(format!("connect: {e}")));
        s.set_nodelay(true).expect("nodelay");
        let mut w = Spinning(s.try_clone().expect("clone"));
        let mut r = BufReader::with_capacity(1 << 16, Spinning(s));
        write!(
            w,
            "GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
             Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
        )
        .expect("upgrade");
        let mut line = String::new();
        r.read_line(&mut line).expect("status");
        if !line.contains(" 101 ") {
            fail(format!("upgrade refused: {line}"));
        }
        loop {
            line.clear();
            r.read_line(&mut line).expect("header");
            if line == "\r\n" || line.is_empty() {
                break;
            }
        }
        Conn { w, r, frame: Vec::with_capacity(256), payload: Vec::with_capacity(4096) }
    }

    /// Send one text frame, masked (as every client frame must be).
    fn send(&mut self, text: &[u8]) {
        let mask = [0x5a, 0x17, 0xc3, 0x88];
        self.frame.clear();
        self.frame.push(0x81);
        match text.len() {
            n if n < 126 => self.frame.push(0x80 | n as u8),
            n if n < 65536 => {
                self.frame.push(0x80 | 126);
                self.frame.extend_from_slice(&(n as u16).to_be_bytes());
            }
            n => {
                self.frame.push(0x80 | 127);
                self.frame.extend_from_slice(&(n as u64).to_be_bytes());
            }
        }
        self.frame.extend_from_slice(&mask);
        self.frame.extend(text.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
        self.w.write_all(&self.frame).expect("write");
    }

    /// The next text frame's payload (pings and other control frames passed over).
    fn recv(&mut self) -> &[u8] {
        loop {
            let mut head = [0u8; 2];
            if self.r.read_exact(&mut head).is_err() {
                fail("the server closed the connection".into());
            }
            let len = match head[1] & 0x7f {
                126 => {
                    let mut b = [0u8; 2];
                    self.r.read_exact(&mut b).expect("length");
                    u16::from_be_bytes(b) as usize
                }
                127 => {
                    let mut b = [0u8; 8];
                    self.r.read_exact(&mut b).expect("length");
                    u64::from_be_bytes(b) as usize
                }
                n => n as usize,
            };
            self.payload.resize(len, 0);
            self.r.read_exact(&mut self.payload).expect("payload");
            match head[0] & 0x0f {
                0x1 if head[0] & 0x80 != 0 => return &self.payload,
                0x8 => fail("the server closed the connection".into()),
                _ => continue,
            }
        }
    }
}

struct Tool {
    name: &'static str,
    port: u16,
    pid: u32,
}

fn connect(tool: &Tool) -> Conn {
    let mut c = Conn::open(tool.port);
    if tool.name == "ultra" {
        let challenge = String::from_utf8_lossy(c.recv()).into_owned();
        let nonce = challenge
            .split("\"nonce\":\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .unwrap_or_else(|| fail(format!("no nonce in {challenge}")))
            .to_string();
        let auth = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":\"auth\",\"method\":\"auth.authenticate\",\"params\":{{\"token\":\"{TOKEN}\",\"nonce\":\"{nonce}\"}}}}"
        );
        c.send(auth.as_bytes());
        let reply = String::from_utf8_lossy(c.recv()).into_owned();
        if !reply.contains("\"authenticated\":true") {
            fail(format!("not authenticated: {reply}"));
        }
    }
    c
}

fn check(tool: &Tool, request: &[u8], reply: &[u8]) {
    let ok = if tool.name == "floor" {
        reply == request
    } else {
        reply.windows(9).any(|w| w == b"\"result\":")
    };
    if !ok {
        fail(format!("{}: unexpected reply {:?}", tool.name, String::from_utf8_lossy(reply)));
    }
}

/// One run: `n` timed calls after `warmup`, the client waiting as `wait` says; (p50, p99)
/// in µs.
fn latency(tool: &Tool, request: &[u8], warmup: usize, n: usize, wait: Wait) -> (f64, f64) {
    let mut c = connect(tool);
    c.w.0.set_nonblocking(wait == Wait::Spin).expect("nonblocking");
    let mut times = Vec::with_capacity(n);
    for i in 0..warmup + n {
        let t = Instant::now();
        c.send(request);
        let reply = c.recv();
        let dt = t.elapsed();
        if i == 0 || i % 997 == 0 {
            check(tool, request, reply);
        }
        if i >= warmup {
            times.push(dt.as_nanos() as u64);
        }
    }
    (percentile(&mut times, 0.50), percentile(&mut times, 0.99))
}

fn main() {
    let a = args();
    for (bin, hint) in [
        (&a.ultra, "cargo build --release -p ultra"),
        (&a.echo, "cargo build --release -p ultra-ws --example ws_echo"),
    ] {
        if !bin.exists() {
            eprintln!("ws_rtt: {} is missing ({hint})", bin.display());
            std::process::exit(2);
        }
    }
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cpus < 2 {
        fail("pinning needs 2 CPUs".into());
    }
    let all = format!("0-{}", cpus - 1);
    let tmp = std::env::temp_dir().join(format!("ultra-ws-rtt-{}", std::process::id()));
    let (ws, run, state) = (tmp.join("ws"), tmp.join("run"), tmp.join("state"));
    for d in [&ws, &run, &state] {
        std::fs::create_dir_all(d).expect("temp dir");
    }
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).expect("chmod");
    std::fs::write(ws.join("a.txt"), "hello\n").expect("write");
    // The per-connection rate limit (100 requests/s by default) would refuse a benchmark's
    // calls; everything else is the default.
    std::fs::write(
        ws.join("ultra.config.json"),
        format!("{{\"port\": 0, \"token\": \"{TOKEN}\", \"rateLimit\": {{\"enabled\": false}}}}"),
    )
    .expect("config");

    let mut ultra = Command::new(&a.ultra)
        .args(["serve", "--root"])
        .arg(&ws)
        .arg("--socket")
        .arg(run.join("ultra.sock"))
        .arg("--no-prompt")
        .env("XDG_STATE_HOME", &state)
        .env("XDG_RUNTIME_DIR", &run)
        .env_remove("ULTRA_SOCKET")
        .env_remove("ULTRA_TOKEN")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start ultra");
    // "websocket: ws://127.0.0.1:PORT" on stderr, then keep draining it.
    let mut err = BufReader::new(ultra.stderr.take().expect("stderr"));
    let mut line = String::new();
    let ultra_port = loop {
        line.clear();
        if err.read_line(&mut line).unwrap_or(0) == 0 {
            fail("ultra exited before its websocket listened".into());
        }
        if let Some(url) = line.split("websocket: ws://").nth(1) {
            let port = url.trim().rsplit(':').next().and_then(|p| p.split('/').next()).and_then(|p| p.parse().ok());
            break port.unwrap_or_else(|| fail(format!("no port in {line}")));
        }
    };
    std::thread::spawn(move || for _ in err.lines() {});

    let mut echo: Child = Command::new(&a.echo)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the echo");
    let mut out = BufReader::new(echo.stdout.take().expect("stdout"));
    line.clear();
    out.read_line(&mut line).expect("ready");
    let echo_port: u16 = line
        .trim()
        .strip_prefix("ready ")
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| fail(format!("echo said {line}")));

    let tools = [
        Tool { name: "floor", port: echo_port, pid: echo.id() },
        Tool { name: "ultra", port: ultra_port, pid: ultra.id() },
    ];
    let me = std::process::id();
    let request = format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"{}\"}}", a.method);
    println!(
        "## Round trips over a WebSocket (`target/bench/ws_rtt`, `{}`, n={} after {} warm-up, {} runs)\n",
        a.method, a.n, a.warmup, a.runs
    );
    println!("| placement | client | floor p50 | Ultra p50 | Ultra − floor | floor p99 | Ultra p99 |");
    println!("|---|---|---|---|---|---|---|");
    for placement in ["unpinned", "pinned"] {
        let (client, server) = if placement == "pinned" { ("0", "1") } else { (all.as_str(), all.as_str()) };
        pin(me, client);
        for t in &tools {
            pin(t.pid, server);
        }
        for (how, wait) in Wait::BOTH {
            let mut res: Vec<Vec<(f64, f64)>> = vec![Vec::new(), Vec::new()];
            for r in 0..a.runs {
                for k in 0..tools.len() {
                    let i = (k + r) % tools.len();
                    let (m, h) = latency(&tools[i], request.as_bytes(), a.warmup, a.n, wait);
                    eprintln!("{placement}, client {how}: {} p50 {m:.1} µs p99 {h:.1} µs", tools[i].name);
                    res[i].push((m, h));
                }
            }
            let m50: Vec<f64> = res.iter().map(|r| median(r.iter().map(|x| x.0).collect())).collect();
            let m99: Vec<f64> = res.iter().map(|r| median(r.iter().map(|x| x.1).collect())).collect();
            println!(
                "| {placement} | {how} | {:.1} µs | {:.1} µs | {:+.1} µs | {:.1} µs | {:.1} µs |",
                m50[0], m50[1], m50[1] - m50[0], m99[0], m99[1]
            );
        }
    }
    for mut c in [ultra, echo] {
        let _ = c.kill();
        let _ = c.wait();
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
