// The silt web console: a small single-page app over the JSON API of `silt serve`
// (docs/console.md). Plain ES module, no framework; charts with uPlot when the build vendored it.

// ---- token and API ---------------------------------------------------------------------------
const tokenMatch = location.hash.match(/token=([^&]+)/);
if (tokenMatch) {
  sessionStorage.setItem('silt-token', decodeURIComponent(tokenMatch[1]));
  history.replaceState(null, '', location.pathname + '#/');
}
const token = () => sessionStorage.getItem('silt-token') || '';

async function api(path, body) {
  const opts = { headers: {} };
  if (token()) opts.headers['Authorization'] = 'Bearer ' + token();
  if (body !== undefined) {
    opts.method = 'POST';
    opts.headers['Content-Type'] = 'application/json';
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  let data;
  try { data = await res.json(); } catch { data = { error_class: 'SILT_CONSOLE_BAD_RESPONSE', message: res.statusText, error: 'Error: ' + res.statusText }; }
  if (!res.ok && !data.error) data.error = 'Error: [' + data.error_class + '] ' + data.message;
  return { ok: res.ok, status: res.status, data };
}

// ---- small DOM helpers -----------------------------------------------------------------------
function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (v !== undefined && v !== null && v !== false) e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}
const $ = (id) => document.getElementById(id);
function bytes(n) {
  const u = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0; let v = Number(n);
  while (Math.abs(v) >= 1024 && i < u.length - 1) { v /= 1024; i++; }
  return (i ? v.toFixed(1) : String(v)) + ' ' + u[i];
}
function errorBox(data) {
  return el('div', { class: 'error', 'data-testid': 'error' },
    el('strong', { 'data-testid': 'error-class' }, data.error_class || 'ERROR'), ' ',
    el('span', { 'data-testid': 'error-message' }, data.message || ''),
    el('pre', { class: 'cli' }, data.error || ''));
}
function grid(result, testid) {
  if (!result.columns || result.columns.length === 0) return el('p', { class: 'muted', 'data-testid': testid }, 'OK (no result rows)');
  const t = el('table', { class: 'grid', 'data-testid': testid },
    el('thead', {}, el('tr', {}, result.columns.map((c) => el('th', { title: c.type }, c.name)))),
    el('tbody', {}, result.rows.map((r) => el('tr', {}, r.map((v) => el('td', { class: v === 'NULL' ? 'null' : '' }, v))))));
  const wrap = el('div', { class: 'grid-wrap' }, t);
  if (result.truncated) wrap.append(el('p', { class: 'muted' }, `${result.truncated} more rows not shown`));
  return wrap;
}

// ---- app state -------------------------------------------------------------------------------
let info = {};
async function loadInfo() {
  const r = await api('/api/info');
  if (!r.ok) { $('main').replaceChildren(errorBox(r.data)); return false; }
  info = r.data;
  $('warehouse').textContent = info.warehouse;
  $('mode').textContent = info.read_only ? 'read-only' : '';
  if (!info.charts || window.uPlotMissing || !window.uPlot) { info.charts = false; $('uplot-css').remove(); }
  return true;
}

async function loadTree() {
  const r = await api('/api/tree');
  const tree = $('tree');
  if (!r.ok) { tree.replaceChildren(errorBox(r.data)); return; }
  const items = [];
  for (const s of r.data.schemas) {
    items.push(el('div', { class: 'schema' }, s.name));
    for (const t of s.tables) {
      if (t.type === 'VIEW') { items.push(el('div', { class: 'table view' }, t.name + ' (view)')); continue; }
      items.push(el('a', { class: 'table', href: '#/table/' + encodeURIComponent(t.id), 'data-testid': 'tree-' + t.id }, t.name));
    }
  }
  items.push(el('div', { class: 'schema' }, 'path tables'));
  for (const p of r.data.paths) items.push(el('a', { class: 'table', href: '#/table/' + encodeURIComponent(p) }, p));
  const input = el('input', { placeholder: 'add a path table…', 'data-testid': 'add-path' });
  const msg = el('div');
  items.push(el('form', { onsubmit: async (e) => {
    e.preventDefault();
    const a = await api('/api/paths', { path: input.value });
    if (!a.ok) { msg.replaceChildren(errorBox(a.data)); return; }
    location.hash = '#/table/' + encodeURIComponent(a.data.path);
    loadTree();
  } }, input, msg));
  tree.replaceChildren(...items);
}

