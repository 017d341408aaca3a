#!/usr/bin/env python3
"""The terminal editor next to Neovim, in one run (issue 9).

Both editors run in a real pseudo-terminal (100x30, TERM=xterm-256color) on the same files;
the harness types keys into it and times what the terminal receives:

- startup to first paint: from spawn to the last byte of the first screen (the output
  goes quiet for --quiet-start ms and the file's first line is on it);
- key press to screen update: from writing a key to the last byte of the screen update
  it causes (the output then stays quiet for --quiet ms), p50 and p99, for a cursor move
  (Down) and a typed character, on a 10k-line Rust file with highlighting and on a
  100 MB text file.

Files are real code from the package registry: rmcp 3.11.0's src/transport/auth.rs
(11,313 lines; rmcp is in Ultra's Cargo.lock, so `cargo fetch` brings it), and for the
100 MB file that text repeated. Ultra runs `ultra FILE` (hosting the workspace in the
editor process, its default); Neovim runs `nvim --clean FILE` (syntax highlighting on,
as by default). Each measurement is repeated --repeat times, the tools' order rotating;
tables show medians of the runs.

    bench/setup.sh && python3 bench/editor_bench.py
"""

import argparse
import fcntl
import json
import os
import pty
import re
import select
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ROWS, COLS = 30, 100
ANSI = re.compile(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07]*\x07")


def registry_file(crate, version, rel):
    meta = json.loads(
        subprocess.check_output(
            ["cargo", "metadata", "--format-version", "1", "--locked"], cwd=ROOT
        )
    )
    for p in meta["packages"]:
        if p["name"] == crate and p["version"] == version:
            return Path(p["manifest_path"]).parent / rel
    sys.exit(f"{crate} {version} is not in Cargo.lock")


