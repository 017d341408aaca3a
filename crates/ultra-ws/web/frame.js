// Draws agents' windows from UICP mutations, inside a sandboxed frame with an opaque
// origin: it can reach nothing but its parent, by postMessage. Markup arrives sanitised by
// the server; the Trusted Types policy below is the only way into innerHTML. Interactivity
// without agent script: data-state-scope/data-state-key inputs report their values,
// data-command elements send their batch with {{value}}, {{form.NAME}}, {{windowId}} and
// {{componentId}} filled in (at most 16 per element; values are put into JSON strings,
// never parsed as JSON).
'use strict';

const policy = trustedTypes.createPolicy('uicp', { createHTML: (s) => s });
const root = document.getElementById('workspace-root');
const PREFIX = 'u-';
const MAX_TOKENS = 16;

function send(message) { parent.postMessage(message, '*'); }

function windowEl(id) {
  return root.querySelector(`.uicp-window[data-window-id="${CSS.escape(id)}"]`);
}

function place(el, w) {
  el.style.left = `${w.x}px`;
  el.style.top = `${w.y}px`;
  el.style.width = `${w.width}px`;
  el.style.height = `${w.height}px`;
  el.style.zIndex = String(w.zIndex);
  el.querySelector('.uicp-title span').textContent = w.title;
}

function openWindow(w) {
  let el = windowEl(w.id);
  if (el) el.remove();
  el = document.createElement('section');
  el.className = 'uicp-window';
  el.dataset.windowId = w.id;
  const title = document.createElement('div');
  title.className = 'uicp-title';
  const name = document.createElement('span');
  const close = document.createElement('button');
  close.textContent = '×';
  close.title = 'Close';
  close.addEventListener('click', () => send({ type: 'batch', batch: [{ op: 'window.close', params: { id: w.id } }] }));
  title.append(name, close);
  const content = document.createElement('div');
  content.className = 'uicp-content';
  el.append(title, content);
  root.append(el);
  place(el, w);
  for (const p of w.content || []) piece(w.id, p);
}

