#!/usr/bin/env python3
"""search.findInFiles from the text index, next to ripgrep, side by side in one run (issue 23 §2).

Corpus: bench/work/index-scale (built by bench/index_scale.py from the package registries:
`cargo vendor` of big crates, npm tarballs, Django's sdist; 235 MB).

`ultra serve` (release build, fresh state dir) on the corpus. Its start-up is timed: when
`ultra.getWorkspaceInfo` first says `textIndex.state == ready` (the text index is built first),
then when `code.reindex` answers (the cold code index after it), and the server's VmRSS then.
That is done --cold-runs times (medians). The last server is stopped and another started on the stored code index (the server an agent
meets): the same times, and its VmRSS once both indexes are ready (the serving RSS).
Then each case is run --runs times, the tools interleaved (order rotating): findInFiles over the
socket (a raw NDJSON client; the reply read whole) and ripgrep as a process (`rg -n`, `-i` when
the query ignores case, output read whole), from the page cache. Medians and ratios are printed.

Cases (what issue 23 sets goals for):
  selective   literals in at most 100 files: goal <= 0.1x rg
  capped      common literals, findInFiles' default cap (2,000 matches): goal <= 0.2x rg
  regex       regexes with a required literal: goal <= 0.3x rg
  no trigram  regexes no trigram can narrow: goal <= 1.1x rg
Uncapped answers are checked against ripgrep's: the same (path, line) pairs. A capped answer
must be the first matches in path order of the uncapped one.

Usage: python3 bench/search_index.py [--runs 7] [--cold-runs 3] [--rg bench/work/rg15/bin/rg] [--ultra ...]
Needs: the corpus (python3 bench/index_scale.py builds it), a release build of ultra, ripgrep
(bench/setup.sh builds ripgrep 15 into bench/work/rg15; else the one on PATH). Not part of CI.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import index_scale as ix  # noqa: E402  the corpus, the raw client and the server

RG15 = os.path.join(HERE, "work", "rg15", "bin", "rg")

# (kind, query, findInFiles options, capped)
CASES = [
    ("selective", "fn try_reserve_exact", {"caseSensitive": True}, False),
    ("selective", "QuerySet.bulk_create", {}, False),
    ("selective", "ensure_no_duplicate_keys", {}, False),
    ("capped", "clone", {}, True),
    ("capped", "self", {"caseSensitive": True}, True),
    ("regex", r"fn \w+_unchecked", {"useRegex": True, "caseSensitive": True}, False),
    ("regex", r"impl\s+Drop\s+for\s+\w+", {"useRegex": True, "caseSensitive": True}, False),
    ("regex", r"class \w+Error\(", {"useRegex": True, "caseSensitive": True}, False),
    ("no trigram", r"[A-Z]\d\d[a-z]", {"useRegex": True, "caseSensitive": True}, False),
]
GOALS = {"selective": 0.1, "capped": 0.2, "regex": 0.3, "no trigram": 1.1}


def rg_argv(rg: str, query: str, opts: dict) -> list[str]:
    argv = [rg, "-n", "--no-heading", "--with-filename"]
    if not opts.get("caseSensitive"):
        argv.append("-i")
    if not opts.get("useRegex"):
        argv.append("-F")
    return argv + ["-e", query]


def rg_lines(out: bytes) -> set[tuple[str, int]]:
    got = set()
    for line in out.decode(errors="replace").splitlines():
        path, _, rest = line.partition(":")
        num, _, _ = rest.partition(":")
        if num.isdigit():
            got.add((path, int(num)))
    return got


def ultra_lines(result: dict) -> list[tuple[str, int]]:
    out = []
    for r in result["results"]:
        for m in r["matches"]:
            pair = (r["path"], m["range"]["start"]["line"] + 1)
            if not out or out[-1] != pair:
                out.append(pair)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--cold-runs", type=int, default=3, help="cold starts (fresh state dir) timed")
    ap.add_argument("--ultra", default=os.path.join(ix.REPO, "target", "release", "ultra"))
    ap.add_argument("--rg", default=RG15 if os.path.exists(RG15) else "rg")
    a = ap.parse_args()
    if not os.path.isdir(ix.CORPUS):
        raise SystemExit("no corpus: run python3 bench/index_scale.py first")
    rg_version = subprocess.run([a.rg, "--version"], capture_output=True, text=True).stdout.splitlines()[0]
    print(f"corpus {ix.CORPUS}; {rg_version}; ultra {a.ultra}; {a.runs} runs, medians", flush=True)
    tmp = __import__("tempfile").mkdtemp(prefix="ultra-search-index-")
    bench = types_ns(tmp)
    # Cold starts (empty state dir), then the server an agent meets: a restart on the
    # stored indexes.
    shares = []
    env = bench.env("serve")
    for i in range(a.cold_runs):
        env = bench.env("serve")
        cold, _, cold_text, cold_code, _ = start(a, env, tmp, f"cold{i}")
        cold.stop()
        shares.append(cold_text / (cold_code - cold_text))
        print(f"cold start {i + 1}: text index ready {cold_text:.2f} s after start; code index ready "
              f"{cold_code:.2f} s; the text index adds {shares[-1]:.0%} to the cold index", flush=True)
    if shares:
        print(f"the text index adds {statistics.median(shares):.0%} to the cold index (median; goal <= 30%)")
    server, c, text_s, code_s, files = start(a, env, tmp, "warm")
    try:
        rss = server.status_mib()
        print(f"warm start: text index ready {text_s:.2f} s ({files} files); code index ready {code_s:.2f} s; "
              f"serving VmRSS {rss['VmRSS']:.0f} MiB (VmHWM {rss['VmHWM']:.0f} MiB)", flush=True)
        saved = [os.path.join(d, f) for d, _, fs in os.walk(env["XDG_STATE_HOME"]) for f in fs if f == "text-index"]
        corpus = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(ix.CORPUS) for f in fs
                     if not os.path.islink(os.path.join(d, f)))
        size = sum(os.path.getsize(p) for p in saved)
        print(f"text index on disk {size / 1e6:.1f} MB, corpus {corpus / 1e6:.0f} MB: {size / corpus:.2f}x", flush=True)
        rows = []
        for kind, query, opts, capped in CASES:
            params = {"query": query, "options": dict(opts, **({} if capped else {"maxResults": 100000}))}
            full = c.result("search.findInFiles", {"query": query, "options": dict(opts, maxResults=100000)})
            rg_out = subprocess.run(rg_argv(a.rg, query, opts), cwd=ix.CORPUS, capture_output=True).stdout
            want = rg_lines(rg_out)
            got_full = ultra_lines(full)
            files_matching = len({p for p, _ in want})
            if capped:
                capped_res = c.result("search.findInFiles", params)
                got = ultra_lines(capped_res)
                same = got == got_full[:len(got)] and capped_res["truncated"]
            else:
                same = set(got_full) == want
            if not same:
                only_u = sorted(set(got_full) - want)[:3]
                only_r = sorted(want - set(got_full))[:3]
                print(f"  DIFFERENT {query!r}: ultra only {only_u}, rg only {only_r}", flush=True)
            tu, tr = [], []
            for i in range(a.runs + 1):
                order = [0, 1] if i % 2 == 0 else [1, 0]
                for who in order:
                    if who == 0:
                        _, _, dt = c.request("search.findInFiles", params)
                        (tu if i else []).append(dt)
                    else:
                        t0 = time.perf_counter()
                        subprocess.run(rg_argv(a.rg, query, opts), cwd=ix.CORPUS, stdout=subprocess.PIPE,
                                       stderr=subprocess.DEVNULL)
                        (tr if i else []).append(time.perf_counter() - t0)
            mu, mr = statistics.median(tu), statistics.median(tr)
            rows.append((kind, query, mu, mr, files_matching, len(want), same, capped))
            print(f"  {kind:10} {query!r}: ultra {mu * 1000:.1f} ms, rg {mr * 1000:.1f} ms, "
                  f"{mu / mr:.3f}x (goal <= {GOALS[kind]}x); {files_matching} files, {len(want)} lines; "
                  f"{'same' if same else 'DIFFERENT'}", flush=True)
        # The grep tool (the shell's `grep -r`), literal queries: files its text index knows
        # to hold no match are left unread; it still walks every file GNU grep would.
        grep_rows = []
        for kind, query, opts, capped in CASES:
            if opts.get("useRegex"):
                continue
            gp = {"pattern": query, "paths": ["."], "recursive": True, "syntax": "fixed", "lineNumber": True,
                  "ignoreCase": not opts.get("caseSensitive")}
            out = c.result("shell.grep", gp)
            got = out["stdout"].splitlines()
            if capped:
                # Cut at the tool's 64 KiB: the last line may be partial.
                got = got[:-1]
            lines = [(l.split(":", 2)[0].removeprefix("./"), int(l.split(":", 2)[1]))
                     for l in got if l.count(":") >= 2]
            want = rg_lines(subprocess.run(rg_argv(a.rg, query, opts), cwd=ix.CORPUS, capture_output=True).stdout)
            if capped:
                # The first lines of a full walk in GNU order, and the note that says so.
                same = bool(lines) and set(lines) <= want and out.get("truncated") is True \
                    and out["exitCode"] == 0 and lines == sorted(lines, key=lambda pl: (pl[0].split("/"), pl[1]))
            else:
                same = set(lines) == want
            head = " ".join(rg_argv(a.rg, query, opts)) + " | head -c 65536"
            tg, tr, th = [], [], []
            for i in range(a.runs + 1):
                _, _, dt = c.request("shell.grep", gp)
                t0 = time.perf_counter()
                subprocess.run(rg_argv(a.rg, query, opts), cwd=ix.CORPUS, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
                t1 = time.perf_counter()
                if capped:
                    subprocess.run(head, shell=True, cwd=ix.CORPUS, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL)
                if i:
                    tg.append(dt)
                    tr.append(t1 - t0)
                    th.append(time.perf_counter() - t1)
            mg, mr = statistics.median(tg), statistics.median(tr)
            mh = statistics.median(th) if capped else None
            grep_rows.append((query, mg, mr, same, mh))
            extra = f", rg | head -c 64K {mh * 1000:.1f} ms" if capped else ""
            print(f"  grep tool {query!r}: {mg * 1000:.1f} ms, rg {mr * 1000:.1f} ms, {mg / mr:.3f}x{extra}; "
                  f"{'same lines as rg' if same else 'DIFFERENT'}", flush=True)
        print()
        print("| grep tool, literal | grep | rg -n | ratio | rg -n \\| head -c 64K | answer |")
        print("|---|---|---|---|---|---|")
        for query, mg, mr, same, mh in grep_rows:
            what = ("first 64 KiB, `output_capped`, exit 0" if mh is not None else "same lines as rg") \
                if same else "DIFFERENT"
            hd = f"{mh * 1000:.1f} ms" if mh is not None else ""
            print(f"| `{query}` | {mg * 1000:.1f} ms | {mr * 1000:.1f} ms | **{mg / mr:.3f}×** | {hd} | {what} |")
        print()
        print("| case | query | findInFiles | rg -n | ratio | goal | files (lines) matching | answer |")
        print("|---|---|---|---|---|---|---|---|")
        for kind, query, mu, mr, nf, nl, same, capped in rows:
            ok = "met" if mu / mr <= GOALS[kind] else "NOT met"
            what = ("first 2,000 in path order" if capped else "same lines as rg") if same else "DIFFERENT"
            print(f"| {kind} | `{query}` | {mu * 1000:.1f} ms | {mr * 1000:.1f} ms | **{mu / mr:.3f}×** "
                  f"| ≤ {GOALS[kind]}× ({ok}) | {nf} ({nl}) | {what} |")
    finally:
        server.stop()


def start(a, env: dict, tmp: str, name: str):
    """A server on the corpus: (server, client, seconds to the text index, to the code index,
    files the text index holds). The caller stops the server."""
    server = ix.Server(a.ultra, env, tmp, name)
    try:
        c, _ = server.connect()
        while True:
            info = c.result("ultra.getWorkspaceInfo", {})
            if info["textIndex"]["state"] == "ready":
                text_s = time.perf_counter() - server.t0
                break
            time.sleep(0.01)
        c.result("code.reindex", {}, timeout=600)
        code_s = time.perf_counter() - server.t0
    except BaseException:
        server.stop()
        raise
    return server, c, text_s, code_s, info["textIndex"]["files"]


def types_ns(tmp: str):
    """The parts of index_scale's Bench this needs: a fresh state dir per server."""
    b = ix.Bench.__new__(ix.Bench)
    b.tmp = tmp
    return b


if __name__ == "__main__":
    main()
