// Ultra's web UI: signs in over the WebSocket with the ticket from the URL fragment, then
// relays UICP between the server and the sandboxed frame that draws agents' windows, and
// shows pending approvals and recent activity. Holds no secret beyond the ticket (kept in
// this tab's sessionStorage only).
'use strict';

const hash = new URLSearchParams(location.hash.slice(1));
if (hash.get('ticket')) {
  sessionStorage.setItem('ultra-ticket', hash.get('ticket'));
  history.replaceState(null, '', location.pathname);
}
const ticket = sessionStorage.getItem('ultra-ticket');
const statusEl = document.getElementById('status');
const frame = document.getElementById('workspace');
let ws;
let nextId = 1;
const pending = new Map();
let frameReady = false;
const toFrame = [];

function setStatus(text, state) {
  statusEl.textContent = text;
  if (state) document.body.dataset.state = state;
}

function toast(text) {
  const t = document.getElementById('toast');
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => { t.hidden = true; }, 6000);
}

function call(method, params) {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
  });
}

function post(message) {
  if (frameReady) frame.contentWindow.postMessage(message, '*');
  else toFrame.push(message);
}

window.addEventListener('message', (e) => {
  if (e.source !== frame.contentWindow) return;
  const m = e.data || {};
  if (m.type === 'ready') {
    frameReady = true;
    while (toFrame.length) frame.contentWindow.postMessage(toFrame.shift(), '*');
  } else if (m.type === 'batch' && Array.isArray(m.batch)) {
    call('ui.batch', { batch: m.batch }).catch((err) => toast(err.message));
  }
});

async function load() {
  const snapshot = await call('ui.snapshot', {});
  post({ type: 'snapshot', snapshot });
  // The activity feed starts from the audit log, then follows live events.
  for (const e of await call('ultra.auditTail', { limit: 100 })) {
    activity('audit', { command: e.command, success: e.outcome === 'ok' }, e.source);
  }
  const waiting = await call('ultra.confirm.list', {});
  for (const c of waiting) showApproval(c);
  setStatus('connected', 'ready');
}

function showApproval(c) {
  const list = document.getElementById('approvals');
  if (list.querySelector(`[data-id="${CSS.escape(c.id)}"]`)) return;
  const li = document.createElement('li');
  li.className = 'approval';
  li.dataset.id = c.id;
  const who = (c.source && (c.source.agentId || c.source.type)) || 'agent';
  const head = document.createElement('div');
  head.textContent = `${who} wants to run ${c.command}`;
  const reason = document.createElement('div');
  reason.className = 'reason';
  reason.textContent = c.reason || '';
  const pre = document.createElement('pre');
  pre.textContent = c.preview || JSON.stringify(c.args, null, 2);
  const approve = document.createElement('button');
  approve.textContent = 'Approve';
  approve.className = 'approve';
  approve.onclick = () => answer(c.id, 'ultra.confirm.approve', li);
  const deny = document.createElement('button');
  deny.textContent = 'Deny';
  deny.className = 'deny';
  deny.onclick = () => answer(c.id, 'ultra.confirm.deny', li);
  li.append(head, reason, pre, approve, deny);
  list.append(li);
  countApprovals();
}

function countApprovals() {
  document.getElementById('approval-count').textContent =
    document.querySelectorAll('#approvals .approval').length;
}

async function answer(id, method, li) {
  try {
    await call(method, { id });
  } catch (err) {
    toast(err.message);
  }
  li.remove();
  countApprovals();
}

// An agent's http(s) api.call to a host the config allows (the server checked it; the
// page's CSP names the same hosts). Best effort: the answer is not read (seed 002).
function uiFetch(d) {
  const init = { method: d.method || 'GET', mode: 'no-cors', credentials: 'omit', headers: {} };
  for (const [k, v] of Object.entries(d.headers || {})) init.headers[k] = String(v);
  if (d.body != null && init.method !== 'GET' && init.method !== 'HEAD') {
    init.body = typeof d.body === 'string' ? d.body : JSON.stringify(d.body);
  }
  fetch(d.url, init).catch((err) => toast(`api.call ${d.url}: ${err.message}`));
}

let mySession = null;

function activity(event, data, source) {
  // What this page itself asked for is not news.
  if (source && source.sessionId && source.sessionId === mySession) return;
  const list = document.getElementById('activity');
  const li = document.createElement('li');
  const kind = (source && source.type) || 'internal';
  li.className = kind;
  const who = (source && (source.agentId || source.type)) || '';
  li.textContent = `${who} ${data.command || event}${data.success === false ? ' (failed)' : ''}`;
  list.prepend(li);
  while (list.children.length > 100) list.lastChild.remove();
}