class Term:
    """A program in a pseudo-terminal."""

    def __init__(self, argv, cwd, env):
        self.t0 = time.perf_counter()
        pid, fd = pty.fork()
        if pid == 0:
            fcntl.ioctl(1, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
            os.chdir(cwd)
            os.execvpe(argv[0], argv, env)
        self.pid, self.fd = pid, fd
        self.seen = b""

    def settle(self, quiet_s, limit_s=60.0):
        """Read until nothing arrives for quiet_s; return the time of the last byte."""
        last = None
        start = time.perf_counter()
        while True:
            r, _, _ = select.select([self.fd], [], [], quiet_s)
            now = time.perf_counter()
            if not r:
                if last is not None:
                    return last
                if now - start > limit_s:
                    raise TimeoutError("no output")
                continue
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError:
                return last
            if not data:
                return last
            self.seen = (self.seen + data)[-(1 << 20):]
            last = now
            if now - start > limit_s:
                raise TimeoutError("output never went quiet")

    def text(self):
        return ANSI.sub(b"", self.seen).decode("utf-8", "replace")

    def key(self, data, quiet_s):
        t = time.perf_counter()
        os.write(self.fd, data)
        last = self.settle(quiet_s, limit_s=10.0)
        if last is None:
            raise RuntimeError("the key changed nothing on screen")
        return last - t

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            os.waitpid(self.pid, 0)
        except ChildProcessError:
            pass
        os.close(self.fd)


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(p / 100 * len(xs) + 0.5)) - 1))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ultra", default=str(ROOT / "target/release/ultra"))
    ap.add_argument("--nvim", default=shutil.which("nvim") or "nvim")
    ap.add_argument("--keys", type=int, default=150, help="timed presses per run")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--starts", type=int, default=5, help="timed startups per tool and run")
    ap.add_argument("--quiet", type=float, default=40.0, help="ms of silence that ends an update")
    ap.add_argument("--quiet-start", type=float, default=300.0, help="ms of silence that ends the first paint")
    ap.add_argument("--big-bytes", type=int, default=100_000_000)
    ap.add_argument("--json", help="write the raw numbers here")
    a = ap.parse_args()

    src = registry_file("rmcp", "3.11.0", "src/transport/auth.rs").read_bytes()
    tmp = Path(tempfile.mkdtemp(prefix="ultra-editor-bench-"))
    # Two workspaces, so that indexing the 100 MB file is no part of the startup timed on
    # the code file.
    ws = tmp / "ws"
    wsb = tmp / "wsb"
    for w in (ws, wsb):
        (w / ".git").mkdir(parents=True)
    for d in ["state", "run", "home", "nvim"]:
        (tmp / d).mkdir()
    code = ws / "auth.rs"
    code.write_bytes(src)
    big = wsb / "big.txt"
    with open(big, "wb") as f:
        left = a.big_bytes
        while left > 0:
            f.write(src[:left])
            left -= len(src)
    lines10k = src.count(b"\n")
    first = src.split(b"\n")[0].decode()[:20]
    env = dict(os.environ, TERM="xterm-256color", HOME=str(tmp / "home"),
               XDG_STATE_HOME=str(tmp / "state"), XDG_RUNTIME_DIR=str(tmp / "run"),
               XDG_CONFIG_HOME=str(tmp / "nvim"), XDG_DATA_HOME=str(tmp / "nvim"))
    env.pop("ULTRA_SOCKET", None)
    tools = {
        "ultra": lambda f: [a.ultra, f.name],
        "nvim": lambda f: [a.nvim, "--clean", "-n", f.name],
    }
    keys = {
        # (setup bytes, timed key)
        "down": {"ultra": (b"", b"\x1b[B"), "nvim": (b"", b"\x1b[B")},
        "type": {"ultra": (b"", b"x"), "nvim": (b"i", b"x")},
    }
    print(f"files: auth.rs {len(src):,} B {lines10k:,} lines; big.txt {big.stat().st_size:,} B", flush=True)
    results = {}
    quiet = a.quiet / 1000
    for rep in range(a.repeat):
        order = list(tools) if rep % 2 == 0 else list(reversed(tools))
        for tool in order:
            starts = []
            for _ in range(a.starts):
                t = Term(tools[tool](code), ws, env)
                last = t.settle(a.quiet_start / 1000)
                if first.split()[0] not in t.text():
                    raise SystemExit(f"{tool}: the first line is not on screen:\n{t.text()[-2000:]}")
                starts.append(last - t.t0)
                t.close()
            results.setdefault(("start", "10k", tool), []).append(statistics.median(starts))
            print(f"run {rep + 1} {tool}: startup median {statistics.median(starts) * 1000:.1f} ms", flush=True)
            for fname, f in [("10k", code), ("100MB", big)]:
                for kname, spec in keys.items():
                    t = Term(tools[tool](f), f.parent, env)
                    t.settle(a.quiet_start / 1000, limit_s=120)
                    setup, key = spec[tool]
                    if setup:
                        os.write(t.fd, setup)
                        t.settle(quiet)
                    for _ in range(10):
                        t.key(key, quiet)
                    lat = [t.key(key, quiet) for _ in range(a.keys)]
                    t.close()
                    results.setdefault((kname, fname, tool), []).append((pct(lat, 50), pct(lat, 99)))
                    print(f"run {rep + 1} {tool} {fname} {kname}: p50 {pct(lat, 50) * 1000:.2f} ms p99 {pct(lat, 99) * 1000:.2f} ms", flush=True)
    print()
    print("| measurement | Ultra p50 / p99 | Neovim p50 / p99 | ratio (p99) |")
    print("|---|---|---|---|")
    s_u = statistics.median(results[("start", "10k", "ultra")]) * 1000
    s_n = statistics.median(results[("start", "10k", "nvim")]) * 1000
    print(f"| startup to first paint, auth.rs ({lines10k:,} lines) | {s_u:.1f} ms | {s_n:.1f} ms | {s_u / s_n:.2f}x |")
    for fname in ["10k", "100MB"]:
        for kname in keys:
            u = results[(kname, fname, "ultra")]
            n = results[(kname, fname, "nvim")]
            u50 = statistics.median(x[0] for x in u) * 1000
            u99 = statistics.median(x[1] for x in u) * 1000
            n50 = statistics.median(x[0] for x in n) * 1000
            n99 = statistics.median(x[1] for x in n) * 1000
            label = {"10k": f"auth.rs ({lines10k:,} lines, highlighted)", "100MB": f"big.txt ({big.stat().st_size // 1_000_000} MB)"}[fname]
            print(f"| {kname} key, {label} | {u50:.2f} / {u99:.2f} ms | {n50:.2f} / {n99:.2f} ms | {u99 / n99:.2f}x |")
    if a.json:
        Path(a.json).write_text(json.dumps({" ".join(k): v for k, v in results.items()}, indent=1))
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
