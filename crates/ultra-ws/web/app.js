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

function activity(event, data, source) {
  const list = document.getElementById('activity');
  const li = document.createElement('li');
  const kind = (source && source.type) || 'internal';
  li.className = kind;
  const who = (source && (source.agentId || source.type)) || '';
  li.textContent = `${who} ${data.command || event}${data.success === false ? ' (failed)' : ''}`;
  list.prepend(li);
  while (list.children.length > 100) list.lastChild.remove();
}

// Notifications carry the event's data as their params.
function onEvent(method, params) {
  const data = params || {};
  if (method === 'ui.applied') post({ type: 'mutations', mutations: data.mutations || [] });
  else if (method === 'confirmation.requested') showApproval(data);
  else if (method === 'confirmation.resolved') {
    const li = document.querySelector(`#approvals [data-id="${CSS.escape(data.id || '')}"]`);
    if (li) li.remove();
    countApprovals();
  } else if (method === 'command.executed') activity(method, data, data.source);
}

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
        await call('auth.authenticate', { ticket, nonce: msg.params.nonce });
        await call('events.subscribe', { events: ['ui.*', 'confirmation.*', 'command.executed'] });
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
