#!/usr/bin/env python3
"""Issue 22's benchmarks, Ultra beside the language server's own CLI, in one run.

1. Edit to diagnostics, for two languages. An agent's `ultra.applyEdits` alternately adds a
   type error to a file and takes it away; the call answers once the language server
   (through Ultra, warm) settled, with `newDiagnostics`/`fixedDiagnostics`. Beside it: what
   an agent without Ultra runs after each edit on the same files. Both must see the error
   when it is there, and not when it is not.
   - Python: a copy of Django 5.2.8's package (the PyPI sdist index_scale.py downloads),
     `django/utils/text.py`, pyright; beside it `pyright django/utils/text.py`.
   - TypeScript: a copy of rxjs 7.8.2's `src/` (the npm tarball), with a strict tsconfig
     of the bench's own, `src/internal/Observable.ts`, typescript-language-server; beside
     it `tsc --noEmit -p .` (the project: tsc checks nothing less).
2. Precision and recall of `find_references` on a generated fixture whose right answers are
   known by construction: same-named functions in several modules, a method of that name,
   locals shadowing it, and `@overload`ed declarations. For each target symbol: the
   language server's references (`line` given, `precision: semantic`) and the index's by
   name (`syntactic`).

Needs: `cargo build --release -p ultra`, the servers installed by `npm ci` in
crates/ultra-lsp/tests/servers, and the corpus (index_scale.py builds it).

    python3 bench/lsp_bench.py [--edits 20] [--cli-runs 6] [--cases python,typescript]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from index_scale import Client, pct, med  # noqa: E402

SERVERS = os.path.join(REPO, "crates/ultra-lsp/tests/servers/node_modules/.bin")
DJANGO = os.path.join(HERE, "work/index-scale/python/django-5.2.8")
RXJS = os.path.join(HERE, "work/index-scale/npm/rxjs-7.8.2")
TSCONFIG = {
    "compilerOptions": {
        "strict": True, "target": "es2020", "lib": ["es2020", "dom"], "module": "esnext",
        "moduleResolution": "node", "noEmit": True, "skipLibCheck": True,
        "baseUrl": "src", "paths": {"rxjs": ["./"], "rxjs/*": ["./*"]},
    },
    "include": ["src/**/*.ts"],
}


def copy_django(root):
    shutil.copytree(os.path.join(DJANGO, "django"), os.path.join(root, "django"))


def copy_rxjs(root):
    # rxjs' own tsconfigs extend files outside `src/` and need tslib: the bench's replaces them.
    shutil.copytree(os.path.join(RXJS, "src"), os.path.join(root, "src"),
                    ignore=shutil.ignore_patterns("tsconfig*.json"))
    with open(os.path.join(root, "tsconfig.json"), "w") as f:
        json.dump(TSCONFIG, f)


def pyright_finds(root, target):
    p = subprocess.run([os.path.join(SERVERS, "pyright"), "--outputjson", target], cwd=root,
                       capture_output=True)
    out = json.loads(p.stdout or b"{}")
    return [d.get("rule") for d in out.get("generalDiagnostics", [])
            if d.get("rule") == "reportAssignmentType"]


def tsc_finds(root, target):
    p = subprocess.run([os.path.join(SERVERS, "tsc"), "--noEmit", "-p", "."], cwd=root,
                       capture_output=True, text=True)
    return ["2322" for line in p.stdout.splitlines()
            if line.startswith(target + "(") and "error TS2322" in line]


CASES = {
    "python": {
        "copy": copy_django, "target": "django/utils/text.py",
        "probe": '\n_ultra_bench_probe: int = "not an int"\n', "code": "reportAssignmentType",
        "lsp": {"python": {"command": os.path.join(SERVERS, "pyright-langserver"),
                           "args": ["--stdio"]},
                "typescript": {"enabled": False}},
        "server": "pyright", "cli": "pyright django/utils/text.py", "finds": pyright_finds,
    },
    "typescript": {
        "copy": copy_rxjs, "target": "src/internal/Observable.ts",
        "probe": '\nexport const ultraBenchProbe: number = "not a number";\n', "code": "2322",
        "lsp": {"typescript": {"command": os.path.join(SERVERS, "typescript-language-server"),
                               "args": ["--stdio"]},
                "python": {"enabled": False}},
        "server": "typescript-language-server", "cli": "tsc --noEmit -p .", "finds": tsc_finds,
    },
}


def log(msg):
    print(msg, file=sys.stderr, flush=True)


class Serve:
    """`ultra serve` on `root` with the test servers (`lsp`: the config's `lsp` section,
    pyright by default); stopped by `stop()`."""

    def __init__(self, ultra, root, tmp, lsp=None):
        self.env = dict(os.environ, XDG_STATE_HOME=os.path.join(tmp, "state"),
                        XDG_RUNTIME_DIR=os.path.join(tmp, "run"), HOME=os.path.join(tmp, "home"))
        for d in ("state", "run", "home"):
            os.makedirs(os.path.join(tmp, d), mode=0o700, exist_ok=True)
        with open(os.path.join(root, "ultra.config.json"), "w") as f:
            json.dump({"lsp": {**(lsp or CASES["python"]["lsp"]), "rust": {"enabled": False}}}, f)
        self.sock = os.path.join(tmp, "run", "ultra.sock")
        self.log = open(os.path.join(tmp, "serve.log"), "ab")
        self.proc = subprocess.Popen([ultra, "serve", "--root", root, "--socket", self.sock,
                                      "--no-prompt"], env=self.env, cwd=root,
                                     stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        deadline = time.monotonic() + 60
        while not os.path.exists(self.sock):
            if time.monotonic() > deadline or self.proc.poll() is not None:
                raise SystemExit("ultra serve did not start; see " + self.log.name)
            time.sleep(0.01)
        self.c = Client(self.sock, timeout=300)
        self.c.result("session.identify", {"source": "ai", "agentId": "bench"})

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.log.close()


def codes(ds):
    return sorted(str(d.get("code")) for d in ds)


def edit_to_diagnostics(ultra, tmp, case, edits, cli_runs):
    c = CASES[case]
    target, probe, code = c["target"], c["probe"], c["code"]
    root = os.path.join(tmp, case)
    log(f"{case}: copying the project")
    c["copy"](root)
    path = os.path.join(root, target)
    clean = open(path).read()
    s = Serve(ultra, root, os.path.join(tmp, case + "-state"), c["lsp"])
    try:
        t0 = time.perf_counter()
        while True:
            d = s.c.result("state.getDiagnostics", {"path": target}, timeout=300)
            if d.get("languageServer", {}).get("state") == "ready":
                break
        first = time.perf_counter() - t0
        log(f"first diagnostics of {target} ({c['server']} starting): {first:.2f} s")
        ultra_s, ok = [], 0
        for i in range(edits):
            adding = i % 2 == 0
            e = ({"old": clean[-40:], "new": clean[-40:] + probe} if adding
                 else {"old": probe, "new": ""})
            reply, _, dt = s.c.request("ultra.applyEdits",
                                       {"files": [{"path": target, "edits": [e]}], "save": True})
            r = reply["result"]
            servers = r.get("languageServers", [])
            right = (servers and servers[0]["state"] == "ready" and
                     (codes(r["newDiagnostics"]) == [code] if adding
                      else codes(r["fixedDiagnostics"]) == [code]))
            ok += bool(right)
            if not right:
                log(f"edit {i}: unexpected answer {json.dumps(r)[:400]}")
            ultra_s.append(dt)
    finally:
        s.stop()
    cli_s, cli_ok = [], 0
    for i in range(cli_runs):
        adding = i % 2 == 0
        open(path, "w").write(clean + probe if adding else clean)
        t0 = time.perf_counter()
        found = c["finds"](root, target)
        cli_s.append(time.perf_counter() - t0)
        cli_ok += (found == [code]) == adding
    open(path, "w").write(clean)
    return {"first": first, "ultra": ultra_s, "ultra_ok": ok, "cli": cli_s, "cli_ok": cli_ok}


# ---------------------------------------------------------------- precision and recall

MODULES = 4


def fixture(root):
    """Writes the fixture; returns {target: (path, line, set of (path, line) that are its
    references, declaration included)}, lines 1-based."""
    truth = {}
    files = {}
    for m in range(MODULES):
        lines = [
            "from typing import overload",
            "",
            "",
            "def handle(x: int) -> int:",          # 4: the module's handle
            "    return x",
            "",
            "",
            "class Job:",
            "    def handle(self, x: int) -> int:",  # 9: the method
            "        return x + handle(x)",          # 10: calls the module's handle
            "",
            "",
            "@overload",
            "def pick(x: int) -> int: ...",          # 14
            "@overload",
            "def pick(x: str) -> str: ...",          # 16
            "def pick(x):",                          # 17
            "    return x",
            "",
            "",
            "def local_shadow() -> int:",
            "    handle = 3",                        # 22: a local of that name
            "    return handle",                     # 23
        ]
        files[f"m{m}.py"] = lines
        truth[f"m{m}.handle"] = (f"m{m}.py", 4, {(f"m{m}.py", 4), (f"m{m}.py", 10)})
        truth[f"m{m}.Job.handle"] = (f"m{m}.py", 9, {(f"m{m}.py", 9)})
        truth[f"m{m}.pick"] = (f"m{m}.py", 17, {(f"m{m}.py", 14), (f"m{m}.py", 16), (f"m{m}.py", 17)})
    # Callers: each module's handle and pick used from main.py, and one method call.
    main = [f"import m{m}" for m in range(MODULES)] + ["", ""]
    for m in range(MODULES):
        main.append(f"a{m} = m{m}.handle({m})")
        truth[f"m{m}.handle"][2].add(("main.py", len(main)))
        main.append(f"b{m} = m{m}.pick({m})")
        truth[f"m{m}.pick"][2].add(("main.py", len(main)))
    main.append("j = m0.Job().handle(1)")
    truth["m0.Job.handle"][2].add(("main.py", len(main)))
    files["main.py"] = main
    for name, lines in files.items():
        with open(os.path.join(root, name), "w") as f:
            f.write("\n".join(lines) + "\n")
    return truth


def precision_recall(ultra, tmp):
    root = os.path.join(tmp, "refs")
    os.makedirs(root)
    truth = fixture(root)
    s = Serve(ultra, root, os.path.join(tmp, "refs-state"))
    rows = {"semantic": [], "syntactic": []}
    try:
        for target, (path, line, right) in truth.items():
            symbol = target.rsplit(".", 1)[1]
            for mode, args in (("semantic", {"path": path, "line": line}), ("syntactic", {})):
                r = s.c.result("code.findReferences",
                               {"symbol": symbol, "contextLines": 0, "limit": 1000, **args},
                               timeout=120)
                if mode == "semantic" and r["precision"] != "semantic":
                    raise SystemExit(f"{target}: the server did not answer: {json.dumps(r)[:300]}")
                got = {(x["path"], x["line"]) for x in r["references"]}
                hit = len(got & right)
                rows[mode].append((target, hit / len(got) if got else 0.0, hit / len(right)))
    finally:
        s.stop()
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--edits", type=int, default=20)
    ap.add_argument("--cli-runs", type=int, default=6)
    ap.add_argument("--ultra", default=os.path.join(REPO, "target/release/ultra"))
    ap.add_argument("--cases", default="python,typescript",
                    help="edit-to-diagnostics cases, of: " + ", ".join(CASES))
    a = ap.parse_args()
    if not os.path.isdir(DJANGO) or not os.path.isdir(RXJS):
        raise SystemExit("no corpus: run python3 -c \"import sys; sys.path.insert(0,'bench'); "
                         "import index_scale as m; m.build_corpus()\"")
    if not os.path.exists(os.path.join(SERVERS, "pyright")):
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], check=True,
                       cwd=os.path.dirname(os.path.dirname(SERVERS)))
    cases = a.cases.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        runs = {case: edit_to_diagnostics(a.ultra, tmp, case, a.edits, a.cli_runs)
                for case in cases}
        pr = precision_recall(a.ultra, tmp)
    print("## Edit to diagnostics: the language server through Ultra vs its CLI\n")
    print("| project, file | | runs | right | p50 | p95 |")
    print("|---|---|---|---|---|---|")
    for case in cases:
        c, e = CASES[case], runs[case]
        u, cli = e["ultra"], e["cli"]
        print(f"| {case}: `{c['target']}` | Ultra `applyEdits` with `newDiagnostics` "
              f"({c['server']} warm) | {len(u)} | {e['ultra_ok']} | {med(u) * 1000:.0f} ms | "
              f"{pct(u, 95) * 1000:.0f} ms |")
        print(f"| | `{c['cli']}` after the edit | {len(cli)} | {e['cli_ok']} | "
              f"{med(cli) * 1000:.0f} ms | {pct(cli, 95) * 1000:.0f} ms |")
    print()
    for case in cases:
        e = runs[case]
        print(f"- {case}: the CLI takes {med(e['cli']) / med(e['ultra']):.1f}x Ultra's median; "
              f"the server's first diagnostics after its start took {e['first']:.2f} s.")
    print()
    print("## find_references: precision and recall\n")
    print("| targets | semantic precision | semantic recall | syntactic precision | syntactic recall |")
    print("|---|---|---|---|---|")
    avg = lambda rows, i: sum(r[i] for r in rows) / len(rows)  # noqa: E731
    print(f"| {len(pr['semantic'])} | {avg(pr['semantic'], 1):.2f} | {avg(pr['semantic'], 2):.2f} | "
          f"{avg(pr['syntactic'], 1):.2f} | {avg(pr['syntactic'], 2):.2f} |")
    print()
    for (t, p, r), (_, sp, sr) in zip(pr["semantic"], pr["syntactic"]):
        print(f"- {t}: semantic {p:.2f}/{r:.2f}, syntactic {sp:.2f}/{sr:.2f}")


if __name__ == "__main__":
    main()
