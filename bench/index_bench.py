#!/usr/bin/env python3
"""Ultra's code index next to universal-ctags (issue 5's benchmarks), side by side in one run.

Corpus (built reproducibly from the registries, under bench/work/index-corpus/):
  vendor/  `cargo vendor --locked` of this repository's Cargo.lock (Rust, some C)
  django/  the Django 5.1.4 sdist from PyPI (Python, JavaScript)

Cases, each run --runs times interleaved, medians reported:
  cold   `ultra index --cold` (parse everything: symbols, references, imports, complexity,
         TODOs, written to the store) against `ctags -R` (tags only)
  warm   `ultra index` on the unchanged tree (the persisted index is loaded, nothing parsed)
  refs   `find_references` for a common identifier through a running `ultra serve` (index
         warm in memory) against `rg -w -n` for the same word over the same files

Usage: python3 bench/index_bench.py [--runs 3] [--markdown FILE]
Needs: target/release/ultra, universal-ctags, GNU time; bench/shell_bench.py's vendor/.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WORK = os.path.join(HERE, "work")
CORPUS = os.path.join(WORK, "index-corpus")
ULTRA = os.path.join(REPO, "target", "release", "ultra")
DJANGO = "Django-5.1.4"
LANGS = "Rust,Python,JavaScript,TypeScript,Go,Java,C,C++"
EXTS = (".rs", ".py", ".pyi", ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".go", ".java",
        ".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx")


def corpus():
    """Build the corpus once: the vendored crates and the Django sdist."""
    if os.path.isdir(os.path.join(CORPUS, "vendor")) and os.path.isdir(os.path.join(CORPUS, DJANGO)):
        return
    os.makedirs(CORPUS, exist_ok=True)
    vendor = os.path.join(WORK, "vendor")
    if not os.path.isdir(vendor):
        subprocess.run(["cargo", "vendor", "--locked", "--versioned-dirs", vendor], cwd=REPO,
                       check=True, stdout=subprocess.DEVNULL)
    shutil.copytree(vendor, os.path.join(CORPUS, "vendor"), dirs_exist_ok=True)
    dl = os.path.join(WORK, "dl")
    os.makedirs(dl, exist_ok=True)
    tarball = os.path.join(dl, f"{DJANGO}.tar.gz")
    if not os.path.exists(tarball):
        subprocess.run([sys.executable, "-m", "pip", "download", "django==5.1.4", "--no-deps",
                        "--no-binary", ":all:", "-d", dl], check=True, stdout=subprocess.DEVNULL)
    with tarfile.open(tarball) as t:
        t.extractall(CORPUS, filter="data")


def stats():
    files, size = 0, 0
    for d, _, names in os.walk(CORPUS):
        for n in names:
            if n.endswith(EXTS):
                files += 1
                size += os.path.getsize(os.path.join(d, n))
    return files, size


def timed(argv, env=None):
    """(seconds, peak RSS MiB, stdout)."""
    t0 = time.perf_counter()
    p = subprocess.run(["/usr/bin/time", "-f", "maxrss=%M"] + argv, capture_output=True,
                       env={**os.environ, **(env or {})}, cwd=CORPUS)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"{argv!r} failed: {p.stderr.decode()[-500:]}")
    rss = [int(l.split("=")[1]) for l in p.stderr.decode().splitlines() if l.startswith("maxrss=")]
    return dt, (rss[-1] if rss else 0) / 1024, p.stdout.decode()


REF_WORD = "new"


def find_references(env, runs):
    """Median time of one `code.findReferences` call on a warm server, and of `rg -w`."""
    sys.path.insert(0, HERE)
    from rpc_bench import JsonLineClient  # the same raw NDJSON client as the RPC bench
    sock = os.path.join(env["XDG_STATE_HOME"], "bench.sock")
    proc = subprocess.Popen([ULTRA, "serve", "--root", CORPUS, "--socket", sock, "--no-prompt"],
                            env={**os.environ, **env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 120
        while not os.path.exists(sock):
            if time.time() > deadline:
                raise SystemExit("ultra serve did not start")
            time.sleep(0.05)
        c = JsonLineClient(sock)
        params = {"symbol": REF_WORD, "limit": 1000000, "contextLines": 0}
        c.call("code.reindex", {})  # wait for the warm-up to finish
        times, count = [], 0
        for _ in range(runs):
            t0 = time.perf_counter()
            r = c.call("code.findReferences", params)
            times.append(time.perf_counter() - t0)
            count = r["totalReferences"]
        c.close()
    finally:
        proc.terminate()
        proc.wait()
    rg_times, rg_count = [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        # The same files the index covers: its nine languages, .gitignore respected.
        types = [a for t in ["rust", "py", "js", "ts", "go", "java", "c", "cpp"] for a in ("-t", t)]
        out = subprocess.run(["rg", "-w", "-n", "--no-heading", *types, REF_WORD, "."], cwd=CORPUS,
                             capture_output=True)
        rg_times.append(time.perf_counter() - t0)
        rg_count = out.stdout.count(b"\n")
    return {"ultra": statistics.median(times), "ultra_count": count,
            "rg": statistics.median(rg_times), "rg_count": rg_count}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--markdown")
    a = ap.parse_args()
    for tool in ["ctags", "rg", "/usr/bin/time"]:
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is missing (bench/setup.sh installs it)")
    if not os.access(ULTRA, os.X_OK):
        raise SystemExit("build Ultra first: cargo build --release -p ultra")
    corpus()
    files, size = stats()
    state = tempfile.mkdtemp(prefix="ultra-index-bench-")
    env = {"XDG_STATE_HOME": state}
    tags = os.path.join(state, "tags")
    results = {"ultra cold": [], "ctags -R": [], "ultra warm": []}
    summary = None
    for _ in range(a.runs):
        dt, mem, out = timed([ULTRA, "--root", CORPUS, "index", "--cold", "--json-summary"], env)
        results["ultra cold"].append((dt, mem))
        summary = json.loads(out)
        results["ctags -R"].append(timed(["ctags", "-R", f"--languages={LANGS}", "-f", tags, "."])[:2])
        results["ultra warm"].append(timed([ULTRA, "--root", CORPUS, "index", "--json-summary"], env)[:2])
    refs = find_references(env, a.runs)
    shutil.rmtree(state, ignore_errors=True)
    med = {k: statistics.median(t for t, _ in v) for k, v in results.items()}
    mem = {k: max(m for _, m in v) for k, v in results.items()}
    mb = size / 1e6
    lines = [
        f"Corpus: {files} source files, {mb:.1f} MB (vendor/ from `cargo vendor --locked`, {DJANGO} from PyPI). "
        f"Median of {a.runs} interleaved runs.", "",
        "| case | wall | files/s | MB/s | peak RSS | vs ctags |", "|---|---|---|---|---|---|",
    ]
    for k in ["ultra cold", "ctags -R", "ultra warm"]:
        lines.append(f"| {k} | {med[k]:.2f} s | {files / med[k]:.0f} | {mb / med[k]:.1f} | {mem[k]:.0f} MiB | "
                     f"**{med[k] / med['ctags -R']:.2f}×** |")
    lines += ["", f"Ultra's cold index also produced {summary['definitions']} definitions, "
              f"{summary['references']} references and {summary['imports']} imports "
              f"({summary['dependencyEdges']} resolved to workspace files)."]
    lines += ["", f"`find_references {REF_WORD}` through the server, median of {a.runs}: "
              f"{refs['ultra'] * 1e3:.0f} ms for {refs['ultra_count']} references (code only) against "
              f"`rg -w -n {REF_WORD}` {refs['rg'] * 1e3:.0f} ms for {refs['rg_count']} matching lines "
              f"(comments and strings too): **{refs['ultra'] / refs['rg']:.2f}×**."]
    report = "\n".join(lines) + "\n"
    print(report)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(report)


if __name__ == "__main__":
    main()
