#!/usr/bin/env python3
"""Tool-call latency over MCP stdio next to the same command over the Unix socket (issue 7's
benchmark), side by side in one run.

Workspace: this repository (its crates/ are the code the tools read; the code index is
built before timing). Two servers on it:
  - `ultra mcp` (release build) on a pipe: JSON-RPC lines `tools/call` after `initialize`;
  - `ultra serve`: JSON-RPC 2.0 NDJSON on its Unix socket, the command by its id.
Both clients are raw and blocking (write one line, read one line), so the difference is the
MCP layer (rmcp's framing, tool lookup, the result as content blocks) and nothing else.

Cases: `get_lines` (lines 1-40 of a file) and `find_definition` (a struct name). Each
measurement runs --calls calls per client, interleaved in rounds of 100, --repeat times;
tables give the median of the per-run p50 and p99.

Usage: python3 bench/mcp_bench.py [--calls 2000] [--repeat 3]
Needs: cargo build --release -p ultra. Not part of CI.
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ULTRA = REPO / "target" / "release" / "ultra"

CASES = [
    ("get_lines", "code.getLines", {"path": "crates/ultra-core/src/executor.rs", "start": 1, "end": 40}),
    ("find_definition", "code.findDefinition", {"symbol": "Executor"}),
]


class Lines:
    """One JSON object per line over a pair of byte streams."""

    def __init__(self, send, recv):
        self.send, self.recv, self.buf, self.next = send, recv, bytearray(), 0

    def call(self, method, params):
        self.next += 1
        self.send(json.dumps({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params}).encode() + b"\n")
        while True:
            i = self.buf.find(b"\n")
            if i >= 0:
                line = bytes(self.buf[:i])
                del self.buf[: i + 1]
                msg = json.loads(line)
                if msg.get("id") == self.next:
                    return msg
                continue
            chunk = self.recv()
            if not chunk:
                raise SystemExit("server closed the connection")
            self.buf.extend(chunk)


def start_mcp(env):
    p = subprocess.Popen([str(ULTRA), "--root", str(REPO), "mcp"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    fd_out = p.stdout.fileno()

    def send(b):
        p.stdin.write(b)
        p.stdin.flush()

    c = Lines(send, lambda: os.read(fd_out, 1 << 20))
    r = c.call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "bench", "version": "1"}})
    assert "result" in r, r
    send(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
    return p, c


def start_socket(env, tmp):
    sock_path = os.path.join(tmp, "s.sock")
    p = subprocess.Popen([str(ULTRA), "--root", str(REPO), "serve", "--socket", sock_path],
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    p.stdout.readline()  # "ready <path>"
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sock_path)
    return p, Lines(s.sendall, lambda: s.recv(1 << 20))


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    os.chmod(tmp, 0o700)
    env = dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "state"), XDG_RUNTIME_DIR=tmp)
    # Build the index once so both servers start warm.
    subprocess.run([str(ULTRA), "--root", str(REPO), "index"], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    mcp_p, mcp = start_mcp(env)
    sock_p, sock = start_socket(env, tmp)
    print("| tool | MCP stdio p50 / p99 | socket p50 / p99 | p50 ratio |")
    print("|---|---|---|---|")
    try:
        for tool, command, args in CASES:
            # Warm up, and check both answer the same call.
            r = mcp.call("tools/call", {"name": tool, "arguments": args})
            assert not r["result"].get("isError"), r
            r = sock.call(command, args)
            assert "result" in r, r
            runs = {"mcp": [], "socket": []}
            for _ in range(a.repeat):
                lat = {"mcp": [], "socket": []}
                for _ in range(a.calls // 100):
                    for name, fn in (("mcp", lambda: mcp.call("tools/call", {"name": tool, "arguments": args})),
                                     ("socket", lambda: sock.call(command, args))):
                        for _ in range(100):
                            t = time.perf_counter_ns()
                            fn()
                            lat[name].append((time.perf_counter_ns() - t) / 1000)
                for k in lat:
                    runs[k].append((pct(lat[k], 0.5), pct(lat[k], 0.99)))
            m50 = statistics.median(r[0] for r in runs["mcp"])
            m99 = statistics.median(r[1] for r in runs["mcp"])
            s50 = statistics.median(r[0] for r in runs["socket"])
            s99 = statistics.median(r[1] for r in runs["socket"])
            print(f"| {tool} | {m50:.0f} / {m99:.0f} µs | {s50:.0f} / {s99:.0f} µs | **{m50 / s50:.2f}×** |")
    finally:
        mcp_p.terminate()
        sock_p.terminate()


if __name__ == "__main__":
    main()
