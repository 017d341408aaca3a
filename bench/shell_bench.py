#!/usr/bin/env python3
"""Ultra's shell text tools next to the peers (issue 4's benchmarks), side by side in one run.

Each case runs the same command line through `ultra sh` (in process on the workspace, no
`sh`) and through each peer tool directly, output to /dev/null, interleaved, `--runs` times (output read from a pipe and discarded);
the report gives the median wall time, the peak RSS, and Ultra's ratio to the fastest peer.

Corpora, all generated reproducibly:
  data.txt  whitespace-separated records (`k<key> <int> <int> <word> ...`), --size-mb of them
  data.csv  the same records with commas
  access.log  --log-mb (192) MiB of web-server-like lines (timestamp, address, `GET /item/N`, status),
            for regex searches with and without a required literal
  vendor/   `cargo vendor --locked` of this repository's Cargo.lock (the crates it builds on),
            as the large source tree for `grep -rn`

Usage: python3 bench/shell_bench.py [--size-mb 200] [--runs 3] [--markdown FILE] [--only NAME]
Needs: target/release/ultra (cargo build --release -p ultra), mawk, gawk, GNU sed, GNU grep, rg.
"""

import argparse
import os
import random
import shutil
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WORK = os.path.join(HERE, "work")
ULTRA = os.path.join(REPO, "target", "release", "ultra")

WORDS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india",
         "juliet", "kilo", "lima", "mike", "november", "oscar", "papa", "quebec", "romeo",
         "sierra", "tango", "uniform", "victor", "whiskey", "xray", "yankee", "zulu", "foo",
         "bar", "baz", "qux"]