// ---- table page ------------------------------------------------------------------------------
function figure(label, value, key, title) {
  return el('div', { class: 'figure', title: title || '' }, el('div', { class: 'label' }, label),
    el('div', { class: 'value', 'data-testid': 'fig-' + key }, value));
}

function chart(title, series, fields, labels) {
  const box = el('div', { class: 'chart' }, el('h4', {}, title));
  if (info.charts && series.length > 1) {
    const data = [series.map((p) => p.version), ...fields.map((f) => series.map((p) => p[f]))];
    const colors = ['#2563eb', '#dc2626', '#16a34a', '#9333ea'];
    const opts = {
      width: 420, height: 180,
      scales: { x: { time: false } },
      axes: [{ label: 'version' }, {}],
      series: [{ label: 'version' }, ...fields.map((f, i) => ({ label: labels[i], stroke: colors[i], width: 2 }))],
    };
    // eslint-disable-next-line no-new, new-cap
    new window.uPlot(opts, data, box);
  } else {
    box.append(el('table', { class: 'grid small' },
      el('thead', {}, el('tr', {}, el('th', {}, 'version'), labels.map((l) => el('th', {}, l)))),
      el('tbody', {}, series.slice(-20).map((p) => el('tr', {}, el('td', {}, p.version), fields.map((f) => el('td', {}, f === 'bytes' ? bytes(p[f]) : p[f])))))));
  }
  return box;
}

