#!/usr/bin/env python3
"""`get_lines` on a 123 MB log next to GNU sed, and what one answer weighs.

Usage: python3 bench/big_read.py [--ultra target/release/ultra] [--runs 7] [--keep]

Writes a log of 1,500,000 lines (123 MB, generated: the same bytes on every machine) into a
temp workspace, starts `ultra serve` on it (default configuration), and times over the Unix
socket, one call at a time from a raw client, `code.getLines` for lines 1-40, for lines
1,000,000-1,000,040, and with no range (the whole file as the seed's default asks, which
an answer now stops at 48 KiB). Beside each, GNU sed printing the same lines (`sed -n
'A,Bp;Bq'`, which stops reading after line B; the no-range row is `sed -n p`, the whole
file). Medians of `--runs`, unpinned, and Ultra's first call apart (it reads the whole
file and keeps its line map; later calls read only their window); the reply's size.
"""

import argparse
import json
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time

LINES = 1_500_000


def write_log(path):
    with open(path, "w") as f:
        for i in range(LINES):
            f.write(
                f"2026-11-28T12:00:{i % 60:02d} INFO request {i} handled in {i % 997} ms path=/api/v1/items/{i % 5000}\n"
            )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ultra", default="target/release/ultra")
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ultra-big-read-")
    ws, run, state = (os.path.join(tmp, d) for d in ("ws", "run", "state"))
    for d in (ws, run, state):
        os.makedirs(d)
    os.chmod(run, 0o700)
    log = os.path.join(ws, "big.log")
    write_log(log)
    sock = os.path.join(run, "u.sock")
    env = dict(os.environ, XDG_STATE_HOME=state, XDG_RUNTIME_DIR=run)
    env.pop("ULTRA_SOCKET", None)
    server = subprocess.Popen(
        [a.ultra, "serve", "--root", ws, "--socket", sock, "--no-prompt"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
    )
    server.stdout.readline()
    c = socket.socket(socket.AF_UNIX)
    for _ in range(100):
        try:
            c.connect(sock)
            break
        except OSError:
            time.sleep(0.05)
    replies = c.makefile("rb")

    def get_lines(params):
        c.sendall((json.dumps({"jsonrpc": "2.0", "id": 1, "method": "code.getLines", "params": params}) + "\n").encode())
        return replies.readline()

    cases = [
        ("lines 1-40", {"path": "big.log", "start": 1, "end": 40}, ["sed", "-n", "1,40p;40q", log]),
        ("lines 1,000,000-1,000,040", {"path": "big.log", "start": 1_000_000, "end": 1_000_040},
         ["sed", "-n", "1000000,1000040p;1000040q", log]),
        ("no range", {"path": "big.log"}, ["sed", "-n", "p", log]),
    ]
    print(f"## get_lines on a {os.path.getsize(log) / 1e6:.0f} MB log (`bench/big_read.py --runs {a.runs}`, unpinned)\n")
    print("| call | Ultra first call | Ultra p50 | GNU sed p50 | ratio (p50) | Ultra reply | sed output |")
    print("|---|---|---|---|---|---|---|")
    for name, params, sed in cases:
        ours, theirs, size, out = [], [], 0, 0
        for _ in range(a.runs):
            t = time.perf_counter()
            reply = get_lines(params)
            ours.append(time.perf_counter() - t)
            size = len(reply)
            assert b'"result"' in reply, reply[:300]
            t = time.perf_counter()
            out = len(subprocess.run(sed, capture_output=True, check=True).stdout)
            theirs.append(time.perf_counter() - t)
        u, s = statistics.median(ours) * 1e3, statistics.median(theirs) * 1e3
        print(f"| {name} | {ours[0] * 1e3:.1f} ms | {u:.1f} ms | {s:.1f} ms | {u / s:.2f}× | {size:,} B | {out:,} B |")
    server.kill()
    server.wait()
    if a.keep:
        print(f"\nkept {tmp}")
    else:
        shutil.rmtree(tmp)


if __name__ == "__main__":
    main()
