#!/usr/bin/env python3
"""Tokens (bytes / 4) of ten typical MCP answers, before and after issue 19's renderings.

Usage: bench/answer_tokens.py ULTRA_BINARY

Copies `crates/ultra-core` of this repository (as committed at HEAD) into a temp git
repository, changes one file, starts `ULTRA_BINARY mcp` on it with the official Python MCP
SDK, and makes ten typical calls plus one failing call. For each it prints the bytes of the
answer's text content now and of the compact JSON of its data (the text every answer had
before: `structuredContent` is that data, unchanged), in tokens at 4 bytes each, and the
ratio. Errors compare the text with the compact JSON of `{error}`.
"""

import asyncio
import json
import os
import subprocess
import sys
import tempfile

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

CALLS = [
    ("get_lines", {"path": "src/executor.rs", "start": 170, "end": 230}),
    ("read_file", {"path": "src/render.rs"}),
    ("get_function", {"path": "src/schema.rs", "name": "parse"}),
    ("get_class", {"path": "src/registry.rs", "name": "Registry"}),
    ("find_references", {"symbol": "CommandSpec"}),
    ("find_definition", {"symbol": "Executor"}),
    ("get_structure", {"path": "src"}),
    ("grep", {"pattern": "fn render", "paths": ["src"], "recursive": True, "lineNumber": True}),
    ("git_diff", {}),
    ("shell", {"script": "grep -rn 'pub fn' src | wc -l; ls src | head -5"}),
    ("get_lines", {"path": "src/missing.rs"}),
]


def workspace():
    repo = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True,
                          check=True).stdout.strip()
    root = tempfile.mkdtemp(prefix="ultra-answers-")
    archive = subprocess.run(["git", "-C", repo, "archive", "HEAD", "crates/ultra-core"],
                             capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "--strip-components=2", "-C", root], input=archive, check=True)
    git = lambda *a: subprocess.run(["git", "-C", root, *a], check=True, capture_output=True)
    git("init", "-q")
    git("add", ".")
    git("-c", "user.name=bench", "-c", "user.email=bench@localhost", "commit", "-qm", "base")
    with open(os.path.join(root, "src/schema.rs"), "a") as f:
        f.write("\n/// Added by the benchmark.\npub fn bench_marker() -> u32 {\n    1\n}\n")
    return root


async def main(binary):
    root = workspace()
    params = StdioServerParameters(command=binary, args=["--root", root, "mcp"], env=dict(os.environ))
    rows = []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for name, args in CALLS:
                result = await session.call_tool(name, args)
                text = result.content[0].text
                data = result.structured_content
                before = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
                label = name + (" (error)" if result.is_error else "")
                rows.append((label, len(before.encode()), len(text.encode())))
    print(f"{'answer':<24} {'before':>8} {'after':>8} {'ratio':>6}   (tokens = bytes/4)")
    tb = ta = 0
    for label, b, a in rows:
        tb += b
        ta += a
        print(f"{label:<24} {b // 4:>8} {a // 4:>8} {a / b:>6.2f}")
    print(f"{'total':<24} {tb // 4:>8} {ta // 4:>8} {ta / tb:>6.2f}")


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
