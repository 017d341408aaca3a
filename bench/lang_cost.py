#!/usr/bin/env python3
"""Does the shell language cost scripts that do not use it? Two builds of `ultra` side by
side in one run (the one before the language landed, and this one), interleaved, medians.

Usage: python3 bench/lang_cost.py OLD_ULTRA NEW_ULTRA [--runs 15]
Build the old one from a worktree: git worktree add /tmp/old e8401d6 && cargo build --release -p ultra
Cases: start-up (`true`), a script of 300 simple commands and 100 pipelines, and a 200 MiB
awk sum (bench/work/data.txt from shell_bench.py).
"""

import argparse
import os
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WORK = os.path.join(HERE, "work")

CASES = [
    ("start-up", "true"),
    ("300 commands", "; ".join(["echo a > /dev/null", "x=1", "cd ."] * 100)),
    ("100 pipelines", "; ".join(["echo a b | tr a-z A-Z | wc -c > /dev/null"] * 100)),
    ("awk sum 200 MiB", "awk '{s+=$3} END{print s}' data.txt"),
]


def once(ultra, script):
    t0 = time.perf_counter()
    subprocess.run([ultra, "sh", "--root", WORK, script], stdout=subprocess.PIPE,
                   stderr=subprocess.DEVNULL, check=False, env={**os.environ, "LC_ALL": "C"})
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--runs", type=int, default=15)
    a = ap.parse_args()
    print("| case | before | after | after / before |")
    print("|---|---|---|---|")
    for name, script in CASES:
        runs = a.runs if "awk" not in name else max(3, a.runs // 3)
        old, new = [], []
        for _ in range(runs):
            old.append(once(a.old, script))
            new.append(once(a.new, script))
        o, n = statistics.median(old), statistics.median(new)
        print(f"| {name} | {o * 1000:.1f} ms | {n * 1000:.1f} ms | {n / o:.2f}× |")


if __name__ == "__main__":
    main()
