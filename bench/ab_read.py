#!/usr/bin/env python3
"""Two Ultra builds side by side in one run: the agent's read path.

Starts `ultra serve` from build A and from build B, each on its own copy of the same
workspace (a 10,000-line file and a 200-line one), and times, interleaved round by round:
  - `ultra.getFileContent {path}` of the open 10k-line file (unchanged on disk: the buffer
    path, one stat per read);
  - the same of the 200-line file right after an outside write (the reload path: stat,
    read, hash, replace);
  - `ultra.getFileContent` of a file that is not open (a plain disk read).
Each client is a raw blocking AF_UNIX socket. Reports the median over rounds of each
round's p50 and p99 in microseconds, and B/A.

Use it to check that a change to the buffer/disk sync does not slow reads:
    cargo build --release -p ultra        # build B (and keep a copy of A's binary)
    python3 bench/ab_read.py --a /path/to/old/ultra --b target/release/ultra

Python 3 stdlib only. Not part of CI.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


class Client:
    def __init__(self, path: str):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buf = bytearray()
        self.id = 0

    def call(self, method: str, params: dict) -> dict:
        self.id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": self.id, "method": method, "params": params})
        self.sock.sendall(line.encode() + b"\n")
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                out = bytes(self.buf[:i])
                del self.buf[: i + 1]
                reply = json.loads(out)
                if reply.get("id") == self.id:
                    if "error" in reply:
                        raise RuntimeError(f"{method}: {reply['error']}")
                    return reply["result"]
                continue
            chunk = self.sock.recv(1 << 20)
            if not chunk:
                raise RuntimeError("server closed the connection")
            self.buf += chunk


def serve(binary: str, ws: Path, state: Path) -> tuple[subprocess.Popen, str]:
    env = dict(os.environ, XDG_STATE_HOME=str(state), XDG_RUNTIME_DIR=str(state))
    sock = str(state / "ultra.sock")
    p = subprocess.Popen([binary, "serve", "--root", str(ws), "--socket", sock, "--no-prompt"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
                         env=env, text=True)
    assert p.stdout is not None
    for line in p.stdout:
        if line.startswith("ready "):
            return p, sock
    raise RuntimeError(f"{binary} did not start")


def workspace(root: Path) -> None:
    (root / ".git").mkdir(parents=True)
    big = "".join(f"line {i}: the quick brown fox jumps over the lazy dog {i * 7}\n" for i in range(10_000))
    (root / "big.txt").write_text(big)
    (root / "small.txt").write_text("".join(f"small {i}\n" for i in range(200)))
    (root / "closed.txt").write_text(big)


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="build A (the baseline)")
    ap.add_argument("--b", required=True, help="build B")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--n", type=int, default=300, help="timed calls per case per round")
    args = ap.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="ultra-ab-"))
    servers = {}
    try:
        for name, binary in (("A", args.a), ("B", args.b)):
            ws = tmp / name / "ws"
            workspace(ws)
            state = tmp / name / "state"
            state.mkdir(mode=0o700)
            proc, sock = serve(binary, ws, state)
            c = Client(sock)
            c.call("session.identify", {"source": "ai", "agentId": "bench"})
            c.call("ultra.openFile", {"path": "big.txt"})
            c.call("ultra.openFile", {"path": "small.txt"})
            servers[name] = (proc, c, ws)
        time.sleep(0.5)

        cases = ["open 10k lines", "after outside write (200 lines)", "not open (10k lines)"]
        results = {(n, case): [] for n in servers for case in cases}
        for r in range(args.rounds):
            order = ["A", "B"] if r % 2 == 0 else ["B", "A"]
            for name in order:
                _, c, ws = servers[name]
                for case in cases:
                    times = []
                    for i in range(args.n):
                        if case.startswith("after"):
                            (ws / "small.txt").write_text(f"round {r} call {i}\n" + "x\n" * 199)
                            t = time.perf_counter_ns()
                            got = c.call("ultra.getFileContent", {"path": "small.txt"})
                            times.append((time.perf_counter_ns() - t) / 1000)
                            assert got["content"].startswith(f"round {r} call {i}\n"), got["content"][:40]
                        else:
                            path = "big.txt" if case.startswith("open") else "closed.txt"
                            t = time.perf_counter_ns()
                            c.call("ultra.getFileContent", {"path": path})
                            times.append((time.perf_counter_ns() - t) / 1000)
                    results[(name, case)].append((pct(times, 0.5), pct(times, 0.99)))

        print(f"A = {args.a}\nB = {args.b}\n{args.rounds} rounds x {args.n} calls, medians of per-round p50 / p99 (us)\n")
        print("| case | A p50 / p99 | B p50 / p99 | B/A (p50) |")
        print("|---|---|---|---|")
        for case in cases:
            a50 = statistics.median(x[0] for x in results[("A", case)])
            a99 = statistics.median(x[1] for x in results[("A", case)])
            b50 = statistics.median(x[0] for x in results[("B", case)])
            b99 = statistics.median(x[1] for x in results[("B", case)])
            print(f"| `getFileContent`, {case} | {a50:.0f} / {a99:.0f} | {b50:.0f} / {b99:.0f} | {b50 / a50:.2f}x |")
    finally:
        for proc, _, _ in servers.values():
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
