// Sabot technician page: a table's devices, counters, last faults and watchdog, the shuffler's
// self-test, the vision calibration and camera reports, and (simulation only) fault injection.
'use strict';

const $ = (sel, el = document) => el.querySelector(sel);
const table = decodeURIComponent(location.pathname.split('/').pop());
const api = `/api/tables/${encodeURIComponent(table)}`;

function esc(s) {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}
function when(ts) {
  if (!ts) return '—';
  const d = new Date(ts);
  return d.toLocaleDateString('en-GB') + ' ' + d.toLocaleTimeString('en-GB', { hour12: false });
}
function facts(list) {
  if (!list || !list.length) return '';
  return `<table class="facts">${list.map((f) => `<tr><td>${esc(f.name)}</td><td class="${f.bad ? 'bad' : ''}">${esc(f.value)}</td></tr>`).join('')}</table>`;
}
function body(id) { return $(`#${id} .body`); }

function render(d) {
  body('p-daemon').innerHTML = facts(d.daemon);
  body('p-loops').innerHTML = `<table class="facts">${(d.loops || []).map((l) =>
    `<tr><td><span class="dev ${esc(l.state)}">${esc(l.name)}</span></td><td class="${l.state === 'stalled' ? 'bad' : ''}">${esc(l.state)}${l.detail ? ' · ' + esc(l.detail) : ''}</td></tr>`).join('')}</table>`;
  const shuf = (d.devices || []).find((x) => x.name === 'shuffler');
  const others = (d.devices || []).filter((x) => x.name !== 'shuffler');
  const result = body('p-shuffler').querySelector('.selftest-result');
  body('p-shuffler').innerHTML = shuf
    ? `<p><span class="dev ${esc(shuf.state)}">${esc(shuf.state)}</span> · ${esc(shuf.detail || '')}</p>${facts(shuf.facts)}`
    : '<p class="note">no shuffler</p>';
  if (result) body('p-shuffler').appendChild(result);
  body('p-devices').innerHTML = others.map((x) =>
    `<p><span class="dev ${esc(x.state)}">${esc(x.name)}</span> · ${esc(x.state)}${x.detail ? ', ' + esc(x.detail) : ''}</p>${facts(x.facts)}`).join('') || '<p class="note">no other device</p>';
  body('p-counters').innerHTML = facts(d.counters) || '<p class="note">nothing counted yet</p>';
  const faults = d.faults || [];
  body('p-faults').innerHTML = faults.length
    ? `<table class="faults"><tr><th>when</th><th>device</th><th>fault</th><th>detail</th></tr>${faults.map((f) =>
      `<tr><td>${when(f.at)}</td><td>${esc(f.device)}</td><td>${esc(f.kind)}</td><td>${esc(f.detail)}</td></tr>`).join('')}</table>`
    : '<p class="note">no fault since the daemon started</p>';
  const inj = d.injectable || [];
  $('#p-inject').hidden = inj.length === 0;
  if (inj.length && !$('#inject').children.length) {
    $('#inject').innerHTML = inj.map((f) => `<button class="btn" data-inject="${esc(f)}">${esc(f)}</button>`).join('');
  }
}

async function refresh() {
  try {
    const res = await fetch(api + '/diag');
    const d = await res.json();
    if (!res.ok) throw new Error(d.error || res.statusText);
    render(d);
    $('#live').className = 'live on';
    $('#live-text').textContent = 'live';
    $('#banner').hidden = true;
    $('#updated').textContent = 'updated ' + new Date().toLocaleTimeString('en-GB', { hour12: false });
  } catch (err) {
    $('#live').className = 'live off';
    $('#live-text').textContent = 'offline';
    $('#banner').hidden = false;
    $('#banner').textContent = `Cannot reach the daemon of table ${table}: ${err.message}`;
  }
}

async function reports() {
  try {
    const r = await (await fetch('/api/reports')).json();
    const list = r.reports || [];
    body('p-reports').innerHTML = list.length
      ? `<div class="reports">${list.map((x) => `<a href="/reports/${encodeURIComponent(x.name)}" target="_blank" rel="noopener">
          <img src="/reports/${encodeURIComponent(x.name)}" alt="${esc(x.name)}" loading="lazy">
          <span>${esc(x.kind)} report<br><small>${esc(x.name)} · ${when(x.at)}</small></span></a>`).join('')}</div>`
      : `<p class="note">No report yet${r.dir ? ` in <code>${esc(r.dir)}</code>` : ''}. <code>sabot calibrate camera</code> writes the camera report and <code>sabot vision eval</code> the calibration contact sheet; save them there as PNG files.</p>`;
  } catch (err) {
    body('p-reports').innerHTML = `<p class="note">${esc(err.message)}</p>`;
  }
}

document.addEventListener('click', async (e) => {
  const b = e.target.closest('[data-inject]');
  if (b) {
    b.disabled = true;
    const res = await fetch(`${api}/inject/${encodeURIComponent(b.dataset.inject)}`, { method: 'POST' });
    b.disabled = false;
    b.title = res.ok ? 'injected' : (await res.json()).error;
    refresh();
  }
  if (e.target.closest('#selftest')) {
    const btn = $('#selftest');
    btn.disabled = true;
    btn.textContent = 'Testing…';
    let out;
    try {
      const res = await fetch(api + '/selftest', { method: 'POST' });
      const r = await res.json();
      out = res.ok ? { cls: r.passed ? 'pass' : 'fail', text: `${r.passed ? 'PASSED' : 'FAILED'} at ${when(r.at)} — ${r.detail}` } : { cls: 'fail', text: r.error };
    } catch (err) {
      out = { cls: 'fail', text: String(err) };
    }
    btn.disabled = false;
    btn.textContent = 'Run self-test';
    let el = body('p-shuffler').querySelector('.selftest-result');
    if (!el) { el = document.createElement('p'); body('p-shuffler').appendChild(el); }
    el.className = 'selftest-result ' + out.cls;
    el.textContent = out.text;
  }
});

$('#title').textContent = 'Technician · table ' + table;
document.title = 'Sabot · ' + table + ' · technician';
setInterval(() => { $('#clock').textContent = new Date().toLocaleTimeString('en-GB', { hour12: false }); }, 1000);
setInterval(refresh, 2000);
refresh();
reports();
