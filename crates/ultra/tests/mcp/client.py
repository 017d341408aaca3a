"""A real MCP client (the official Python `mcp` SDK) against `ultra mcp` over stdio.

Usage: client.py ULTRA_BINARY WORKSPACE_ROOT [--auto-apply]   (stdio: starts `ultra mcp`)
       client.py --http URL TOKEN                            (streamable HTTP, bearer token)
       client.py --progress ULTRA_BINARY WORKSPACE_ROOT      (progress notifications)
       client.py --elicit ULTRA_BINARY WORKSPACE_ROOT accept|decline   (confirmation by elicitation)
Runs initialize, tools/list, and a tools/call of every tool offered (each with arguments
that fit the fixture workspace the Rust test made), then checks an error's shape. Prints
`ok` last when every check passed.
"""

import asyncio
import contextlib
import json
import os
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

# One call per tool, on the fixture workspace (see crates/ultra/tests/mcp.rs).
CALLS = {
    "get_lines": {"path": "src/db.ts", "start": 1, "end": 2},
    "get_function": {"path": "src/service.ts", "name": "UserService.findById"},
    "get_class": {"path": "src/service.ts", "name": "UserService"},
    "get_structure": {"path": "src"},
    "find_definition": {"symbol": "UserService"},
    "find_references": {"symbol": "Db"},
    "get_dependencies": {"path": "src/service.ts"},
    "get_dependents": {"path": "src/db.ts"},
    "get_complexity": {"limit": 3},
    "get_todos": {},
    "read_file": {"path": "src/app.ts"},
    "grep": {"pattern": "Db", "paths": ["src"], "recursive": True, "lineNumber": True},
    "find": {"paths": ["src"], "type": ["f"]},
    "awk": {"program": "{ n++ } END { print n }", "files": ["notes.txt"]},
    "sed": {"pattern": "alpha", "replacement": "ALPHA", "files": ["notes.txt"]},
    "replace": {"file": "notes.txt", "old": "beta", "new": "BETA"},
    "write": {"path": "out/new.txt", "content": "written\n"},
    "edit_lines": {"path": "src/app.ts", "start": 2, "end": 2, "content": "export { n as total };"},
    "create_file": {"path": "src/util/date.ts", "content": "export const today = 1;\n"},
    "delete_file": {"path": "old.txt"},
    "git_status": {},
    "git_diff": {},
    "git_commit": {"message": "docs: notes", "files": ["notes.txt"]},
    "git": {"subcommand": "status", "short": True},
    "build": {},
    "run_command": {"command": "git status --short"},
    "run_tests": {},
    "test_watches": {},
    "ui_batch": {"batch": [{"op": "window.create", "params": {"title": "From MCP"}}]},
    "ui_snapshot": {},
    "stop_test_watch": {"id": "watch-99"},
    "apply_edits": {"files": [{"path": "src/app.ts", "edits": [{"old": "const n = 1;", "new": "const n = 2;"}]}], "save": True},
    "shell": {"script": "cat src/*.ts | wc -l"},
    "rename_symbol": {"path": "src/app.ts", "symbol": "missing", "line": 1, "newName": "x"},
}

# Under the default policy an agent is asked before destructive commands; with no person
# to answer, the call comes back as CONFIRMATION_REQUIRED with an id a person can approve.
ASKS = {"write", "edit_lines", "create_file", "delete_file", "git_commit"}
# Calls that fail by design, with the code they fail with.
FAILS = {"stop_test_watch": "WATCH_NOT_FOUND", "rename_symbol": "SYMBOL_NOT_FOUND"}
# What a person asked would see for each.
PREVIEWS = {
    "edit_lines": "+export { n as total };",
    "create_file": "export const today = 1;",
    "delete_file": "stale notes",
    "git_commit": "notes.txt",
}


def error_of(text):
    """The error a failed call's text states: `Error CODE: message`, then `Try: ...` and
    `Details: {json}` lines."""
    head, _, rest = text.partition("\n")
    assert head.startswith("Error "), text
    code, _, message = head[len("Error "):].partition(": ")
    error = {"code": code, "message": message}
    for line in rest.splitlines():
        if line.startswith("Try: "):
            error["suggestion"] = line[len("Try: "):]
        elif line.startswith("Details: "):
            error["details"] = json.loads(line[len("Details: "):])
    return {"error": error}


@contextlib.asynccontextmanager
async def stdio_streams(binary, root, auto_apply):
    args = ["--root", root, "mcp"] + (["--auto-apply"] if auto_apply else [])
    params = StdioServerParameters(command=binary, args=args, env=dict(os.environ))
    async with stdio_client(params) as (read, write):
        yield read, write


@contextlib.asynccontextmanager
async def http_streams(url, token):
    client = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    async with client:
        async with streamable_http_client(url, http_client=client) as streams:
            yield streams[0], streams[1]


