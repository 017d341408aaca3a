#!/usr/bin/env node
// Issue 8's benchmark: from a `dom.set` batch of 64 operations arriving at the server to
// the page showing it, measured in the browser (headless Chromium): the server stamps
// `receivedAt` on the `ui.applied` event, the agents' frame records the time after the
// next paint (and when the DOM was updated, before that paint); both read the same clock. An agent on the Unix socket sends the batches,
// one at a time (the next after the page showed the last).
//
// Usage: node bench/ui_bench.mjs [--batches 200] [--repeat 3]
// Needs: cargo build --release -p ultra; chromium; npm ci in crates/ultra/tests/web.
import { chromium } from '../crates/ultra/tests/web/node_modules/playwright-core/index.mjs';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const args = process.argv.slice(2);
const opt = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? Number(args[i + 1]) : dflt; };
const BATCHES = opt('--batches', 200);
const REPEAT = opt('--repeat', 3);
const ULTRA = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../target/release/ultra');

function pct(xs, p) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

async function serve() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'ultra-ui-bench-'));
  for (const d of ['root', 'state', 'run', 'home']) fs.mkdirSync(path.join(base, d), { mode: 0o700 });
  fs.chmodSync(base, 0o700);
  fs.writeFileSync(path.join(base, 'root/ultra.config.json'), JSON.stringify({ port: 0, token: 'bench-token-0123456789abcdef0123456789abcdef' }));
  const sock = path.join(base, 's.sock');
  const child = spawn(ULTRA, ['--root', path.join(base, 'root'), 'serve', '--socket', sock], {
    env: { ...process.env, XDG_STATE_HOME: path.join(base, 'state'), XDG_RUNTIME_DIR: path.join(base, 'run'), HOME: path.join(base, 'home') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (d) => {
      err += d;
      const m = err.match(/web UI: (http:\/\/\S+#ticket=[0-9a-f]+)/);
      if (m) resolve(m[1]);
    });
    child.on('exit', () => reject(new Error(err)));
  });
  return { child, url, sock, base };
}

function agent(file) {
  const s = net.createConnection(file);
  let buf = '';
  let next = 1;
  const waiting = new Map();
  s.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const msg = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      waiting.get(msg.id)?.(msg);
      waiting.delete(msg.id);
    }
  });
  return {
    call(method, params) {
      const id = next++;
      return new Promise((resolve) => { waiting.set(id, resolve); s.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n'); });
    },
    close() { s.end(); },
  };
}

const { child, url, sock, base } = await serve();
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
await page.goto(url);
await page.waitForSelector('body[data-state="ready"]');
const frame = page.frames().find((f) => f.url().endsWith('/ui/frame.html'));
const a = agent(sock);
await a.call('session.identify', { source: 'ai', agentId: 'bench' });
const cells = Array.from({ length: 64 }, (_, i) => `<div id="c${i}"></div>`).join('');
await a.call('ui.batch', { batch: [
  { op: 'window.create', params: { id: 'bench', title: 'Bench', width: 900, height: 600 } },
  { op: 'dom.set', params: { windowId: 'bench', target: 'root', html: cells } },
] });
const runs = [];
for (let r = 0; r < REPEAT; r++) {
  await frame.evaluate(() => { window.uicpLatencies = []; window.uicpApplied = []; });
  for (let b = 0; b < BATCHES; b++) {
    const ops = Array.from({ length: 64 }, (_, i) => ({
      op: 'dom.set',
      params: { windowId: 'bench', target: `#c${i}`, html: `<span class="v">${r}-${b}-${i}</span> <b>cell ${i}</b>` },
    }));
    const reply = await a.call('ui.batch', { batch: ops });
    if (reply.error) throw new Error(JSON.stringify(reply.error));
    // The next batch once the page has shown this one.
    await frame.waitForFunction((n) => (window.uicpLatencies || []).length >= n, b + 1, { polling: 'raf' });
  }
  const lat = await frame.evaluate(() => window.uicpLatencies);
  const dom = await frame.evaluate(() => window.uicpApplied);
  runs.push({ p50: pct(lat, 50), p99: pct(lat, 99), d50: pct(dom, 50), d99: pct(dom, 99), n: lat.length });
  console.error(`run ${r + 1}: p50 ${pct(lat, 50).toFixed(2)} ms, p99 ${pct(lat, 99).toFixed(2)} ms over ${lat.length} batches`);
}
const med = (k) => pct(runs.map((x) => x[k]), 50);
console.log(`| case | p50 | p99 |\n|---|---|---|\n| dom.set batch of 64 ops, server receipt to painted page | ${med('p50').toFixed(2)} ms | ${med('p99').toFixed(2)} ms |\n| the same, server receipt to DOM updated (before the paint) | ${med('d50').toFixed(2)} ms | ${med('d99').toFixed(2)} ms |`);
a.close();
await browser.close();
child.kill();
fs.rmSync(base, { recursive: true, force: true });
