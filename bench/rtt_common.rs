//! What the raw round-trip clients share (`rtt.rs`, `ws_rtt.rs`, `mcp_rtt.rs`, each built
//! alone with `rustc`, which finds this file through `#[path]`).

#![allow(dead_code)]

use std::io::{ErrorKind, Read, Write};
use std::process::{Command, Stdio};
use std::str::FromStr;

/// The nearest-rank percentile `p` (0..1) of `times` (ns), in µs.
pub fn percentile(times: &mut [u64], p: f64) -> f64 {
    times.sort_unstable();
    times[((p * times.len() as f64).ceil() as usize).clamp(1, times.len()) - 1] as f64 / 1e3
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// How a client waits for a reply. Blocking, a round trip includes waking the client as
/// well as the server; spinning on a non-blocking socket (as sockperf's and netperf's
/// busy-poll modes do), only the server's wake-up and work are in it.
#[derive(Clone, Copy, PartialEq)]
pub enum Wait {
    Block,
    Spin,
}

impl Wait {
    pub const BOTH: [(&'static str, Wait); 2] = [("blocks", Wait::Block), ("spins", Wait::Spin)];
}

/// A stream that retries instead of blocking: with `Wait::Spin` its socket is put in
/// non-blocking mode and every read and write spins on `WouldBlock`.
pub struct Spinning<S>(pub S);

impl<S: Read> Read for Spinning<S> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == ErrorKind::WouldBlock => std::hint::spin_loop(),
                r => return r,
            }
        }
    }
}

impl<S: Write> Write for Spinning<S> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        loop {
            match self.0.write(buf) {
                Err(e) if e.kind() == ErrorKind::WouldBlock => std::hint::spin_loop(),
                r => return r,
            }
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Pin every thread of `pid` to `cpus` (`taskset -a -p -c`); exits when taskset fails.
pub fn pin(pid: u32, cpus: &str) {
    let ok = Command::new("taskset")
        .args(["-a", "-p", "-c", cpus, &pid.to_string()])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        eprintln!("taskset failed for {pid}");
        std::process::exit(1);
    }
}

/// Read `--flag value` pairs from the command line with `set`, which says whether it took
/// the pair; on a flag it does not know, a missing or unreadable value, print `usage`
/// (`tool` and its flags) and exit 2.
pub fn options(tool: &str, usage: &str, mut set: impl FnMut(&str, &str) -> bool) {
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        if !it.next().is_some_and(|value| set(&flag, &value)) {
            eprintln!("{tool}: bad or incomplete option {flag}\nusage: {tool} {usage}");
            std::process::exit(2);
        }
    }
}

/// Parse `value` into `slot`, for [`options`]: false when it does not parse.
pub fn set<T: FromStr>(slot: &mut T, value: &str) -> bool {
    value.parse().map(|v| *slot = v).is_ok()
}
