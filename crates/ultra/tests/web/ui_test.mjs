// Ultra's web UI in headless Chromium (Debian's chromium, driven by playwright-core), with
// an agent on the server's Unix socket doing what agents do.
//
//   node ui_test.mjs main   URL SOCKET SHOTS_DIR   windows, HTML, data-command, state
//                                                  binding, approvals, XSS payloads inert
//   node ui_test.mjs replay URL SOCKET SHOTS_DIR   after a restart: the same screen
//
// Prints `ok` last when every check passed; any failure throws (exit status 1).
import { chromium } from 'playwright-core';
import net from 'node:net';
import assert from 'node:assert/strict';
import path from 'node:path';
import http from 'node:http';

const [mode, url, socketPath, shots] = process.argv.slice(2);

/** JSON-RPC 2.0 over the NDJSON Unix socket, as an agent. */
class Agent {
  constructor(file) {
    this.sock = net.createConnection(file);
    this.buf = '';
    this.next = 1;
    this.waiting = new Map();
    this.events = [];
    this.sock.on('data', (d) => {
      this.buf += d.toString();
      let i;
      while ((i = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, i);
        this.buf = this.buf.slice(i + 1);
        const msg = JSON.parse(line);
        if (msg.id === undefined) { this.events.push(msg); continue; }
        const w = this.waiting.get(msg.id);
        if (w) { this.waiting.delete(msg.id); w(msg); }
      }
    });
  }
  raw(method, params) {
    const id = this.next++;
    return new Promise((resolve) => {
      this.waiting.set(id, resolve);
      this.sock.write(JSON.stringify({ jsonrpc: '2.0', id, method, params }) + '\n');
    });
  }
  async call(method, params) {
    const r = await this.raw(method, params);
    if (r.error) throw new Error(`${method}: ${JSON.stringify(r.error)}`);
    return r.result;
  }
  batch(ops) { return this.call('ui.batch', { batch: ops }); }
  close() { this.sock.end(); }
}

async function until(what, f, ms = 10000) {
  const start = Date.now();
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() - start > ms) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  // evil.test resolves to this machine: a DNS-rebinding attacker's name (security.md O5).
  args: ['--no-sandbox', '--disable-gpu', '--host-resolver-rules=MAP evil.test 127.0.0.1'],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
let dialogs = 0;
page.on('dialog', async (d) => { dialogs++; await d.dismiss(); });
// What the page says goes to stderr, shown when the test fails.
page.on('console', (m) => console.error(`console ${m.type()}: ${m.text()}`));
page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
page.on('response', (r) => { if (r.status() >= 400) console.error(`http ${r.status()} ${r.url()}`); });
const agent = new Agent(socketPath);
await agent.call('session.identify', { source: 'ai', agentId: 'claude' });

await page.goto(url);
await page.waitForSelector('body[data-state="ready"]');
const frame = page.frameLocator('#workspace');
const win = (id) => frame.locator(`.uicp-window[data-window-id="${id}"]`);

// security.md O5: a page from another localhost port cannot open the WebSocket, and the
// server refuses to serve under a rebinding name.
{
  const ultra = new URL(url);
  const evil = http.createServer((req, res) => {
    res.setHeader('content-type', 'text/html');
    res.end(`<script>
      const ws = new WebSocket('ws://${ultra.host}/');
      ws.onopen = () => { document.title = 'open'; };
      ws.onclose = () => { if (document.title !== 'open') document.title = 'refused'; };
    </script>`);
  });
  await new Promise((r) => evil.listen(0, '127.0.0.1', r));
  const other = await browser.newPage();
  await other.goto(`http://127.0.0.1:${evil.address().port}/`);
  await until('evil page settles', async () => (await other.title()) !== '');
  assert.equal(await other.title(), 'refused');
  const rebound = await other.goto(`http://evil.test:${ultra.port}/ui/`);
  assert.equal(rebound.status(), 403);
  await other.close();
  evil.close();
}

