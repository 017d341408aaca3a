#!/usr/bin/env python3
"""A minimal language server for protocol tests: it answers `initialize` (incremental
sync, saves wanted, UTF-16) and `shutdown`, reports work under way (`$/progress`
"Indexing") from the first document opened until the first save, and appends every
message it gets to the log file named by its argument, one JSON object a line."""

import json
import sys


def read():
    length = 0
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send(msg):
    body = json.dumps(msg).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


with open(sys.argv[1], "a") as log:
    while (msg := read()) is not None:
        log.write(json.dumps(msg) + "\n")
        log.flush()
        method = msg.get("method")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": {"capabilities": {
                "positionEncoding": "utf-16",
                "textDocumentSync": {"openClose": True, "change": 2, "save": {}},
            }}})
        elif method in ("textDocument/didOpen", "textDocument/didSave"):
            kind = "begin" if method.endswith("didOpen") else "end"
            send({"jsonrpc": "2.0", "method": "$/progress",
                  "params": {"token": "index", "value": {"kind": kind, "title": "Indexing"}}})
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
        elif method == "exit":
            break
