#!/usr/bin/env python3
"""search.findInFiles next to ripgrep (issue 6's benchmark), side by side in one run.

Each case runs `ultra -c search.findInFiles` (in process: start, walk, search, JSON out)
and `rg -n` with the same meaning, and `rg --json` (ripgrep's structured output, the
closer equivalent of a JSON answer), interleaved, --runs times; medians and the ratios are
printed. Corpus: bench/work/index-corpus (built by bench/index_bench.py).

Usage: python3 bench/search_bench.py [--runs 7]
"""

import argparse
import json
import os
import statistics
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "work", "index-corpus")
ULTRA = os.path.join(os.path.dirname(HERE), "target", "release", "ultra")

CASES = [
    # (name, findInFiles options, rg flags)
    ("literal, case-sensitive", "HashMap", {"caseSensitive": True}, ["-n", "HashMap"]),
    ("literal, ignore case", "hashmap", {}, ["-n", "-i", "hashmap"]),
    ("regex", r"fn \w+_test", {"useRegex": True, "caseSensitive": True}, ["-n", r"fn \w+_test"]),
    ("whole word", "new", {"wholeWord": True, "caseSensitive": True}, ["-n", "-w", "new"]),
]


def timed(cmd):
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=CORPUS, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t, out.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    a = ap.parse_args()
    print("| case | ultra findInFiles | rg -n | ratio | rg --json | ratio | matches (ultra) | lines (rg) |")
    print("|---|---|---|---|---|---|---|---|")
    for name, query, opts, rg in CASES:
        opts = dict(opts, maxResults=100000)
        args = json.dumps({"query": query, "options": opts})
        u, r, rj = [], [], []
        count = lines = 0
        for i in range(a.runs + 1):
            tu, out = timed([ULTRA, "--root", ".", "-c", "search.findInFiles", "-a", args, "--json"])
            tr, rout = timed(["rg"] + rg + ["."])
            tj, _ = timed(["rg", "--json"] + [f for f in rg if f != "-n"] + ["."])
            if i == 0:
                continue  # warm-up
            u.append(tu)
            r.append(tr)
            rj.append(tj)
            data = json.loads(out)
            data = data[0] if isinstance(data, list) else data
            count = data["data"]["count"]
            lines = rout.count(b"\n")
        mu, mr, mj = statistics.median(u), statistics.median(r), statistics.median(rj)
        print(f"| {name} | {mu*1000:.0f} ms | {mr*1000:.0f} ms | **{mu/mr:.2f}×** "
              f"| {mj*1000:.0f} ms | {mu/mj:.2f}× | {count} | {lines} |")


if __name__ == "__main__":
    main()