async def main(streams, auto_apply):
    asks = set() if auto_apply else ASKS
    async with streams as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert init.server_info.name == "ultra", init
            assert init.capabilities.tools is not None, init
            listed = await session.list_tools()
            names = sorted(t.name for t in listed.tools)
            print("tools:", " ".join(names))
            uncovered = set(names) - set(CALLS)
            assert not uncovered, f"no test call for {uncovered}"
            for t in listed.tools:
                assert t.input_schema.get("type") == "object", t
                assert t.description and t.annotations is not None, t
            for name in names:
                result = await session.call_tool(name, CALLS[name])
                text = result.content[0].text if result.content else ""
                if name in asks:
                    assert result.is_error, (name, text)
                    body = error_of(text)
                    assert body["error"]["code"] == "CONFIRMATION_REQUIRED", (name, text)
                    # The model reads the error as text: code, message, what to do.
                    assert text.startswith("Error CONFIRMATION_REQUIRED: "), (name, text)
                    if name in PREVIEWS:
                        preview = body["error"]["details"]["preview"]
                        assert PREVIEWS[name] in preview, (name, preview)
                    print(f"{name}: asks a person first")
                    continue
                if name in FAILS:
                    assert result.is_error, (name, text)
                    assert error_of(text)["error"]["code"] == FAILS[name], (name, text)
                    assert text.startswith(f"Error {FAILS[name]}: "), (name, text)
                    print(f"{name}: fails as expected")
                    continue
                assert not result.is_error, (name, text)
                print(f"{name}: ok ({len(text)} chars)")
            # Answers come back as text a model can quote (numbered lines, a script's
            # output), the JSON in structured content; the SDK checked every structured
            # answer above against its tool's output schema.
            with_output = [t.name for t in listed.tools if t.output_schema]
            assert len(with_output) >= 25, with_output
            result = await session.call_tool("get_lines", {"path": "src/db.ts", "start": 1, "end": 2})
            text = result.content[0].text
            assert text.startswith("src/db.ts:1-2 (of "), text
            assert "\n     1\t" in text, text
            assert result.structured_content["path"] == "src/db.ts", result
            # The rendering is sent once: as the content, not again in the structured copy.
            assert "text" not in result.structured_content, result.structured_content
            result = await session.call_tool("shell", {"script": "echo hi; echo err >&2; false"})
            assert result.content[0].text == "hi\n[stderr]\nerr\n[exit 1]\n", result.content[0].text
            assert result.structured_content["exitCode"] == 1, result
            # A structured, actionable error.
            result = await session.call_tool("get_lines", {"path": "missing.rs"})
            assert result.is_error
            body = error_of(result.content[0].text)
            assert body["error"]["code"] == "FILE_NOT_FOUND", body
            assert result.content[0].text.startswith("Error FILE_NOT_FOUND: "), result.content[0].text
            # Bad arguments name the problem and show the usage.
            result = await session.call_tool("get_lines", {"path": 7})
            body = error_of(result.content[0].text)
            assert body["error"]["code"] == "INVALID_ARGUMENTS", body
            assert "usage" in body["error"]["details"], body
    print("ok")


async def progress(binary, root):
    """A slow call with a progress token gets progress notifications while it runs."""
    seen = []

    async def on_progress(value, total, message):
        seen.append((value, message))

    async with stdio_streams(binary, root, False) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            result = await session.call_tool("run_command", {"command": "sleep 2.5"},
                                             progress_callback=on_progress)
            assert not result.is_error, result.content[0].text
    assert len(seen) >= 2, seen
    assert all(b[0] > a[0] for a, b in zip(seen, seen[1:])), seen
    assert "running for" in seen[-1][1], seen
    print("progress:", seen)
    print("ok")


async def elicit(binary, root, answer):
    """A call that needs a person is put to the client's user (elicitation)."""
    from mcp import types
    asked = []

    async def on_elicit(context, params):
        asked.append(params.message)
        if answer == "accept":
            return types.ElicitResult(action="accept", content={"approve": True})
        return types.ElicitResult(action="decline")

    async with stdio_streams(binary, root, False) as (read, write):
        async with ClientSession(read, write, elicitation_callback=on_elicit) as session:
            await session.initialize()
            result = await session.call_tool(
                "edit_lines", {"path": "src/app.ts", "start": 1, "end": 1, "content": "const n = 7;"})
            text = result.content[0].text
    assert len(asked) == 1 and "+const n = 7;" in asked[0], asked
    if answer == "accept":
        assert not result.is_error, text
    else:
        assert result.is_error and error_of(text)["error"]["code"] == "CONFIRMATION_DENIED", text
    print("ok")


if __name__ == "__main__":
    if sys.argv[1] == "--elicit":
        asyncio.run(elicit(sys.argv[2], sys.argv[3], sys.argv[4]))
        sys.exit(0)
    if sys.argv[1] == "--progress":
        asyncio.run(progress(sys.argv[2], sys.argv[3]))
        sys.exit(0)
    if sys.argv[1] == "--http":
        asyncio.run(main(http_streams(sys.argv[2], sys.argv[3]), False))
    else:
        auto = "--auto-apply" in sys.argv[3:]
        asyncio.run(main(stdio_streams(sys.argv[1], sys.argv[2], auto), auto))
