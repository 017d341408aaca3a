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
Needs: cargo, npm, pip (first run only, for the corpus), ultra (release build), the parse floor
(`cargo build --release -p ultra-index --example parse_floor`; skipped when missing),
universal-ctags (/usr/bin/ctags), ripgrep, GNU time (/usr/bin/time). Not part of CI.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import random
import re
import shutil
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
# `cargo build --release -p ultra-index --example parse_floor`
PARSE_FLOOR = os.path.join(REPO, "target", "release", "examples", "parse_floor")
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
    paths = (p[2:] if p.startswith("./") else p for p in out.splitlines() if p)
    # ripgrep 13 lets a `-t` type match a hidden file (django's tests/.../.util.py); Ultra
    # skips every hidden file and directory.
    return sorted(p for p in paths if not any(c.startswith(".") for c in p.split("/")))


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



def corpus_stats(files: list[str]) -> dict:
    by_top, total = {}, 0
    for p in files:
        n = os.path.getsize(os.path.join(CORPUS, p))
        total += n
        top = p.split("/", 1)[0]
        f, b = by_top.get(top, (0, 0))
        by_top[top] = (f + 1, b + n)
    return {"files": len(files), "bytes": total, "parts": by_top}


# --------------------------------------------------------------------------- probe files


BACKUP = os.path.join(WORK, "index-scale-backup")  # originals of the files case 5 edits


def restore_backups():
    """Put back files a previous, interrupted run left edited."""
    if not os.path.isdir(BACKUP):
        return
    for d, _, names in os.walk(BACKUP):
        for n in names:
            src = os.path.join(d, n)
            rel = os.path.relpath(src, BACKUP)
            shutil.copy2(src, os.path.join(CORPUS, rel))
            log(f"restored {rel} from an interrupted run")
    shutil.rmtree(BACKUP)


PROBE_LANGS = {  # language -> (extensions, line appended for probe NAME)
    "Rust": ((".rs",), "\nfn {name}() {{}}\n"),
    "Python": ((".py",), "\ndef {name}():\n    pass\n"),
    "TypeScript": ((".ts",), "\nfunction {name}() {{}}\n"),
    "JavaScript": ((".js",), "\nfunction {name}() {{}}\n"),
}