def generate(size_mb):
    """Write data.txt and data.csv of about size_mb MiB each (same seed, same content)."""
    os.makedirs(WORK, exist_ok=True)
    txt, csv = os.path.join(WORK, "data.txt"), os.path.join(WORK, "data.csv")
    want = size_mb * 1024 * 1024
    if all(os.path.exists(p) and abs(os.path.getsize(p) - want) < want // 50 for p in (txt, csv)):
        return txt, csv
    print(f"generating {size_mb} MiB corpora in {WORK} ...", file=sys.stderr)
    rng = random.Random(42)
    with open(txt, "w") as ft, open(csv, "w") as fc:
        written = 0
        while written < want:
            rows = []
            for _ in range(10000):
                key = f"k{rng.randrange(100000)}"
                a, b = rng.randrange(1000), rng.randrange(100000)
                words = " ".join(rng.choice(WORDS) for _ in range(rng.randrange(3, 9)))
                rows.append((key, a, b, words))
            t = "".join(f"{k} {a} {b} {w}\n" for k, a, b, w in rows)
            c = "".join(f"{k},{a},{b},{w}\n" for k, a, b, w in rows)
            ft.write(t)
            fc.write(c)
            written += len(t)
    return txt, csv


def access_log(size_mb):
    """access.log: size_mb MiB of `TIMESTAMP ADDRESS GET /item/N STATUS` lines from a fixed seed."""
    path = os.path.join(WORK, "access.log")
    want = size_mb * 1024 * 1024
    if os.path.exists(path) and abs(os.path.getsize(path) - want) < want // 50:
        return path
    rng = random.Random(7)
    statuses = ["200", "200", "200", "304", "404", "500"]
    with open(path, "w") as f:
        n = 0
        while n < want:
            rows = []
            for _ in range(10000):
                rows.append(
                    f"2026-11-{rng.randrange(1, 28):02d}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:"
                    f"{rng.randrange(60):02d}Z 10.0.{rng.randrange(256)}.{rng.randrange(256)} "
                    f"GET /item/{rng.randrange(100000)} {rng.choice(statuses)}\n")
            chunk = "".join(rows)
            f.write(chunk)
            n += len(chunk)
    return path


def vendor():
    """`cargo vendor` of this repository's lock file: a real, large Rust source tree."""
    dest = os.path.join(WORK, "vendor")
    if os.path.isdir(dest) and len(os.listdir(dest)) > 50:
        return dest
    print("cargo vendor --locked (the corpus for grep -rn) ...", file=sys.stderr)
    subprocess.run(["cargo", "vendor", "--locked", "--versioned-dirs", dest],
                   cwd=REPO, check=True, stdout=subprocess.DEVNULL)
    return dest


def run(argv, cwd):
    """Run once; (seconds, peak RSS in MiB, exit status). Output goes through a pipe that is
    read and discarded: GNU grep stops at the first match when stdout is /dev/null."""
    t0 = time.perf_counter()
    # /usr/bin/time measures the tool's own peak RSS (the forked Python's would count too).
    p = subprocess.Popen(["/usr/bin/time", "-f", "maxrss=%M"] + argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env={**os.environ, "LC_ALL": "C"})
    drain = threading.Thread(target=lambda: [None for _ in iter(lambda: p.stdout.read(1 << 20), b"")])
    drain.start()
    _, status, usage = os.wait4(p.pid, 0)
    dt = time.perf_counter() - t0
    drain.join()
    err = p.stderr.read().decode(errors="replace") if p.stderr else ""
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        raise SystemExit(f"{argv!r} failed ({code}): {err[:500]}")
    rss = [int(l.split("=")[1]) for l in err.splitlines() if l.startswith("maxrss=")]
    return dt, (rss[-1] if rss else usage.ru_maxrss) / 1024, code


def output_of(argv, cwd):
    return subprocess.run(argv, cwd=cwd, capture_output=True, env={**os.environ, "LC_ALL": "C"}).stdout


CASES = [
    # (name, ultra script, [(peer name, argv)], check that outputs agree)
    ("awk sum", "awk '{s+=$3} END{print s}' data.txt",
     [("mawk", ["mawk", "{s+=$3} END{print s}", "data.txt"]),
      ("gawk", ["gawk", "{s+=$3} END{print s}", "data.txt"])], True),
    ("awk filter -F,", "awk -F, '$2>500{print $1}' data.csv",
     [("mawk", ["mawk", "-F,", "$2>500{print $1}", "data.csv"]),
      ("gawk", ["gawk", "-F,", "$2>500{print $1}", "data.csv"])], False),
    ("awk group-by", "awk '{c[$1]++} END{for(k in c) n++; print n}' data.txt",
     [("mawk", ["mawk", "{c[$1]++} END{for(k in c) n++; print n}", "data.txt"]),
      ("gawk", ["gawk", "{c[$1]++} END{for(k in c) n++; print n}", "data.txt"])], True),
    ("sed s///g", "sed 's/foo/bar/g' data.txt",
     [("GNU sed", ["sed", "s/foo/bar/g", "data.txt"])], False),
    ("grep -c", "grep -c 'foo bar' data.txt",
     [("GNU grep", ["grep", "-c", "foo bar", "data.txt"])], True),
    # ripgrep -uu stops reading a binary file at its first NUL and prints nothing for it;
    # GNU grep (and Ultra) read it to the end to say "binary file matches". -uuu (--binary)
    # makes ripgrep do that same work; `--include '*.rs'` compares on text files alone.
    ("grep -rn tree", "grep -rn 'fn new(' vendor",
     [("ripgrep", ["rg", "-uu", "-n", "fn new\\(", "vendor"]),
      ("ripgrep -uuu", ["rg", "-uuu", "-n", "fn new\\(", "vendor"]),
      ("GNU grep", ["grep", "-rn", "fn new(", "vendor"])], False),
    ("grep -rn tree *.rs", "grep -rn --include='*.rs' 'fn new(' vendor",
     [("ripgrep", ["rg", "-uu", "-n", "-g", "*.rs", "fn new\\(", "vendor"]),
      ("GNU grep", ["grep", "-rn", "--include=*.rs", "fn new(", "vendor"])], False),
    # Regexes (issue 20 §3): a required literal inside, at the start, none at all.
    ("grep -cE inner literal", "grep -cE 'item/9[0-9]* 500$' access.log",
     [("GNU grep", ["grep", "-cE", "item/9[0-9]* 500$", "access.log"]),
      ("ripgrep", ["rg", "-c", "item/9[0-9]* 500$", "access.log"])], True),
    ("grep -cE .* between", "grep -cE 'T1[0-9]:.*item/99' access.log",
     [("GNU grep", ["grep", "-cE", "T1[0-9]:.*item/99", "access.log"]),
      ("ripgrep", ["rg", "-c", "T1[0-9]:.*item/99", "access.log"]),
      # ripgrep memory-maps one large file; Ultra reads it (a mapped file truncated under a
      # server is a SIGBUS). This is ripgrep reading it too.
      ("ripgrep --no-mmap", ["rg", "--no-mmap", "-c", "T1[0-9]:.*item/99", "access.log"])], True),
    # The same search printing its lines (with numbers), not counting them.
    ("grep -nE lines", "grep -nE 'T1[0-9]:.*item/99' access.log",
     [("GNU grep", ["grep", "-nE", "T1[0-9]:.*item/99", "access.log"]),
      ("ripgrep", ["rg", "-n", "T1[0-9]:.*item/99", "access.log"])], True),
    ("grep -cE no literal", "grep -cE '[0-9]+ 40[0-9]$' access.log",
     [("GNU grep", ["grep", "-cE", "[0-9]+ 40[0-9]$", "access.log"]),
      ("ripgrep", ["rg", "-c", "[0-9]+ 40[0-9]$", "access.log"])], True),
    ("grep -cE alternation", "grep -cE 'item/(12|34)5 (404|500)$' access.log",
     [("GNU grep", ["grep", "-cE", "item/(12|34)5 (404|500)$", "access.log"]),
      ("ripgrep", ["rg", "-c", "item/(12|34)5 (404|500)$", "access.log"])], True),
    ("grep -rnE tree regex", "grep -rnE 'fn [a-z_]+\\(&mut self' vendor",
     [("ripgrep", ["rg", "-uu", "-n", "fn [a-z_]+\\(&mut self", "vendor"]),
      ("ripgrep -uuu", ["rg", "-uuu", "-n", "fn [a-z_]+\\(&mut self", "vendor"]),
      ("GNU grep", ["grep", "-rnE", "fn [a-z_]+\\(&mut self", "vendor"])], False),
]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size-mb", type=int, default=200)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--log-mb", type=int, default=192,
                    help="size of access.log (below ~50 MiB, process start-up dominates)")
    ap.add_argument("--markdown")
    ap.add_argument("--only", help="run only cases whose name contains this")
    a = ap.parse_args()
    for tool in ["mawk", "gawk", "sed", "grep", "rg", "cargo", "/usr/bin/time"]:
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is missing (bench/setup.sh installs it)")
    if not os.access(ULTRA, os.X_OK):
        raise SystemExit("build Ultra first: cargo build --release -p ultra")
    generate(a.size_mb)
    access_log(a.log_mb)
    vendor()
    rows = []
    for name, script, peers, check in CASES:
        if a.only and a.only not in name:
            continue
        ultra = [ULTRA, "sh", "--root", WORK, script]
        if check:
            # gawk is the reference awk (mawk prints big integers as %.6g).
            ref_name, ref = next(((n, v) for n, v in peers if n == "gawk"), peers[0])
            mine, theirs = output_of(ultra, WORK), output_of(ref, WORK)
            if mine != theirs:
                raise SystemExit(f"{name}: output differs: ultra {mine[:200]!r} vs {ref_name} {theirs[:200]!r}")
        times = {"ultra": [], **{p: [] for p, _ in peers}}
        rss = {k: [] for k in times}
        for _ in range(a.runs):
            for who, argv in [("ultra", ultra)] + peers:
                dt, mem, _ = run(argv, WORK)
                times[who].append(dt)
                rss[who].append(mem)
        med = {k: statistics.median(v) for k, v in times.items()}
        best_peer = min((p for p, _ in peers), key=lambda p: med[p])
        ratio = med["ultra"] / med[best_peer]
        rows.append((name, script, med, {k: max(v) for k, v in rss.items()}, best_peer, ratio, [p for p, _ in peers]))
        print(f"{name}: ultra {med['ultra']:.2f}s vs {best_peer} {med[best_peer]:.2f}s = {ratio:.2f}x", file=sys.stderr)
    lines = [f"Corpus: {a.size_mb} MiB data.txt / data.csv, {a.log_mb} MiB access.log; vendor/ from `cargo vendor --locked`. "
             f"Median of {a.runs} interleaved runs, output read through a pipe.", "",
             "| case | command | Ultra | peers | Ultra / fastest peer | peak RSS Ultra / peers |",
             "|---|---|---|---|---|---|"]
    for name, script, med, mem, best, ratio, peers in rows:
        peer_txt = ", ".join(f"{p} {med[p]:.2f} s" for p in peers)
        mem_txt = f"{mem['ultra']:.0f} MiB / " + ", ".join(f"{mem[p]:.0f}" for p in peers)
        lines.append(f"| {name} | `{script}` | {med['ultra']:.2f} s | {peer_txt} | **{ratio:.2f}×** ({best}) | {mem_txt} |")
    report = "\n".join(lines) + "\n"
    print(report)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(report)


if __name__ == "__main__":
    main()