// Subscribed notifications carry {event, data, source}.
function onEvent(method, params) {
  const data = (params && params.data) || {};
  const source = params && params.source;
  if (method === 'ui.applied') post({ type: 'mutations', mutations: data.mutations || [], receivedAt: data.receivedAt });
  else if (method === 'confirmation.requested') showApproval(data);
  else if (method === 'confirmation.resolved') {
    const li = document.querySelector(`#approvals [data-id="${CSS.escape(data.id || '')}"]`);
    if (li) li.remove();
    countApprovals();
  } else if (method === 'command.executed') activity(method, data, source);
  else if (method === 'buffer.changed' || method === 'file.saved' || method === 'file.changedOnDisk') fileChanged(method, data, source);
  else if (method === 'ui.fetch') uiFetch(data);
  else if (method === 'terminal.output' && data.terminalId === shownTerminal) readTerminal();
  else if (method === 'terminal.closed') loadTerminals();
}

// Views: windows (the frame), files with a live buffer view, terminals, the palette.
function show(view) {
  for (const b of document.querySelectorAll('.tabs button')) b.classList.toggle('active', b.dataset.view === view);
  for (const v of document.querySelectorAll('.layout > .view')) v.hidden = v.dataset.view !== view;
  if (view === 'files') loadTree();
  if (view === 'terminals') loadTerminals();
  if (view === 'palette') document.getElementById('palette-query').focus();
}
for (const b of document.querySelectorAll('.tabs button')) b.addEventListener('click', () => show(b.dataset.view));
document.addEventListener('keydown', (e) => {
  if ((e.ctrlKey || e.metaKey) && e.key === 'k') { e.preventDefault(); show('palette'); }
});

let shownPath = null;

async function loadTree() {
  const list = document.getElementById('tree');
  const r = await call('fs.listDirectory', { path: '.', recursive: true, maxEntries: 2000 });
  list.textContent = '';
  for (const e of r.entries) {
    const li = document.createElement('li');
    const depth = e.path.split('/').length - 1;
    li.style.paddingLeft = `${depth * 12}px`;
    li.textContent = e.type === 'directory' ? `${e.name}/` : e.name;
    li.dataset.path = e.path;
    if (e.type === 'directory') li.className = 'dir';
    else li.addEventListener('click', () => openFile(e.path));
    if (e.path === shownPath) li.classList.add('selected');
    list.append(li);
  }
}

async function openFile(path, tag, changedLines) {
  shownPath = path;
  for (const li of document.querySelectorAll('#tree li')) li.classList.toggle('selected', li.dataset.path === path);
  document.getElementById('buffer-path').textContent = path;
  const t = document.getElementById('buffer-tag');
  t.textContent = tag ? `changed by ${tag.who}` : '';
  t.className = tag ? `tag ${tag.kind}` : 'tag';
  const pre = document.getElementById('buffer');
  let r;
  try {
    r = await call('editor.getContent', { path });
  } catch (err) {
    pre.textContent = err.message;
    return;
  }
  // changedLines is [first, last], 1-based.
  const [first, last] = Array.isArray(changedLines) ? changedLines : [0, -1];
  pre.textContent = '';
  const lines = (r.content || '').split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  lines.forEach((line, i) => {
    const row = document.createElement('div');
    row.className = i + 1 >= first && i + 1 <= last ? 'line changed' : 'line';
    const ln = document.createElement('span');
    ln.className = 'ln';
    ln.textContent = String(i + 1);
    row.append(ln, document.createTextNode(line));
    pre.append(row);
  });
}

// Edits appear as they happen, tagged with who made them.
function fileChanged(event, data, source) {
  activity(event, { command: `${event} ${data.path || ''}` }, source);
  if (!data.path || data.path !== shownPath) return;
  const kind = (source && source.type) || (data.external ? 'disk' : 'internal');
  const who = (source && (source.agentId || source.type)) || (data.external ? 'a change on disk' : 'Ultra');
  openFile(data.path, { who, kind }, data.changedLines);
}

let shownTerminal = null;
let terminalNext = 0;

async function loadTerminals() {
  const r = await call('terminal.list', {});
  const list = document.getElementById('terminal-list');
  list.textContent = '';
  for (const t of r.terminals) {
    const li = document.createElement('li');
    li.textContent = `${t.name || t.terminalId}${t.exited ? ` (exited ${t.exitCode})` : ''}`;
    li.dataset.id = t.terminalId;
    li.addEventListener('click', () => openTerminal(t.terminalId));
    if (t.terminalId === shownTerminal) li.classList.add('selected');
    list.append(li);
  }
}

