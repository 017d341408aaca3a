#!/usr/bin/env python3
"""Ultra's code index at scale, next to universal-ctags and ripgrep, side by side in one run.

Corpus (built once from the package registries, under bench/work/index-scale/, then reused):
  vendor/   `cargo vendor --versioned-dirs` of a scratch crate depending on the CRATES below
  npm/      `npm pack` of the NPM packages below, each extracted into npm/<name>-<version>/
  python/   the Django sdist from PyPI (`pip download --no-binary :all:`)

The files Ultra indexes: `rg --files` over its languages' extensions (hidden files, .gitignore'd
paths, node_modules/.git/__pycache__/.venv and files over 4 MiB left out). ctags gets exactly
that list (`ctags -L`).

Cases (1-6 are repeated --runs times, the tools' order rotating; medians of the runs):
  1 cold        `ultra index --cold` (fresh state dir) against `ctags -L list` (wall, peak RSS)
  2 warm        `ultra index` on the unchanged tree after the cold one
  3 serving     `ultra serve` on the warm store: time to the first findDefinition answer,
                VmRSS/VmHWM once `code.reindex` says it is ready
  4 cold query  `ultra serve` with an empty store: the first findDefinition, sent as soon
                as the socket exists (how long, and what it answered)
  5 edit        on the warm server: append a new function to a file, poll findDefinition until
                it is found (--edits times, p50/p99); getDependents right after an edit, and warm
  6 not found   findDefinition of a missing symbol (SYMBOL_NOT_FOUND) against a hit
  7 parity      once: ctags' function/method tags, sampled per language, looked up with
                findDefinition (same path and line = hit); example misses go to stdout
  8 sizes       once: bytes of a few answers with their default limits

Usage: python3 bench/index_scale.py [--runs 3] [--edits 50] [--markdown F] [--json F]
                                     [--ultra target/release/ultra] [--cases 1,2,...]
Needs: cargo, npm, pip (first run only, for the corpus), ultra (release build),
universal-ctags (/usr/bin/ctags), ripgrep, GNU time (/usr/bin/time). Not part of CI.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WORK = os.path.join(HERE, "work")
CORPUS = os.path.join(WORK, "index-scale")
SCRATCH = os.path.join(WORK, "index-scale-crate")  # the scratch cargo project (not in CORPUS)
DOWNLOADS = os.path.join(WORK, "index-scale-dl")  # npm and PyPI tarballs

# Pinned versions. Direct Rust dependencies are pinned with `=`; their own dependencies are
# whatever Cargo resolves on the first build (no Cargo.lock is kept), recorded in
# index-scale/vendor/ by their versioned directory names.
CRATES = {
    "tokio": ("1.54.1", ["full"]),
    "bevy_ecs": ("0.20.1", []),
    "cranelift-codegen": ("0.135.8", []),
    "cranelift-frontend": ("0.135.8", []),
    "git2": ("0.21.0", []),
}
NPM = [("typescript", "5.9.3"), ("rxjs", "7.8.2"), ("effect", "3.22.4")]
DJANGO = "5.2.8"

# What Ultra indexes (crates/ultra-index/src/lang/mod.rs, Lang::of_path) and what it skips.
EXTS = ["rs", "py", "pyi", "ts", "mts", "cts", "tsx", "js", "mjs", "cjs", "jsx", "go", "java",
        "c", "h", "cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++", "ipp"]
SKIP_DIRS = ["node_modules", ".git", "__pycache__", ".venv"]
MAX_FILE_BYTES = 4 << 20  # crates/ultra-index/src/build.rs: larger files are not parsed
# ctags: the same languages, with the extensions its default maps lack.
CTAGS_LANGS = "Rust,Python,JavaScript,TypeScript,Go,Java,C,C++"
CTAGS_MAPS = ["--map-Python=+.pyi", "--map-TypeScript=+.tsx", "--map-TypeScript=+.mts",
              "--map-TypeScript=+.cts", "--map-JavaScript=+.cjs", "--map-C++=+.ipp"]

CALL_TIMEOUT = 120.0  # seconds, any single JSON-RPC call
CMD_TIMEOUT = 1800.0  # seconds, any single external command


def log(msg: str):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def run(argv, cwd=None, timeout=CMD_TIMEOUT, **kw):
    try:
        return subprocess.run(argv, cwd=cwd, check=True, timeout=timeout, **kw)
    except FileNotFoundError:
        raise SystemExit(f"{argv[0]} is not installed (needed for: {' '.join(argv[:3])})")
    except subprocess.CalledProcessError as e:
        err = e.stderr.decode(errors="replace")[-1500:] if isinstance(e.stderr, bytes) else ""
        raise SystemExit(f"failed ({e.returncode}): {' '.join(argv)}\n{err}")
    except subprocess.TimeoutExpired:
        raise SystemExit(f"timed out after {timeout:.0f} s: {' '.join(argv)}")


# --------------------------------------------------------------------------- corpus


def build_corpus():
    """Build each part of the corpus once (a part is done when its directory exists)."""
    os.makedirs(CORPUS, exist_ok=True)
    os.makedirs(DOWNLOADS, exist_ok=True)

    vendor = os.path.join(CORPUS, "vendor")
    if not os.path.isdir(vendor):
        for tool in ["cargo"]:
            if not shutil.which(tool):
                raise SystemExit(f"{tool} is needed to build the corpus once")
        log("corpus: cargo vendor (first run only)")
        os.makedirs(os.path.join(SCRATCH, "src"), exist_ok=True)
        deps = []
        for name, (ver, feats) in CRATES.items():
            f = f', features = [{", ".join(json.dumps(x) for x in feats)}]' if feats else ""
            deps.append(f'{name} = {{ version = "={ver}"{f} }}')
        with open(os.path.join(SCRATCH, "Cargo.toml"), "w") as f:
            f.write('[package]\nname = "index-scale-corpus"\nversion = "0.0.0"\nedition = "2021"\n'
                    "publish = false\n\n# Not part of the Ultra workspace around it.\n[workspace]\n\n"
                    "[dependencies]\n" + "\n".join(deps) + "\n")
        with open(os.path.join(SCRATCH, "src", "lib.rs"), "w") as f:
            f.write("")
        tmp = vendor + ".partial"
        shutil.rmtree(tmp, ignore_errors=True)
        run(["cargo", "vendor", "--versioned-dirs", tmp], cwd=SCRATCH, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE)
        os.rename(tmp, vendor)

    for name, ver in NPM:
        dest = os.path.join(CORPUS, "npm", f"{name}-{ver}")
        if os.path.isdir(dest):
            continue
        if not shutil.which("npm"):
            raise SystemExit("npm is needed to build the corpus once")
        log(f"corpus: npm pack {name}@{ver}")
        tgz = os.path.join(DOWNLOADS, f"{name}-{ver}.tgz")
        if not os.path.exists(tgz):
            run(["npm", "pack", f"{name}@{ver}", "--pack-destination", DOWNLOADS],
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        tmp = dest + ".partial"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        with tarfile.open(tgz) as t:
            members = []
            for m in t.getmembers():  # strip the leading `package/`
                parts = m.name.split("/", 1)
                if len(parts) == 2 and parts[1]:
                    m.name = parts[1]
                    members.append(m)
            t.extractall(tmp, members=members, filter="data")
        os.rename(tmp, dest)

    pydir = os.path.join(CORPUS, "python")
    if not os.path.isdir(pydir):
        log(f"corpus: pip download django=={DJANGO}")
        tgz = [n for n in os.listdir(DOWNLOADS) if n.lower() == f"django-{DJANGO}.tar.gz"]
        if not tgz:
            run([sys.executable, "-m", "pip", "download", f"django=={DJANGO}", "--no-deps",
                 "--no-binary", ":all:", "-d", DOWNLOADS], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            tgz = [n for n in os.listdir(DOWNLOADS) if n.lower() == f"django-{DJANGO}.tar.gz"]
        tmp = pydir + ".partial"
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        with tarfile.open(os.path.join(DOWNLOADS, tgz[0])) as t:
            t.extractall(tmp, filter="data")
        os.rename(tmp, pydir)


def ultra_files() -> list[str]:
    """The files Ultra indexes, relative to CORPUS, sorted: ripgrep's walk with its filters."""
    argv = ["rg", "--files", "--no-config", "--no-require-git", "--max-filesize", str(MAX_FILE_BYTES)]
    for e in EXTS:
        argv += ["--type-add", f"ultra:*.{e}"]
    argv += ["-t", "ultra"]
    for d in SKIP_DIRS:
        argv += ["-g", f"!**/{d}/**"]
    out = run(argv, cwd=CORPUS, capture_output=True).stdout.decode()
    return sorted(p[2:] if p.startswith("./") else p for p in out.splitlines() if p)


def lang_of(path: str) -> str | None:
    ext = path.rsplit(".", 1)[-1]
    if ext == "rs":
        return "Rust"
    if ext in ("py", "pyi"):
        return "Python"
    if ext in ("ts", "tsx", "mts", "cts"):
        return "TypeScript"
    if ext in ("js", "mjs", "cjs", "jsx"):
        return "JavaScript"
    if ext == "go":
        return "Go"
    if ext == "java":
        return "Java"
    return "C/C++" if ext in EXTS else None


def main():
    build_corpus()
    files = ultra_files()
    size = sum(os.path.getsize(os.path.join(CORPUS, p)) for p in files)
    print(len(files), size / 1e6)


if __name__ == "__main__":
    main()