async function showTable(id) {
  const main = $('main');
  main.replaceChildren(el('p', { class: 'muted' }, 'loading ' + id + '…'));
  const q = '?table=' + encodeURIComponent(id);
  const [t, hist, adv, ops] = await Promise.all([api('/api/table' + q), api('/api/table/history' + q + '&limit=50'),
    api('/api/table/advisor' + q), api('/api/ops-history' + q + '&limit=50')]);
  if (!t.ok) { main.replaceChildren(errorBox(t.data)); return; }
  const f = t.data;
  const ratio = (f.deleted_rows_ratio * 100).toFixed(2) + ' %';
  const sections = [];
  sections.push(el('h2', { 'data-testid': 'table-title' }, f.table));
  sections.push(el('p', { class: 'muted' }, f.location, ' · version ', el('span', { 'data-testid': 'fig-version' }, f.version),
    ' · ', el('span', { 'data-testid': 'served-ms' }, `${f.elapsed_ms} ms${f.from_cache ? ' (cached)' : ''}`)));
  sections.push(el('div', { class: 'figures' },
    figure('files', f.num_files, 'num_files'),
    figure('size', bytes(f.size_in_bytes), 'size', f.size_in_bytes + ' bytes'),
    el('span', { hidden: true, 'data-testid': 'fig-size_in_bytes' }, f.size_in_bytes),
    figure('rows', f.num_rows, 'num_rows'),
    figure('small files', `${f.small_files} (${bytes(f.small_files_bytes)})`, 'small_files', 'files under ' + bytes(f.min_file_size)),
    figure('deleted rows (DV)', `${f.dv_deleted_rows} · ${ratio}`, 'dv', `${f.dv_files} files with deletion vectors`),
    figure('partitions', f.partition_columns.length ? `${f.num_partitions} (${f.partition_columns.join(', ')})` : 'none', 'partitions'),
    figure('removed, awaiting VACUUM', `${f.tombstones} (${bytes(f.tombstone_bytes)})`, 'tombstones')));
  // Actions
  const act = (label, action, extra = {}, cls = '') => el('button', { class: cls, 'data-testid': 'btn-' + action, onclick: () => runAction(action, f.table, extra, label) }, label);
  const retain = el('input', { type: 'number', min: 0, placeholder: 'retain hours', class: 'narrow', 'data-testid': 'retain-hours' });
  sections.push(el('div', { class: 'actions' },
    el('button', { 'data-testid': 'btn-vacuum', onclick: () => runAction('vacuum_dry_run', f.table, retain.value !== '' ? { retain_hours: Number(retain.value) } : {}, 'VACUUM', 'vacuum') }, 'VACUUM…'), retain,
    act('OPTIMIZE…', 'optimize'), act('REORG … APPLY (PURGE)…', 'reorg_purge'),
    el('button', { 'data-testid': 'btn-maintain', onclick: () => runAction('maintain_dry_run', f.table, {}, 'Maintenance pass', 'maintain') }, 'Run maintenance once…')));
  // Charts
  const s = f.series;
  sections.push(el('h3', {}, 'Over versions'), el('div', { class: 'charts', 'data-testid': 'charts' },
    chart('files', s, ['files', 'small_files'], ['files', 'small files']),
    chart('bytes', s, ['bytes'], ['bytes']),
    chart('deleted rows (DV)', s, ['dv_deleted_rows'], ['deleted rows'])));
  // Advisor
  sections.push(el('h3', {}, 'Maintenance advisor (SHOW MAINTENANCE)'), adv.ok ? grid(adv.data, 'advisor') : errorBox(adv.data));
  // TTL
  const days = el('input', { type: 'number', min: 0, class: 'narrow', value: f.ttl.expire_in_days ?? '', 'data-testid': 'ttl-days' });
  const col = el('input', { value: f.ttl.timestamp_column ?? '', placeholder: 'timestamp column', 'data-testid': 'ttl-column' });
  sections.push(el('h3', {}, 'Auto-TTL policy'), el('div', { class: 'ttl' },
    el('span', { 'data-testid': 'ttl-policy' }, f.ttl.expire_in_days !== null ? `DELETE ROWS ${f.ttl.expire_in_days} DAYS AFTER ${f.ttl.timestamp_column}` : 'no policy'),
    ' ', 'DELETE ROWS ', days, ' DAYS AFTER ', col,
    el('button', { 'data-testid': 'btn-set_ttl', onclick: () => runAction('set_ttl', f.table, { days: Number(days.value), column: col.value }, 'Set TTL policy') }, 'Set…'),
    el('button', { 'data-testid': 'btn-drop_ttl', onclick: () => runAction('drop_ttl', f.table, {}, 'Drop TTL policy') }, 'Drop…')));
  // History timeline
  sections.push(el('h3', {}, 'History (DESCRIBE HISTORY)'), hist.ok ? timeline(hist.data) : errorBox(hist.data));
  // Operations history
  sections.push(el('h3', {}, 'Maintenance operations'), opsFilters(f.table), el('div', { id: 'ops-grid' }, ops.ok ? grid(ops.data, 'ops-history') : errorBox(ops.data)));
  if (f.partitions.length) {
    sections.push(el('h3', {}, 'Largest partitions'), el('table', { class: 'grid small' },
      el('thead', {}, el('tr', {}, el('th', {}, 'partition'), el('th', {}, 'files'), el('th', {}, 'bytes'))),
      el('tbody', {}, f.partitions.slice(0, 20).map((p) => el('tr', {}, el('td', {}, p.partition), el('td', {}, p.files), el('td', {}, bytes(p.bytes)))))));
  }
  main.replaceChildren(...sections);
}

function timeline(h) {
  const col = (n) => h.columns.findIndex((c) => c.name === n);
  const [iv, it, io, im, iu] = ['version', 'timestamp', 'operation', 'operationMetrics', 'userName'].map(col);
  return el('ol', { class: 'timeline', 'data-testid': 'history' }, h.rows.map((r) => el('li', { 'data-testid': 'history-row' },
    el('span', { class: 'version' }, 'v' + r[iv]), ' ', el('strong', { 'data-testid': 'history-operation' }, r[io]), ' ',
    el('span', { class: 'muted' }, r[it], iu >= 0 && r[iu] !== 'NULL' ? ' · ' + r[iu] : ''),
    im >= 0 && r[im] !== 'NULL' ? el('div', { class: 'metrics' }, r[im]) : null)));
}

