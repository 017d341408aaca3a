// The official TypeScript MCP SDK as a client of Ultra.
//
// Usage: node client.mjs ULTRA_BINARY WORKSPACE_ROOT   (stdio: starts `ultra --root ROOT mcp`)
//        node client.mjs --http URL TOKEN              (streamable HTTP, bearer token)
// Lists the tools, calls the ones that read (the SDK checks each structured answer against
// the tool's outputSchema), checks that answers are text a model reads (not JSON) and that
// an error is readable text with the structured error beside it. Prints `ok` last.

import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [first, second, third] = process.argv.slice(2);
const transport =
  first === "--http"
    ? new StreamableHTTPClientTransport(new URL(second), {
        requestInit: { headers: { Authorization: `Bearer ${third}` } },
      })
    : new StdioClientTransport({ command: first, args: ["--root", second, "mcp"], env: process.env });

const client = new Client({ name: "ts-sdk", version: "1.0.0" });
await client.connect(transport);

const { tools } = await client.listTools();
assert.ok(tools.length >= 30, `only ${tools.length} tools`);
for (const t of tools) {
  assert.equal(t.inputSchema.type, "object", t.name);
}
const withOutput = tools.filter((t) => t.outputSchema).map((t) => t.name);
assert.ok(withOutput.length >= 25, `output schemas: ${withOutput}`);

// Reads, each with the first characters its text must start with.
const calls = [
  ["get_lines", { path: "src/db.ts", start: 1, end: 2 }, "src/db.ts:1-2 (of 5 lines, hash "],
  ["read_file", { path: "src/app.ts" }, "src/app.ts (typescript, lines 1-2 of 2, hash "],
  ["get_function", { path: "src/service.ts", name: "UserService.findById" }, "UserService.findById, lines 7-12"],
  ["get_class", { path: "src/service.ts", name: "UserService" }, "UserService (class), lines 4-13"],
  ["find_references", { symbol: "Db" }, "Symbol: Db"],
  ["find_definition", { symbol: "UserService" }, "Symbol: UserService"],
  ["get_structure", { path: "src" }, "src/"],
  ["get_todos", {}, "Found 1 TODO"],
  ["grep", { pattern: "Db", paths: ["src"], recursive: true, lineNumber: true }, "src/db.ts:1:export class Db {"],
  ["shell", { script: "echo hi; echo err >&2; false" }, "hi\n[stderr]\nerr\n[exit 1]"],
  ["git_status", {}, "Branch: main"],
];
for (const [name, args, start] of calls) {
  const result = await client.callTool({ name, arguments: args });
  const text = result.content[0].text;
  assert.ok(!result.isError, `${name}: ${text}`);
  assert.ok(text.startsWith(start), `${name}: ${JSON.stringify(text.slice(0, 200))}`);
  assert.equal(typeof result.structuredContent, "object", name);
  console.log(`${name}: ok (${text.length} chars)`);
}

// Form clients send numbers as text; they are read as numbers.
const numeric = await client.callTool({ name: "get_lines", arguments: { path: "src/db.ts", start: "2", end: "2" } });
assert.ok(!numeric.isError, numeric.content[0].text);
assert.equal(numeric.structuredContent.start, 2);

// An error: a few readable lines for the model, every field of the error in them.
const missing = await client.callTool({ name: "get_lines", arguments: { path: "missing.rs" } });
assert.ok(missing.isError);
assert.ok(missing.content[0].text.startsWith("Error FILE_NOT_FOUND: "), missing.content[0].text);
assert.equal(missing.structuredContent, undefined);
const bad = await client.callTool({ name: "get_lines", arguments: { path: 7 } });
assert.ok(bad.isError);
const details = bad.content[0].text.split("\n").find((l) => l.startsWith("Details: "));
assert.equal(JSON.parse(details.slice("Details: ".length)).command, "code.getLines", bad.content[0].text);

await client.close();
console.log("ok");