async function openTerminal(id) {
  shownTerminal = id;
  terminalNext = 0;
  document.getElementById('terminal-output').textContent = '';
  for (const li of document.querySelectorAll('#terminal-list li')) li.classList.toggle('selected', li.dataset.id === id);
  await readTerminal();
}

let reading = null;
async function readTerminal() {
  // One read at a time; output that arrives meanwhile is picked up by one more.
  if (reading) { reading.again = true; return; }
  reading = { again: false };
  try {
    do {
      reading.again = false;
      if (!shownTerminal) break;
      const id = shownTerminal;
      const r = await call('terminal.read', { terminalId: id, since: terminalNext });
      if (id !== shownTerminal) continue;
      terminalNext = r.next;
      // A plain view: colours, cursor moves and titles are left out.
      const text = r.data.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[=>]|\r/g, '');
      document.getElementById('terminal-output').textContent += text;
    } while (reading.again);
  } finally {
    reading = null;
  }
}

const palette = { items: [], active: 0, chosen: null };

async function searchCommands() {
  const query = document.getElementById('palette-query').value;
  palette.items = await call('ultra.listCommands', { query, brief: true });
  palette.active = 0;
  const list = document.getElementById('palette-list');
  list.textContent = '';
  palette.items.slice(0, 50).forEach((c, i) => {
    const li = document.createElement('li');
    const id = document.createElement('span');
    id.className = 'id';
    id.textContent = c.id;
    const title = document.createElement('span');
    title.className = 'title';
    title.textContent = c.title || '';
    li.append(id, title);
    li.addEventListener('click', () => choose(c));
    if (i === 0) li.classList.add('active');
    list.append(li);
  });
}

function choose(c) {
  palette.chosen = c;
  document.getElementById('palette-run').hidden = false;
  document.getElementById('palette-title').textContent = `${c.id}: ${c.description || c.title || ''}`;
  document.getElementById('palette-usage').textContent = c.usage || '';
  const example = c.examples && c.examples[0];
  document.getElementById('palette-args').value = example && example.args ? example.args : '{}';
  document.getElementById('palette-result').textContent = '';
}

document.getElementById('palette-query').addEventListener('input', () => { searchCommands().catch((e) => toast(e.message)); });
document.getElementById('palette-query').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && palette.items[palette.active]) choose(palette.items[palette.active]);
});
document.getElementById('palette-go').addEventListener('click', async () => {
  const out = document.getElementById('palette-result');
  let args;
  try { args = JSON.parse(document.getElementById('palette-args').value || '{}'); } catch (e) { out.textContent = `arguments are not JSON: ${e.message}`; return; }
  try {
    out.textContent = JSON.stringify(await call(palette.chosen.id, args), null, 2);
  } catch (err) {
    out.textContent = `${err.message}\n${JSON.stringify(err.data || {}, null, 2)}`;
  }
});

function connect() {
  if (!ticket) {
    setStatus('no ticket: open the URL `ultra serve` printed', 'no-ticket');
    return;
  }
  ws = new WebSocket(`ws://${location.host}/`);
  ws.onmessage = async (m) => {
    let msg;
    try { msg = JSON.parse(m.data); } catch { return; }
    if (msg.id !== undefined && pending.has(msg.id)) {
      const p = pending.get(msg.id);
      pending.delete(msg.id);
      if (msg.error) {
        const d = msg.error.data || {};
        const err = new Error(d.suggestion ? `${msg.error.message} (${d.suggestion})` : msg.error.message);
        err.data = d;
        p.reject(err);
      } else p.resolve(msg.result);
      return;
    }
    if (msg.method === 'auth.challenge') {
      try {
        const auth = await call('auth.authenticate', { ticket, nonce: msg.params.nonce });
        mySession = auth.sessionId;
        await call('events.subscribe', {
          events: ['ui.*', 'confirmation.*', 'command.executed', 'buffer.changed', 'file.saved', 'file.changedOnDisk', 'terminal.*'],
        });
        await load();
      } catch (err) {
        setStatus(`sign-in failed: ${err.message}`, 'failed');
      }
      return;
    }
    if (msg.method) onEvent(msg.method, msg.params);
  };
  ws.onclose = () => {
    if (document.body.dataset.state === 'ready') setStatus('disconnected', 'closed');
  };
}

connect();