function opsFilters(table) {
  const op = el('select', { 'data-testid': 'ops-operation' }, ['', 'DELETE', 'PURGE', 'VACUUM', 'COMPACTION', 'CHECKPOINT', 'LOG_CLEANUP'].map((o) => el('option', { value: o }, o || 'any operation')));
  const st = el('select', { 'data-testid': 'ops-status' }, ['', 'SUCCESSFUL', 'FAILED: INTERNAL_ERROR'].map((o) => el('option', { value: o }, o || 'any status')));
  const since = el('input', { placeholder: 'since (2026-01-01)', class: 'narrow' });
  const apply = async () => {
    let q = '?limit=200';
    if (table) q += '&table=' + encodeURIComponent(table);
    if (op.value) q += '&operation=' + encodeURIComponent(op.value);
    if (st.value) q += '&status=' + encodeURIComponent(st.value);
    if (since.value) q += '&since=' + encodeURIComponent(since.value);
    const r = await api('/api/ops-history' + q);
    $('ops-grid').replaceChildren(r.ok ? grid(r.data, 'ops-history') : errorBox(r.data));
  };
  return el('div', { class: 'filters' }, op, st, since, el('button', { onclick: apply, 'data-testid': 'ops-apply' }, 'Filter'));
}

// ---- actions: preview, confirm, progress, cancel -----------------------------------------------
let currentJob = null;
async function runAction(action, table, extra, title, confirmAction) {
  const dlg = $('dialog');
  const body = $('dialog-body');
  const confirm = $('dialog-confirm');
  $('dialog-title').textContent = title;
  body.replaceChildren();
  $('dialog-statement').textContent = '';
  confirm.hidden = true;
  if (!dlg.open) dlg.showModal();
  const previewFirst = confirmAction !== undefined;
  if (previewFirst) {
    // The dry run is the preview: VACUUM … DRY RUN, or the maintenance pass's dry run.
    body.append(el('p', { class: 'muted' }, 'Preview (dry run):'));
    const ok = await runJob(action, table, extra, body);
    if (!ok || info.read_only) return;
    confirm.textContent = 'Run ' + title;
    confirm.hidden = false;
    confirm.onclick = () => { confirm.hidden = true; body.append(el('hr')); runJob(confirmAction, table, extra, body); };
  } else {
    // OPTIMIZE / REORG / TTL: the advisor's row is the preview, the statement is shown first.
    if (action === 'optimize' || action === 'reorg_purge') {
      const adv = await api('/api/table/advisor?table=' + encodeURIComponent(table));
      if (adv.ok) {
        const job = action === 'optimize' ? 'COMPACTION' : 'PURGE';
        const row = { ...adv.data, rows: adv.data.rows.filter((r) => r[0] === job) };
        body.append(el('p', { class: 'muted' }, 'Advisor:'), grid(row, 'preview'));
      }
    }
    $('dialog-statement').textContent = statementOf(action, table, extra);
    confirm.textContent = 'Run';
    confirm.hidden = false;
    confirm.onclick = () => { confirm.hidden = true; runJob(action, table, extra, body); };
  }
}

function statementOf(action, table, extra) {
  switch (action) {
    case 'optimize': return `OPTIMIZE ${table}`;
    case 'reorg_purge': return `REORG TABLE ${table} APPLY (PURGE)`;
    case 'set_ttl': return `ALTER TABLE ${table} SET DELETE ROWS ${extra.days} DAYS AFTER ${extra.column}`;
    case 'drop_ttl': return `ALTER TABLE ${table} DROP ROW DELETION`;
    default: return action;
  }
}