if (mode === 'replay') {
  // The activity feed starts from the audit log: the agent's earlier calls are there.
  await until('audit entries', async () => (await page.locator('#activity li', { hasText: 'ui.batch' }).count()) > 0);
  await win('w1').locator('h1').waitFor();
  assert.equal(await win('w1').locator('h1').textContent(), 'Hello');
  assert.equal(await win('w1').locator('.uicp-title span').textContent(), 'Status board');
  await page.screenshot({ path: path.join(shots, 'replayed.png') });
} else {
  // Windows and HTML.
  await agent.batch([
    { op: 'window.create', params: { id: 'w1', title: 'Status', x: 20, y: 20, width: 520, height: 360 } },
    { op: 'dom.set', params: { windowId: 'w1', target: 'root', html: '<h1>Hello</h1><ul id="log"><li>one</li></ul>' } },
  ]);
  await win('w1').locator('h1').waitFor();
  assert.equal(await win('w1').locator('h1').textContent(), 'Hello');
  await agent.batch([
    { op: 'dom.append', params: { windowId: 'w1', target: '#log', html: '<li>two</li>' } },
    { op: 'window.update', params: { id: 'w1', title: 'Status board', width: 560 } },
  ]);
  await until('appended', async () => (await win('w1').locator('#u-log li').count()) === 2);
  await until('retitled', async () => (await win('w1').locator('.uicp-title span').textContent()) === 'Status board');

  // A data-command round trip: the page sends the batch, with the form's value filled in.
  await agent.batch([
    { op: 'window.create', params: { id: 'form', title: 'Form', x: 600, y: 20, width: 420, height: 320 } },
    {
      op: 'dom.set',
      params: {
        windowId: 'form', target: 'root',
        html: '<form><input name="title"><button type="submit" data-command=\'[{"op":"dom.set","params":{"windowId":"form","target":"#status","html":"Saved: {{form.title}}"}}]\'>Save</button></form><p id="status">idle</p>'
          + '<input data-state-scope="window" data-state-key="note">',
      },
    },
  ]);
  await win('form').locator('input[name="u-title"]').fill('release notes');
  await win('form').locator('.uicp-content button').click();
  await until('saved', async () => (await win('form').locator('#u-status').textContent()) === 'Saved: release notes');
  // A value that looks like markup is still sanitised on its way back.
  await win('form').locator('input[name="u-title"]').fill('<img src=x onerror=alert(1)>');
  await win('form').locator('.uicp-content button').click();
  await until('saved again', async () => (await win('form').locator('#u-status img').count()) === 1);
  assert.equal(await win('form').locator('#u-status img[onerror]').count(), 0);

  // State binding: typing reaches the server's state, and the server's state the input.
  await win('form').locator('[data-state-key="note"]').fill('remember me');
  await until('state from the page', async () => {
    const r = await agent.call('state.get', { scope: 'window', windowId: 'form', key: 'note' });
    return r.results[0].value === 'remember me';
  });
  await page.locator('header').click();
  await agent.call('state.set', { scope: 'window', windowId: 'form', key: 'note', value: 'from the agent' });
  await until('state to the page', async () => (await win('form').locator('[data-state-key="note"]').inputValue()) === 'from the agent');

  // Components.
  await agent.batch([
    { op: 'window.create', params: { id: 'c', title: 'Components', x: 20, y: 400, width: 560, height: 360 } },
    { op: 'component.render', params: { id: 'tbl', windowId: 'c', target: 'root', type: 'table', props: { columns: ['file', 'lines'], rows: [['a.rs', 10], ['b.rs', 20]] } } },
    { op: 'component.render', params: { id: 'md', windowId: 'c', target: 'root', type: 'markdown', props: { text: '# Notes\n\n- **bold** item\n- `code`' } } },
    { op: 'component.render', params: { id: 'df', windowId: 'c', target: 'root', type: 'diff', props: { old: 'a\nb\n', new: 'a\nc\n' } } },
  ]);
  await until('table', async () => (await win('c').locator('.uicp-table td').count()) === 4);
  // The other template tokens: {{value}}, {{windowId}} and {{componentId}}.
  await agent.batch([
    { op: 'component.render', params: { id: 'who', windowId: 'c', target: 'root', type: 'form', props: {
      fields: [{ name: 'name', label: 'Name', defaultValue: 'ada' }], submit: 'Tell',
      command: [{ op: 'dom.append', params: { windowId: 'c', target: 'root', html: '<p class="told">{{componentId}}/{{windowId}}/{{form.name}}</p>' } }] } } },
    { op: 'component.render', params: { id: 'src', windowId: 'c', target: 'root', type: 'code', props: { code: 'fn main() {}\n', language: 'rust' } } },
    { op: 'dom.append', params: { windowId: 'c', target: 'root', html: '<button value="yes" data-command=\'[{"op":"dom.append","params":{"windowId":"c","target":"root","html":"<p class=\\"said\\">{{value}}</p>"}}]\'>Say</button>' } },
  ]);
  await win('c').locator('[data-component="who"] button').click();
  await until('told', async () => (await win('c').locator('.told').count()) === 1);
  assert.equal(await win('c').locator('.told').textContent(), 'who/c/ada');
  await win('c').locator('button', { hasText: 'Say' }).click();
  await until('said', async () => (await win('c').locator('.said').count()) === 1);
  assert.equal(await win('c').locator('.said').textContent(), 'yes');
  assert.equal(await win('c').locator('.uicp-code .ln').first().textContent(), '1');
  await agent.call('component.update', { id: 'tbl', props: { columns: ['file'], rows: [['c.rs']] } });
  await until('updated table', async () => (await win('c').locator('.uicp-table td').count()) === 1);
  assert.equal(await win('c').locator('.uicp-markdown strong').textContent(), 'bold');
  assert.equal(await win('c').locator('.uicp-diff .add').textContent(), '+c');

  // Approvals: an agent's create_file waits for the person at the page.
  const asked = agent.raw('code.createFile', { path: 'approved.txt', content: 'yes\n' });
  const item = page.locator('#approvals .approval');
  await item.waitFor();
  assert.match(await item.locator('pre').textContent(), /yes/);
  await page.screenshot({ path: path.join(shots, 'approval.png') });
  await item.locator('button.approve').click();
  const done = await asked;
  assert.ok(done.result, JSON.stringify(done));
  const denied = agent.raw('code.createFile', { path: 'denied.txt', content: 'no\n' });
  await page.locator('#approvals .approval').waitFor();
  await page.locator('#approvals .approval button.deny').click();
  const no = await denied;
  assert.equal(no.error.data.code, 'CONFIRMATION_DENIED', JSON.stringify(no));

  // A structured clarifier (uicp://intent): the person's answer comes back as an intent.
  await agent.call('subscribe', { events: ['ui.intent'] });
  const asked2 = await agent.batch([{ op: 'api.call', params: { method: 'POST', url: 'uicp://intent',
    body: { title: 'Clarify', textPrompt: 'Which colour?', fields: [{ name: 'answer', label: 'Answer' }], submit: 'Continue' } } }]);
  const cw = asked2.results[0].windowId;
  await win(cw).locator('input[name="u-answer"]').fill('blue');
  await win(cw).locator('.uicp-content button').click();
  const intent = await until('intent', () => agent.events.find((e) => e.method === 'ui.intent'));
  assert.deepEqual(intent.params.data.answers, { answer: 'blue' });
  await until('clarifier closed', async () => (await win(cw).count()) === 0);

  // http(s): only to an allowed host, and an agent's call is approved first; the page
  // then fetches it.
  let hits = 0;
  const target = http.createServer((req, res) => { hits++; res.end('ok'); });
  await new Promise((r) => target.listen(0, '127.0.0.1', r));
  const hitUrl = `http://127.0.0.1:${target.address().port}/hit`;
  const fetching = agent.raw('ui.batch', { batch: [{ op: 'api.call', params: { method: 'POST', url: hitUrl, body: { n: 1 } } }] });
  await page.locator('#approvals .approval').waitFor();
  await page.locator('#approvals .approval button.approve').click();
  assert.ok((await fetching).result, 'the call ran');
  await until('fetched', () => hits === 1);
  target.close();

  // Files: an agent's edit appears in the buffer view as it happens, tagged with who.
  await page.locator('.tabs button[data-view="files"]').click();
  await page.locator('#tree li[data-path="notes.md"]').click();
  await until('file shown', async () => (await page.locator('#buffer').textContent()).includes('first line'));
  await agent.call('ultra.openFile', { path: 'notes.md' });
  await agent.call('ultra.insertText', { path: 'notes.md', text: 'agent was here\n', position: { line: 0, character: 0 } });
  await until('edit shown', async () => (await page.locator('#buffer').textContent()).includes('agent was here'));
  assert.equal(await page.locator('#buffer-tag').textContent(), 'changed by claude');
  assert.equal(await page.locator('#buffer .changed').first().textContent(), '1agent was here');
  assert.equal(await page.locator('#buffer .line').nth(1).textContent(), '2first line');
  await page.screenshot({ path: path.join(shots, 'files.png') });

  // The command palette runs any command with JSON arguments.
  await page.keyboard.press('Control+k');
  await page.locator('#palette-query').fill('listDirectory');
  await page.locator('#palette-list li', { hasText: 'fs.listDirectory' }).first().click();
  await page.locator('#palette-args').fill('{"path": "."}');
  await page.locator('#palette-go').click();
  await until('palette result', async () => (await page.locator('#palette-result').textContent()).includes('notes.md'));

  // Terminals: an agent's terminal and its output.
  const term = await agent.call('terminal.create', { name: 'build' });
  await page.locator('.tabs button[data-view="terminals"]').click();
  await page.locator(`#terminal-list li[data-id="${term.terminalId}"]`).click();
  await agent.call('terminal.sendText', { terminalId: term.terminalId, text: 'echo hi-from-$((40+2))' });
  await until('terminal output', async () => (await page.locator('#terminal-output').textContent()).includes('hi-from-42'));
  await page.screenshot({ path: path.join(shots, 'terminal.png') });
  await agent.call('terminal.dispose', { terminalId: term.terminalId });
  await page.locator('.tabs button[data-view="windows"]').click();

  // security.md H1-H7: every payload is inert (no dialog, nothing set on the page).
  const payloads = [
    '<script>alert(1)</script>', '<img src=x onerror=alert(2)>', '<svg onload=alert(3)>',
    '<details open ontoggle=alert(4)>', '<body onload=alert(5)>',
    '<a href="javascript:alert(6)">a</a>', '<a href="JaVaScRiPt:alert(7)">b</a>',
    '<a href="java&#x09;script:alert(8)">c</a>', '<a href="&#106;avascript:alert(9)">d</a>',
    '<iframe src="data:text/html,<script>alert(10)</script>">', '<iframe srcdoc="<script>alert(11)</script>">',
    '<object data="data:text/html,<script>alert(12)</script>">', '<embed src="javascript:alert(13)">',
    '<base href="javascript:alert(14)//">', '<meta http-equiv="refresh" content="0;url=javascript:alert(15)">',
    '<form action="javascript:alert(16)"><button formaction="javascript:alert(17)">x</button></form>',
    '<svg><iframe><a title="</iframe><img src onerror=alert(18)>">', '<math><mtext><table><mglyph><style><img src=x onerror=alert(19)>',
    '<noscript><p title="</noscript><img src=x onerror=alert(20)>">',
    '<svg><a><set attributeName=href to=javascript:alert(21)><text>x</text></a></svg>',
    '<math><annotation-xml encoding="text/html"><img src=x onerror=alert(22)></annotation-xml></math>',
    '<p style="background:url(javascript:alert(23))">s</p>', '<form id="workspace-root"><img name="body"></form>',
    '<scr<script>ipt>alert(24)</script>', '<!--><script>alert(25)</script>-->', '</title><script>alert(26)</script>',
    '<img src=x onerror="parent.__pwned=1">',
  ];
  await agent.batch([{ op: 'window.create', params: { id: 'xss', title: 'XSS', x: 600, y: 400, width: 420, height: 300 } }]);
  for (const html of payloads) {
    await agent.batch([{ op: 'dom.append', params: { windowId: 'xss', target: 'root', html } }]);
  }
  await until('payloads drawn', async () => Number(await frame.locator('body').getAttribute('data-applied')) > 0);
  await page.waitForTimeout(500);
  for (const a of await win('xss').locator('a').all()) {
    const href = await a.getAttribute('href');
    assert.ok(href === null || href.startsWith('https:'), href);
  }
  const bad = await win('xss').locator('script, iframe, object, embed, svg, math, style, base, meta, [onerror], [onload], [ontoggle], [style], [formaction]').count();
  assert.equal(bad, 0, 'dangerous markup reached the page');
  assert.equal(dialogs, 0, 'a payload ran');
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  await page.screenshot({ path: path.join(shots, 'windows.png') });
}

agent.close();
await browser.close();
console.log('ok');