// `#status` in an agent's target means the element it wrote as id="status", which the
// sanitiser renamed `u-status`.
function selector(target) {
  return target.replace(/#([A-Za-z_][\w-]*)/g, `#${PREFIX}$1`);
}

function target(windowId, t) {
  const el = windowEl(windowId);
  if (!el) return null;
  const content = el.querySelector('.uicp-content');
  if (t === 'root') return content;
  try { return content.querySelector(selector(t)); } catch { return null; }
}

function componentEl(id) {
  return root.querySelector(`[data-component="${CSS.escape(id)}"]`);
}

function piece(windowId, p) {
  if (p.kind === 'component') {
    let el = componentEl(p.component);
    if (!el) {
      el = document.createElement('div');
      el.className = 'uicp-component';
      el.dataset.component = p.component;
      (target(windowId, p.target) || target(windowId, 'root')).append(el);
    }
    el.innerHTML = policy.createHTML(p.html);
    return;
  }
  const t = target(windowId, p.target);
  if (!t) return;
  if (p.kind === 'append') t.insertAdjacentHTML('beforeend', policy.createHTML(p.html));
  else t.innerHTML = policy.createHTML(p.html);
}

function boundInputs(scope, key, windowId) {
  return [...root.querySelectorAll('[data-state-scope][data-state-key]')].filter((el) =>
    el.dataset.stateScope === scope && el.dataset.stateKey === key &&
    (scope !== 'window' || el.closest('.uicp-window').dataset.windowId === windowId));
}

function mutate(m) {
  switch (m.type) {
    case 'windowOpen': openWindow(m.window); break;
    case 'windowMove': { const el = windowEl(m.id); if (el) place(el, m); break; }
    case 'windowClose': { const el = windowEl(m.id); if (el) el.remove(); break; }
    case 'content': piece(m.windowId, m.piece); break;
    case 'componentSet': { const el = componentEl(m.component.id); if (el) el.innerHTML = policy.createHTML(m.html); break; }
    case 'componentRemove': { const el = componentEl(m.id); if (el) el.remove(); break; }
    case 'state':
      for (const el of boundInputs(m.scope, m.key, m.windowId)) {
        if (el === document.activeElement) continue;
        if (el.type === 'checkbox') el.checked = Boolean(m.entry.value);
        else el.value = m.entry.value == null ? '' : String(m.entry.value);
      }
      break;
    default: break;
  }
  document.body.dataset.applied = String(Number(document.body.dataset.applied || 0) + 1);
}

window.addEventListener('message', (e) => {
  if (e.source !== parent) return;
  const m = e.data || {};
  if (m.type === 'snapshot') {
    root.textContent = '';
    for (const w of m.snapshot.windows || []) openWindow(w);
    for (const s of m.snapshot.state || []) {
      mutate({ type: 'state', scope: s.scope, key: s.key, windowId: s.windowId, entry: { value: s.value } });
    }
    document.body.dataset.ready = 'true';
  } else if (m.type === 'mutations') {
    for (const mu of m.mutations) mutate(mu);
    // From the server receiving the batch to the frame after it is painted (same clock).
    if (typeof m.receivedAt === 'number') {
      const applied = (window.uicpApplied = window.uicpApplied || []);
      if (applied.length < 10000) applied.push(performance.timeOrigin + performance.now() - m.receivedAt);
      requestAnimationFrame(() => setTimeout(() => {
        const shown = performance.timeOrigin + performance.now();
        const list = (window.uicpLatencies = window.uicpLatencies || []);
        if (list.length < 10000) list.push(shown - m.receivedAt);
      }, 0));
    }
  }
});

function valueOf(el) {
  if (!el) return '';
  if (el.type === 'checkbox') return el.checked ? 'true' : 'false';
  return el.value == null ? '' : String(el.value);
}

// Fill the tokens of one string; `count` is shared by the whole element's command.
function fill(s, el, count) {
  return s.replace(/\{\{\s*(value|windowId|componentId|form\.([A-Za-z0-9_-]+))\s*\}\}/g, (all, what, field) => {
    if (++count.n > MAX_TOKENS) return '';
    if (what === 'value') return valueOf(el);
    if (what === 'windowId') return el.closest('.uicp-window')?.dataset.windowId || '';
    if (what === 'componentId') return el.closest('[data-component]')?.dataset.component || '';
    const form = el.form || el.closest('form') || el.closest('.uicp-content');
    const input = form && form.querySelector(`[name="${CSS.escape(PREFIX + field)}"]`);
    return valueOf(input);
  });
}

function walk(v, el, count) {
  if (typeof v === 'string') return fill(v, el, count);
  if (Array.isArray(v)) return v.map((x) => walk(x, el, count));
  if (v && typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) out[k] = walk(x, el, count);
    return out;
  }
  return v;
}

function runCommand(el) {
  let batch;
  try { batch = JSON.parse(el.dataset.command); } catch { return; }
  if (!Array.isArray(batch)) batch = [batch];
  send({ type: 'batch', batch: walk(batch, el, { n: 0 }) });
}

// The frame's sandbox has no `allow-forms`, so forms never submit (nor fire `submit`):
// a click on a button, or Enter in a form's field, runs the command instead.
document.addEventListener('click', (e) => {
  const el = e.target.closest('[data-command]');
  if (!el || el.tagName === 'FORM') return;
  e.preventDefault();
  runCommand(el);
});

document.addEventListener('keydown', (e) => {
  if (e.key !== 'Enter' || !e.target.form || e.target.tagName === 'TEXTAREA') return;
  const form = e.target.form;
  const el = form.querySelector('button[data-command]:not([type="button"])') ||
    (form.matches('[data-command]') ? form : null);
  if (!el) return;
  e.preventDefault();
  runCommand(el);
});

const timers = new Map();
function bound(e) {
  const el = e.target;
  if (!el.matches || !el.matches('[data-state-scope][data-state-key]')) return;
  const scope = el.dataset.stateScope;
  const key = el.dataset.stateKey;
  const windowId = el.closest('.uicp-window')?.dataset.windowId;
  const id = `${scope}/${windowId}/${key}`;
  clearTimeout(timers.get(id));
  timers.set(id, setTimeout(() => {
    const params = { scope, key, value: el.type === 'checkbox' ? el.checked : el.value };
    if (scope === 'window') params.windowId = windowId;
    send({ type: 'batch', batch: [{ op: 'state.set', params }] });
  }, 120));
}
document.addEventListener('input', bound);
document.addEventListener('change', bound);

send({ type: 'ready' });