async function runJob(action, table, extra, body) {
  const start = await api('/api/actions', { action, table, ...extra });
  if (!start.ok) { body.append(errorBox(start.data)); return false; }
  let job = start.data;
  $('dialog-statement').textContent = job.statement;
  const state = el('div', { class: 'job-state', 'data-testid': 'job-state' }, job.state);
  const progress = el('pre', { class: 'progress', 'data-testid': 'job-progress' });
  body.append(state, progress);
  const cancel = $('dialog-cancel-job');
  cancel.hidden = false;
  currentJob = job.id;
  cancel.onclick = () => api(`/api/jobs/${job.id}/cancel`, {});
  while (job.state === 'running') {
    await new Promise((r) => setTimeout(r, 150));
    const r = await api(`/api/jobs/${job.id}`);
    if (!r.ok) { body.append(errorBox(r.data)); break; }
    job = r.data;
    progress.textContent = job.progress.join('\n');
    state.textContent = `${job.state} · ${job.elapsed_ms} ms`;
  }
  cancel.hidden = true;
  state.dataset.state = job.state;
  state.setAttribute('data-testid', 'job-state');
  state.textContent = `${job.state} · ${job.elapsed_ms} ms`;
  if (job.error) body.append(errorBox(job.error));
  if (job.result) {
    if (job.result.columns) body.append(grid(job.result, 'job-result'));
    else body.append(maintainReport(job.result));
  }
  const route = location.hash;
  if (route.startsWith('#/table/')) showTable(decodeURIComponent(route.slice(8)));
  return job.state === 'succeeded';
}

function maintainReport(r) {
  const rows = r.advice.length
    ? r.advice.map((a) => [a.table, a.job, String(a.due), a.action ?? 'NULL', String(a.files), String(a.bytes), a.detail])
    : r.operations.map((o) => [o.table, o.operation_type, o.operation_status]);
  const columns = (r.advice.length ? ['table', 'job', 'due', 'action', 'files', 'bytes', 'detail'] : ['table', 'operation', 'status']).map((n) => ({ name: n }));
  return el('div', {}, el('p', {}, `${r.tables} tables, ${r.operations.length} operations, ${r.failed} failed`), grid({ columns, rows }, 'job-result'),
    r.skipped.length ? el('pre', { class: 'muted' }, r.skipped.join('\n')) : null);
}

// ---- SQL and operations pages ----------------------------------------------------------------
function showSql() {
  const ta = el('textarea', { rows: 6, 'data-testid': 'sql-input', spellcheck: 'false' }, 'SHOW TABLES');
  const out = el('div', { 'data-testid': 'sql-output' });
  const run = async () => {
    out.replaceChildren(el('p', { class: 'muted' }, 'running…'));
    const r = await api('/api/sql', { sql: ta.value });
    out.replaceChildren(r.ok ? el('div', {}, el('p', { class: 'muted' }, `${r.data.num_rows} rows · ${r.data.elapsed_ms} ms`), grid(r.data, 'sql-grid')) : errorBox(r.data));
  };
  ta.addEventListener('keydown', (e) => { if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) run(); });
  $('main').replaceChildren(el('h2', {}, 'SQL'), ta, el('div', {}, el('button', { onclick: run, 'data-testid': 'sql-run' }, 'Run (Ctrl+Enter)')), out);
}

async function showOps() {
  const r = await api('/api/ops-history?limit=200');
  $('main').replaceChildren(el('h2', {}, 'Maintenance operations history'), opsFilters(''), el('div', { id: 'ops-grid' }, r.ok ? grid(r.data, 'ops-history') : errorBox(r.data)));
}

function showHome() {
  $('main').replaceChildren(el('h2', {}, 'Warehouse'), el('p', {}, 'Pick a table on the left, or add a path table under the warehouse.'),
    info.charts ? null : el('p', { class: 'muted', 'data-testid': 'no-charts' }, 'Charts are not in this build (uPlot was not installed by npm): history is shown as tables.'));
}

async function route() {
  const h = location.hash || '#/';
  if ($('dialog').open) $('dialog').close();
  if (h.startsWith('#/table/')) return showTable(decodeURIComponent(h.slice(8)));
  if (h === '#/sql') return showSql();
  if (h === '#/ops') return showOps();
  return showHome();
}

$('dialog-close').addEventListener('click', () => $('dialog').close());
window.addEventListener('hashchange', route);
if (await loadInfo()) {
  await loadTree();
  await route();
  document.body.dataset.ready = '1';
}