def probe_files(files: list[str]) -> list[tuple[str, str]]:
    """One mid-sized file per language (the median size among its files, `.d.ts` excluded)."""
    out = []
    for lang, (exts, line) in PROBE_LANGS.items():
        cands = sorted((os.path.getsize(os.path.join(CORPUS, p)), p) for p in files
                       if p.endswith(exts) and not p.endswith(".d.ts") and "/test" not in p)
        out.append((cands[len(cands) // 2][1], line))
    return out


class Probes:
    """Appends probe functions to the probe files; `restore()` puts the originals back."""

    def __init__(self, files: list[tuple[str, str]], tag: str):
        self.files = files
        self.tag = tag
        self.orig = {}
        self.n = 0
        for rel, _ in files:
            path = os.path.join(CORPUS, rel)
            with open(path, "rb") as f:
                self.orig[rel] = (f.read(), os.stat(path))
            os.makedirs(os.path.dirname(os.path.join(BACKUP, rel)), exist_ok=True)
            shutil.copy2(path, os.path.join(BACKUP, rel))

    def append(self) -> tuple[str, str]:
        """Append a new function to the next probe file; (its name, the file)."""
        rel, line = self.files[self.n % len(self.files)]
        self.n += 1
        name = f"bench_probe_{self.tag}_{self.n}"
        with open(os.path.join(CORPUS, rel), "a") as f:
            f.write(line.format(name=name))
        return name, rel

    def restore(self):
        for rel, (data, st) in self.orig.items():
            path = os.path.join(CORPUS, rel)
            with open(path, "wb") as f:
                f.write(data)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        shutil.rmtree(BACKUP, ignore_errors=True)


# --------------------------------------------------------------------------- client and servers

try:
    import msgpack  # noqa: F401  rpc_bench imports it at the top; JsonLineClient does not use it
except ImportError:
    sys.modules["msgpack"] = types.ModuleType("msgpack")
sys.path.insert(0, HERE)
from rpc_bench import JsonLineClient  # noqa: E402  the raw NDJSON JSON-RPC client


class Client(JsonLineClient):
    """JsonLineClient with a timeout on every call, and error replies returned, not raised."""

    def __init__(self, path: str, timeout: float = CALL_TIMEOUT):
        super().__init__(path)
        self.sock.settimeout(timeout)

    def request(self, method: str, params: dict, timeout: float | None = None):
        """(reply dict with `result` or `error`, reply bytes, seconds)."""
        if timeout is not None:
            self.sock.settimeout(timeout)
        t0 = time.perf_counter()
        try:
            line = self.call_raw(self.request_bytes(method, params))
        except socket.timeout:
            raise SystemExit(f"{method} {json.dumps(params)} got no answer in "
                             f"{self.sock.gettimeout():.0f} s")
        dt = time.perf_counter() - t0
        if timeout is not None:
            self.sock.settimeout(CALL_TIMEOUT)
        return json.loads(line), len(line), dt

    def result(self, method: str, params: dict, timeout: float | None = None):
        reply, _, _ = self.request(method, params, timeout)
        if "error" in reply:
            raise SystemExit(f"{method} {json.dumps(params)} failed: {json.dumps(reply['error'])[:500]}")
        return reply["result"]


def error_code(reply: dict) -> str | None:
    e = reply.get("error")
    if e is None:
        return None
    return (e.get("data") or {}).get("code") or str(e.get("code"))


class Server:
    """`ultra serve` on CORPUS; `t0` is when it was started. Always `stop()` it (finally)."""

    def __init__(self, ultra: str, env: dict, tmp: str, name: str):
        self.sock = os.path.join(env["XDG_RUNTIME_DIR"], f"{name}.sock")
        self.log = open(os.path.join(tmp, f"{name}.log"), "ab")
        self.t0 = time.perf_counter()
        self.proc = subprocess.Popen([ultra, "serve", "--root", CORPUS, "--socket", self.sock, "--no-prompt"],
                                     env=env, cwd=CORPUS, stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=self.log)

    def connect(self, timeout: float = 120.0) -> tuple[Client, float]:
        """Connect as soon as the socket accepts; (client, seconds since start)."""
        deadline = time.monotonic() + timeout
        while True:
            if self.proc.poll() is not None:
                raise SystemExit(f"ultra serve exited ({self.proc.returncode}); see {self.log.name}")
            if os.path.exists(self.sock):
                try:
                    c = Client(self.sock)
                    return c, time.perf_counter() - self.t0
                except OSError:
                    pass
            if time.monotonic() > deadline:
                raise SystemExit(f"ultra serve's socket did not appear in {timeout:.0f} s")
            time.sleep(0.002)

    def status_mib(self) -> dict:
        out = {}
        with open(f"/proc/{self.proc.pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM"):
                    out[k] = int(v.split()[0]) / 1024
        return out

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


def timed(argv, env=None) -> tuple[float, float, bytes]:
    """(seconds, peak RSS MiB, stdout) of a command run in CORPUS."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(["/usr/bin/time", "-f", "maxrss=%M"] + argv, capture_output=True,
                           env=env, cwd=CORPUS, timeout=CMD_TIMEOUT)
    except subprocess.TimeoutExpired:
        raise SystemExit(f"timed out after {CMD_TIMEOUT:.0f} s: {' '.join(argv)}")
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise SystemExit(f"failed ({p.returncode}): {' '.join(argv)}\n{p.stderr.decode(errors='replace')[-800:]}")
    rss = [int(l.split("=")[1]) for l in p.stderr.decode().splitlines() if l.startswith("maxrss=")]
    return dt, (rss[-1] if rss else 0) / 1024, p.stdout


def pct(xs: list[float], q: float) -> float:
    """Nearest-rank percentile."""
    s = sorted(xs)
    return s[max(0, min(len(s) - 1, int(-(-q * len(s) // 1)) - 1))]


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


# --------------------------------------------------------------------------- cases


class Bench:
    def __init__(self, a, files: list[str]):
        self.a = a
        self.ultra = a.ultra
        self.files = files
        self.tmp = tempfile.mkdtemp(prefix="ultra-index-scale-")
        self.filelist = os.path.join(self.tmp, "files.txt")
        with open(self.filelist, "w") as f:
            f.write("\n".join(files) + "\n")
        self.probe_files = probe_files(files)
        self.raw = {}  # case -> list of per-run dicts
        self.once = {}  # case -> dict

    def env(self, name: str) -> dict:
        """A fresh, empty state dir and a private runtime dir (no other server is found)."""
        state = os.path.join(self.tmp, f"state-{name}")
        shutil.rmtree(state, ignore_errors=True)
        os.makedirs(state)
        rt = os.path.join(self.tmp, "run")
        os.makedirs(rt, mode=0o700, exist_ok=True)
        os.chmod(rt, 0o700)
        env = {**os.environ, "XDG_STATE_HOME": state, "XDG_RUNTIME_DIR": rt}
        env.pop("ULTRA_SOCKET", None)
        return env

    def add(self, case: str, **kw):
        self.raw.setdefault(case, []).append(kw)

    # ---- cases 1 and 2

    def index_cases(self, i: int, env: dict):
        ultra_cold = [self.ultra, "--root", CORPUS, "index", "--cold", "--json-summary"]
        tags = os.path.join(self.tmp, "tags")
        ctags = ["ctags", "-L", self.filelist, "-f", tags, f"--languages={CTAGS_LANGS}", *CTAGS_MAPS]
        rg_walk = ["rg", "--files", "--no-config", "--no-require-git", "--max-filesize", str(MAX_FILE_BYTES),
                   *[x for e in EXTS for x in ("--type-add", f"ultra:*.{e}")], "-t", "ultra"]
        rg_word = ["rg", "-w", "-n", "-c", "--no-config", "--no-require-git", "--max-filesize",
                   str(MAX_FILE_BYTES), *[x for e in EXTS for x in ("--type-add", f"ultra:*.{e}")],
                   "-t", "ultra", "spawn"]
        order = ["ultra", "ctags", "rg", "floor"]
        order = order[i % 4:] + order[:i % 4]
        for tool in order:
            if tool == "ultra":
                log(f"run {i + 1}: ultra index --cold")
                dt, rss, out = timed(ultra_cold, env)
                summary = json.loads(out)
                self.add("ultra cold", wall=dt, rss=rss, summary=summary)
                log(f"run {i + 1}: ultra index (warm)")
                dt, rss, out = timed(ultra_cold[:-2] + ["--json-summary"], env)
                self.add("ultra warm", wall=dt, rss=rss, summary=json.loads(out))
            elif tool == "ctags":
                log(f"run {i + 1}: ctags -L")
                dt, rss, _ = timed(ctags)
                with open(tags, "rb") as f:
                    n = sum(1 for l in f if not l.startswith(b"!_"))
                os.unlink(tags)
                self.add("ctags", wall=dt, rss=rss, tags=n)
            elif tool == "floor":
                if not os.access(PARSE_FLOOR, os.X_OK):
                    continue
                log(f"run {i + 1}: parse floor")
                dt, rss, out = timed([PARSE_FLOOR, CORPUS, str(os.cpu_count() or 2)])
                floor = json.loads(out)
                self.add("parse floor", wall=dt, rss=rss, files=floor["files"], bytes=floor["bytes"],
                         errors={k: v["files"] for k, v in floor["withErrors"].items()})
            else:
                dt, rss, out = timed(rg_walk)
                self.add("rg files", wall=dt, rss=rss, files=out.count(b"\n"))
                t0 = time.perf_counter()
                p = subprocess.run(["/usr/bin/time", "-f", "maxrss=%M"] + rg_word, cwd=CORPUS,
                                   capture_output=True, timeout=CMD_TIMEOUT)
                dt = time.perf_counter() - t0
                rss = [int(l.split("=")[1]) for l in p.stderr.decode().splitlines() if l.startswith("maxrss=")]
                lines = sum(int(l.rsplit(b":", 1)[1]) for l in p.stdout.splitlines() if l)
                self.add("rg word", wall=dt, rss=(rss[-1] if rss else 0) / 1024, lines=lines)

    # ---- cases 3, 5, 6 (one warm server)

    def serving_cases(self, i: int, env: dict):
        srv = Server(self.ultra, env, self.tmp, f"warm-{i}")
        try:
            c, sock_s = srv.connect()
            reply, _, _ = c.request("code.findDefinition", {"symbol": "spawn"})
            first_s = time.perf_counter() - srv.t0
            state = (reply.get("result") or {}).get("index", {}).get("state") or error_code(reply)
            c.result("code.reindex", {}, timeout=1800)
            ready_s = time.perf_counter() - srv.t0
            mem = srv.status_mib()
            dep_first = c.request("code.getDependents", {"path": DEP_TARGETS[0]})[2]
            self.add("serving", socket=sock_s, first_answer=first_s, first_state=state, ready=ready_s,
                     rss=mem.get("VmRSS"), hwm=mem.get("VmHWM"), dependents_first=dep_first)
            log(f"run {i + 1}: serving: first answer {first_s:.2f} s ({state}), ready {ready_s:.2f} s, "
                f"VmRSS {mem.get('VmRSS', 0):.0f} MiB")
            if "6" in self.a.cases:
                self.not_found(c)
            if "8" in self.a.cases and i == 0:
                self.sizes(c)
            if "7" in self.a.cases and i == 0:
                self.parity(c)
            if "5" in self.a.cases:
                probes = Probes(self.probe_files, f"{os.getpid()}_{i}")
                try:
                    self.edits(i, c, probes)
                finally:
                    probes.restore()
            c.close()
        finally:
            srv.stop()

    def not_found(self, c: Client, n: int = 10):
        hit, miss, defs, code = [], [], None, None
        for _ in range(n):
            r, _, dt = c.request("code.findDefinition", {"symbol": "spawn"})
            hit.append(dt)
            defs = r["result"]["total"]
            r, _, dt = c.request("code.findDefinition", {"symbol": "noSuchSymbolXyz"})
            miss.append(dt)
            code = error_code(r)
        self.add("not found", hit=med(hit), miss=med(miss), hit_total=defs, miss_answer=code)

    def edits(self, i: int, c: Client, probes: Probes):
        lat, polls, timeouts = [], [], 0
        log(f"run {i + 1}: {self.a.edits} edits")
        for _ in range(self.a.edits):
            t0 = time.perf_counter()
            name, rel = probes.append()
            k = 0
            while True:
                k += 1
                r, _, _ = c.request("code.findDefinition", {"symbol": name})
                defs = (r.get("result") or {}).get("definitions") or []
                if any(d["path"] == rel for d in defs):
                    lat.append(time.perf_counter() - t0)
                    polls.append(k)
                    break
                if time.perf_counter() - t0 > 30:
                    timeouts += 1
                    break
                time.sleep(0.001)
        deps = {}
        for target in DEP_TARGETS:
            after, warm, count = [], [], None
            for _ in range(self.a.dep_edits):
                probes.append()
                r, _, dt = c.request("code.getDependents", {"path": target})
                after.append(dt)
                r, _, dt = c.request("code.getDependents", {"path": target})
                warm.append(dt)
                count = (r.get("result") or {}).get("totalDependents", error_code(r))
            deps[target] = {"after_edit": med(after), "warm": med(warm), "dependents": count}
        self.add("edit", p50=pct(lat, 0.5) if lat else None, p99=pct(lat, 0.99) if lat else None,
                 n=len(lat), timeouts=timeouts, polls_p50=pct(polls, 0.5) if polls else None,
                 polls_max=max(polls) if polls else None, dependents=deps)

    def sizes(self, c: Client):
        out = []
        for method, params in SIZE_CALLS:
            r, nbytes, dt = c.request(method, params)
            res = r.get("result") or {}
            items = next((len(v) for v in res.values() if isinstance(v, list)), None)
            total = next((res[k] for k in ("total", "totalReferences", "totalDependents", "files")
                          if isinstance(res.get(k), int)), None)
            if total is None and isinstance(res.get("summary"), dict):
                total = res["summary"].get("total")  # getTodos
            result_bytes = len(json.dumps(res, separators=(",", ":"), ensure_ascii=False).encode()) if res else 0
            out.append({"call": f"{method} {json.dumps(params)}", "bytes": nbytes, "result_bytes": result_bytes,
                        "items": items, "total": total, "next": res.get("nextCursor"),
                        "truncated": res.get("truncated"),
                        "seconds": dt, "error": error_code(r)})
        self.once["sizes"] = out

    # ---- case 4

    def cold_query(self, i: int, env: dict):
        srv = Server(self.ultra, env, self.tmp, f"cold-{i}")
        try:
            c, sock_s = srv.connect()
            reply, _, dt = c.request("code.findDefinition", {"symbol": "spawn"}, timeout=1800)
            first_s = time.perf_counter() - srv.t0
            res = reply.get("result")
            if res is not None:
                ix = res.get("index", {})
                prog = f" {ix['progress'][0]}/{ix['progress'][1]} files" if ix.get("progress") else ""
                answer = f"{len(res.get('definitions', []))} of {res.get('total')} definitions, index {ix.get('state')}{prog}"
            else:
                ix = ((reply["error"].get("data") or {}).get("details") or {}).get("index", {})
                prog = f" {ix['progress'][0]}/{ix['progress'][1]} files" if ix.get("progress") else ""
                answer = f"error {error_code(reply)}, index {ix.get('state')}{prog}"
            c.result("code.reindex", {}, timeout=1800)
            ready_s = time.perf_counter() - srv.t0
            mem = srv.status_mib()
            c.close()
            self.add("cold query", socket=sock_s, call=dt, first_answer=first_s, answer=answer,
                     ready=ready_s, rss=mem.get("VmRSS"), hwm=mem.get("VmHWM"))
            log(f"run {i + 1}: cold query: {dt * 1e3:.0f} ms, {answer}; ready after {ready_s:.1f} s")
        finally:
            srv.stop()

    # ---- case 7

    def parity(self, c: Client):
        log("parity: ctags tags")
        argv = ["ctags", "-L", self.filelist, "-f", "-", "--output-format=json", "--fields=+nKl",
                f"--languages={CTAGS_LANGS}", *CTAGS_MAPS]
        tags = {}
        with subprocess.Popen(argv, cwd=CORPUS, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as p:
            for line in p.stdout:
                t = json.loads(line)
                if t.get("_type") != "tag" or t.get("kind") not in FUNC_KINDS:
                    continue
                lang = PARITY_LANGS.get(lang_of(t["path"]))
                name = t["name"]
                if lang is None or "line" not in t or not name.isidentifier() or ANON.match(name):
                    continue
                tags.setdefault(lang, []).append((t["path"], t["line"], name, t["kind"]))
        rng = random.Random(self.a.seed)
        cache = {}
        out = {}
        for lang in PARITY_ORDER:
            all_tags = sorted(set(tags.get(lang, [])))
            sample = all_tags if len(all_tags) <= self.a.sample else rng.sample(all_tags, self.a.sample)
            log(f"parity: {lang}: {len(sample)} of {len(all_tags)} ctags function/method tags")
            hits, misses = 0, []
            for path, line, name, kind in sample:
                if name not in cache:
                    cache[name] = self.definitions(c, name)
                if (path, line) in cache[name]:
                    hits += 1
                else:
                    near = sorted(l for p, l in cache[name] if p == path)
                    misses.append({"path": path, "line": line, "name": name, "kind": kind, "same_file": near[:5]})
            out[lang] = {"tags": len(all_tags), "sampled": len(sample), "hits": hits, "misses": misses}
        self.once["parity"] = out

    @staticmethod
    def definitions(c: Client, name: str) -> set:
        found, cursor = set(), None
        # Pages end at 32 KB (about 100 definitions): a name like `default` takes hundreds.
        for _ in range(10000):
            params = {"symbol": name, "limit": 1000}
            if cursor is not None:
                params["cursor"] = cursor
            r, _, _ = c.request("code.findDefinition", params)
            res = r.get("result")
            if res is None:
                break  # SYMBOL_NOT_FOUND
            found.update((d["path"], d["line"]) for d in res["definitions"])
            cursor = res.get("nextCursor")
            if cursor is None:
                break
        return found


DEP_TARGETS = [f"python/django-{DJANGO}/django/db/models/__init__.py",
               "npm/rxjs-7.8.2/src/internal/Observable.ts"]
SIZE_CALLS = [
    ("code.findReferences", {"symbol": "clone"}),
    ("code.getStructure", {}),
    ("code.getTodos", {}),
    ("state.getDiagnostics", {}),
    ("code.findDefinition", {"symbol": "new"}),
]
FUNC_KINDS = {"function", "method", "member", "func", "generator", "getter", "setter"}
PARITY_LANGS = {"Rust": "Rust", "Python": "Python", "TypeScript": "TypeScript", "JavaScript": "JavaScript"}
PARITY_ORDER = ["Rust", "Python", "TypeScript", "JavaScript"]
ANON = re.compile(r"^(anonymousFunction|AnonymousFunction|__anon)[0-9a-fA-F]*$")


# --------------------------------------------------------------------------- report


def ms(x):
    return "–" if x is None else (f"{x * 1e3:.1f} ms" if x < 0.1 else f"{x * 1e3:.0f} ms")


def secs(x):
    return "–" if x is None else f"{x:.2f} s"


def mib(x):
    return "–" if x is None else f"{x:.0f} MiB"


def report(b: Bench, a, stats: dict, versions: dict) -> str:
    R = b.raw
    mb = stats["bytes"] / 1e6
    parts = ", ".join(f"{k}/ {f} files {n / 1e6:.1f} MB" for k, (f, n) in sorted(stats["parts"].items()))
    L = [
        "## Ultra's code index at scale (`bench/index_scale.py`)", "",
        f"Corpus `bench/work/index-scale/`: **{stats['files']} source files, {mb:.1f} MB** that Ultra "
        f"indexes ({parts}). " + versions["corpus"] + ".", "",
        f"{versions['machine']}; {versions['tools']}. Median of {a.runs} interleaved run(s).", "",
    ]

    def m(case, key):
        return med([r.get(key) for r in R.get(case, [])])

    def mx(case, key):
        xs = [r.get(key) for r in R.get(case, []) if r.get(key) is not None]
        return max(xs) if xs else None

    if "ultra cold" in R:
        ct = m("ctags", "wall")
        for r in R["ultra cold"]:
            r["seconds"] = r["summary"].get("seconds")
        L += ["### 1–2. Indexing the whole corpus", "",
              "| case | wall | files/s | MB/s | peak RSS | vs ctags |", "|---|---|---|---|---|---|"]
        rows = [("`ultra index --cold` (fresh state dir)", "ultra cold"),
                ("`ctags -L files` (tags only, same files)", "ctags"),
                ("`ultra index` (warm restart, unchanged tree)", "ultra warm"),
                ("`rg --files` (the walk only)", "rg files"),
                ("`rg -w -n -c spawn` (reads every file)", "rg word")]
        for label, k in rows:
            w = m(k, "wall")
            if w is None:
                continue
            ratio = f"**{w / ct:.2f}×**" if ct else "–"
            L.append(f"| {label} | {secs(w)} | {stats['files'] / w:.0f} | {mb / w:.1f} | {mib(m(k, 'rss'))} | {ratio} |")
        s = R["ultra cold"][-1]["summary"]
        L += ["", f"Ultra's cold index: {s.get('parsed')} files parsed, {s.get('skipped')} skipped (over 4 MiB), "
              f"{s.get('definitions')} definitions, {s.get('references')} references, {s.get('imports')} imports "
              f"({s.get('dependencyEdges')} resolved to workspace files); its own timer: {secs(m('ultra cold', 'seconds'))}. "
              f"ctags wrote {R['ctags'][-1]['tags'] if 'ctags' in R else '–'} tags. "
              f"Peak RSS is the median of the runs' `/usr/bin/time -f %M`.", ""]
    if "parse floor" in R and "ultra cold" in R:
        fl, cold = m("parse floor", "wall"), m("ultra cold", "wall")
        f = R["parse floor"][-1]
        errs = ", ".join(f"{k} {v}" for k, v in sorted(f["errors"].items()))
        L += ["### Parse floor", "",
              f"`crates/ultra-index/examples/parse_floor` reads and parses the same {f['files']} files with "
              f"tree-sitter on every core and does nothing else: **{secs(fl)}** "
              f"({f['bytes'] / 1e6 / fl:.1f} MB/s). Ultra's cold index takes **{cold / fl:.2f}×** the floor; "
              f"ctags takes {m('ctags', 'wall') / fl:.2f}× it. Files whose tree has a syntax error: {errs}.", ""]
        # On a noisy host the ratio of medians hides how far single runs swing; each run's
        # tools ran back to back, so its own ratios are the steadier measure.
        runs = list(zip(R["ultra cold"], R["parse floor"], R.get("ctags", [])))
        if len(runs) > 1:
            by_floor = [c["wall"] / f["wall"] for c, f, _ in runs]
            by_ctags = [c["wall"] / t["wall"] for c, _, t in runs]
            L += ["Per run, the cold index against the floor: "
                  + ", ".join(f"{x:.2f}×" for x in by_floor) + f" (median **{statistics.median(by_floor):.2f}×**); "
                  "against ctags: " + ", ".join(f"{x:.2f}×" for x in by_ctags)
                  + f" (median **{statistics.median(by_ctags):.2f}×**).", ""]
    if "serving" in R:
        L += ["### 3. Serving on the warm store", "",
              "`ultra serve` started on the store the warm restart left; times from the process start.", "",
              "| measure | median |", "|---|---|",
              f"| socket accepts | {ms(m('serving', 'socket'))} |",
              f"| first `code.findDefinition spawn` answered | {ms(m('serving', 'first_answer'))} "
              f"(index {', '.join(sorted(set(str(r['first_state']) for r in R['serving'])))}) |",
              f"| `code.reindex {{}}` returned (ready) | {ms(m('serving', 'ready'))} |",
              f"| VmRSS when ready | {mib(m('serving', 'rss'))} |",
              f"| VmHWM when ready | {mib(m('serving', 'hwm'))} |",
              f"| first `code.getDependents` on the server (models/__init__.py) | {ms(m('serving', 'dependents_first'))} |",
              ""]
    if "cold query" in R:
        answers = "; ".join(sorted(set(r["answer"] for r in R["cold query"])))
        L += ["### 4. First query on an empty store", "",
              "`ultra serve` with a fresh `XDG_STATE_HOME`; `code.findDefinition spawn` sent as soon as the "
              "socket accepts.", "",
              "| measure | median |", "|---|---|",
              f"| socket accepts (from start) | {ms(m('cold query', 'socket'))} |",
              f"| the first call took | {ms(m('cold query', 'call'))} |",
              f"| its answer | {answers} |",
              f"| `code.reindex {{}}` returned (ready, from start) | {secs(m('cold query', 'ready'))} |",
              f"| VmRSS / VmHWM when ready | {mib(m('cold query', 'rss'))} / {mib(m('cold query', 'hwm'))} |", ""]
    if "edit" in R:
        n = sum(r["n"] for r in R["edit"])
        to = sum(r["timeouts"] for r in R["edit"])
        files = ", ".join(f"`{p}`" for p, _ in b.probe_files)
        L += ["### 5. Reindex after one edit (warm server)", "",
              f"{a.edits} times a run: a new function appended to one of {files} (in turn), then "
              f"`code.findDefinition` polled (1 ms apart) until it returns it; a poll that misses costs a "
              f"not-found answer (case 6). {n} edits found"
              + (f", **{to} not found within 30 s**" if to else "") + ".", "",
              "| measure | p50 | p99 |", "|---|---|---|",
              f"| write → found | {ms(m('edit', 'p50'))} | {ms(m('edit', 'p99'))} |",
              f"| polls needed | {m('edit', 'polls_p50')} | max {mx('edit', 'polls_max')} |", "",
              f"`code.getDependents`, median of {a.dep_edits} calls a run, each right after an edit "
              "(another probe appended) and then again:", "",
              "| file | dependents | first call after an edit | warm |", "|---|---|---|---|"]
        for t in DEP_TARGETS:
            ds = [r["dependents"][t] for r in R["edit"]]
            L.append(f"| `{t}` | {ds[-1]['dependents']} | {ms(med([d['after_edit'] for d in ds]))} | "
                     f"{ms(med([d['warm'] for d in ds]))} |")
        L.append("")
    if "not found" in R:
        hit, miss = m("not found", "hit"), m("not found", "miss")
        L += ["### 6. Not found against a hit", "",
              "| call | answer | median latency |", "|---|---|---|",
              f"| `code.findDefinition spawn` | {R['not found'][-1]['hit_total']} definitions (first 50 returned) | {ms(hit)} |",
              f"| `code.findDefinition noSuchSymbolXyz` | {R['not found'][-1]['miss_answer']} | {ms(miss)} "
              f"(**{miss / hit:.1f}×**) |", ""]
    if "parity" in b.once:
        L += ["### 7. ctags parity", "",
              f"ctags' function/method tags (kinds {', '.join(sorted(FUNC_KINDS))}; anonymous ones left out), "
              f"up to {a.sample} per language sampled (seed {a.seed}); a hit is a `code.findDefinition "
              "{symbol, limit: 1000}` answer (all pages) with the same path and line.", "",
              "| language | ctags tags | sampled | hits | % |", "|---|---|---|---|---|"]
        for lang, p in b.once["parity"].items():
            pc = f"{100 * p['hits'] / p['sampled']:.1f}%" if p["sampled"] else "–"
            L.append(f"| {lang} | {p['tags']} | {p['sampled']} | {p['hits']} | {pc} |")
        L.append("")
    if "sizes" in b.once:
        L += ["### 8. Answer sizes (default limits)", "",
              "| call | reply bytes | items returned | total (files for getStructure) | time |", "|---|---|---|---|---|"]
        for s in b.once["sizes"]:
            L.append(f"| `{s['call']}` | {s['bytes']:,} | {s['items'] if s['items'] is not None else '–'} | "
                     f"{s['total'] if s['total'] is not None else '–'}{' (paged)' if s['next'] is not None else ''}{' (truncated)' if s.get('truncated') else ''} | "
                     f"{ms(s['seconds'])} |" + (f" {s['error']}" if s["error"] else ""))
        L.append("")
    return "\n".join(L)


def print_misses(b: Bench, n: int = 10):
    if "parity" not in b.once:
        return
    print("Example parity misses (path:line name [kind]; Ultra's definitions of that name in the same file):")
    for lang, p in b.once["parity"].items():
        print(f"  {lang}: {len(p['misses'])} misses")
        for x in p["misses"][:n]:
            print(f"    {x['path']}:{x['line']} {x['name']} [{x['kind']}]; same file: {x['same_file'] or 'none'}")
    print()


def versions_info(ultra: str) -> dict:
    def out(argv):
        try:
            return subprocess.run(argv, capture_output=True, timeout=30).stdout.decode().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "?"
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((l.split(":", 1)[1].strip() for l in f if l.startswith("model name")), "?")
    except OSError:
        pass
    crates = ", ".join(f"{k} {v}" + (f" ({'+'.join(f)})" if f else "") for k, (v, f) in CRATES.items())
    npm = ", ".join(f"{k} {v}" for k, v in NPM)
    return {
        "corpus": f"Pinned: crates {crates} (their dependencies as resolved, `cargo vendor --versioned-dirs`); "
                  f"npm {npm}; PyPI Django {DJANGO} sdist",
        "machine": f"{os.cpu_count()} CPUs ({cpu}), Linux {platform.release()}, {datetime.date.today()}",
        "tools": f"{out([ultra, '--version'])}, {out(['ctags', '--version']).split(',')[0]}, {out(['rg', '--version'])}",
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=3, help="interleaved runs of cases 1-6 (default 3)")
    ap.add_argument("--edits", type=int, default=50, help="edits a run in case 5 (default 50)")
    ap.add_argument("--dep-edits", type=int, default=10, help="getDependents edits a run and file (default 10)")
    ap.add_argument("--sample", type=int, default=400, help="ctags tags sampled per language (default 400)")
    ap.add_argument("--seed", type=int, default=1, help="sampling seed (default 1)")
    ap.add_argument("--cases", default="1,2,3,4,5,6,7,8", help="which cases (default all; 1 includes 2; 3 and 5-8 run on the store 1 builds)")
    ap.add_argument("--ultra", default=os.path.join(REPO, "target", "release", "ultra"))
    ap.add_argument("--markdown", help="also write the report to this file")
    ap.add_argument("--json", help="write the raw per-run numbers (and parity misses) to this file")
    ap.add_argument("--keep", action="store_true", help="keep the temp dir (state dirs, server logs)")
    a = ap.parse_args()
    a.cases = set(a.cases.split(","))
    if a.cases & {"3", "5", "6", "7", "8"} and "1" not in a.cases:
        raise SystemExit("cases 3 and 5-8 run on the store case 1 builds: add 1 to --cases")
    a.ultra = os.path.abspath(a.ultra)
    if not os.access(a.ultra, os.X_OK):
        raise SystemExit(f"no Ultra binary at {a.ultra} (cargo build --release -p ultra, or pass --ultra)")
    for tool, why in [("ctags", "universal-ctags (apt-get install universal-ctags)"),
                      ("rg", "ripgrep (apt-get install ripgrep)"), ("/usr/bin/time", "GNU time (apt-get install time)")]:
        if not shutil.which(tool):
            raise SystemExit(f"{tool} is missing: install {why}")
    if b"Universal Ctags" not in subprocess.run(["ctags", "--version"], capture_output=True).stdout:
        raise SystemExit("ctags is not universal-ctags (needed for -L, --output-format=json)")

    restore_backups()
    build_corpus()
    files = ultra_files()
    stats = corpus_stats(files)
    log(f"corpus: {stats['files']} files, {stats['bytes'] / 1e6:.1f} MB")
    versions = versions_info(a.ultra)
    b = Bench(a, files)
    try:
        for i in range(a.runs):
            env = b.env(f"run{i}")  # fresh state dir: the cold index, then the warm cases on it
            if "1" in a.cases:
                b.index_cases(i, env)
                if a.cases & {"3", "5", "6", "7", "8"}:
                    b.serving_cases(i, env)
            if "4" in a.cases:
                b.cold_query(i, b.env(f"cold{i}"))
            shutil.rmtree(env["XDG_STATE_HOME"], ignore_errors=True)
        md = report(b, a, stats, versions)
    finally:
        if a.keep:
            log(f"kept {b.tmp}")
        else:
            shutil.rmtree(b.tmp, ignore_errors=True)
    print()
    print_misses(b)
    print(md)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(md + "\n")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"corpus": stats, "versions": versions, "probe_files": b.probe_files,
                       "runs": b.raw, "once": b.once}, f, indent=1)


if __name__ == "__main__":
    main()
