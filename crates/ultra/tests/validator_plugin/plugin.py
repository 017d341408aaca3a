"""A validator plugin (seed 000's ValidatorPlugin over JSON-RPC on stdio) for the tests.

Usage: plugin.py MODE, MODE one of:
  block    validateContent blocks content containing FORBIDDEN, with a violation,
           a suggestion and context; everything else proceeds
  warn     everything proceeds, content with FORBIDDEN gets a warning
  crash    exits at the first validation call
  hang     never answers a validation call
  garbage  answers validation calls with a line that is not JSON
Every message it receives is appended to plugin.log in its working directory (its method;
for validateFileOperation also the operation and paths, as JSON).
"""

import json
import sys
import time

MODE = sys.argv[1]


def reply(msg_id, result):
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": msg_id, "result": result}) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    with open("plugin.log", "a") as log:
        line = msg["method"]
        if line == "validateFileOperation":
            # What the operation is, so tests can compare how two names are seen.
            p = msg.get("params", {})
            line += " " + json.dumps({"operation": p.get("operation"), "paths": p.get("paths")}, sort_keys=True)
        log.write(line + "\n")
    method, params, msg_id = msg["method"], msg.get("params", {}), msg.get("id")
    if msg_id is None:
        if method == "dispose":
            break
        continue
    if method == "initialize":
        reply(msg_id, None)
        continue
    if method == "getContextForFiles":
        reply(msg_id, {"guidelines": "plugin guidelines", "fileContext": {}, "recentViolations": ""})
        continue
    if MODE == "crash":
        sys.exit(3)
    if MODE == "hang":
        time.sleep(3600)
    if MODE == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
        continue
    verdict = {"proceed": True}
    if method == "validateContent" and "FORBIDDEN" in params["content"]:
        if MODE == "block":
            verdict = {
                "proceed": False,
                "violations": [{"rule": "no-forbidden", "message": "FORBIDDEN is not allowed here",
                                "severity": "error", "matchedContent": "FORBIDDEN"}],
                "suggestions": [{"description": "write ALLOWED instead"}],
                "feedbackContext": "The team does not write FORBIDDEN.",
            }
        else:
            verdict = {"proceed": True, "warnings": [{"code": "FORBIDDEN_SOON", "message": "FORBIDDEN will be blocked"}]}
    reply(msg_id, verdict)
