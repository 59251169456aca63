// Sabot surveillance floor: renders the floor the server streams (server-sent events), keeps the
// alert strip until somebody acknowledges each alert, and replays past rounds from the journal.
'use strict';

const $ = (sel, el = document) => el.querySelector(sel);
const state = {
  meta: null,
  tables: new Map(),
  alerts: [],
  seenCards: new Set(),
  seenAlerts: new Set(),
  link: null,
  live: false,
  lostAt: null,
  history: false,
  allAlerts: false,
};

// ---- helpers ---------------------------------------------------------------------------------

function esc(s) {
  return String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
}
function money(cents) {
  const neg = cents < 0;
  const abs = Math.abs(cents);
  const units = Math.floor(abs / 100).toLocaleString('en-US');
  return (neg ? '−' : '') + units + '.' + String(abs % 100).padStart(2, '0');
}
function signed(cents) { return (cents > 0 ? '+' : '') + money(cents); }
function hhmmss(ts) {
  if (!ts) return '';
  const d = new Date(ts);
  return d.toLocaleTimeString('en-GB', { hour12: false });
}
function ago(ts) {
  if (!ts) return '—';
  const s = Math.max(0, Math.round((Date.now() - new Date(ts).getTime()) / 1000));
  if (s < 60) return s + ' s ago';
  if (s < 3600) return Math.floor(s / 60) + ' min ago';
  return Math.floor(s / 3600) + ' h ago';
}
const SMALL = new Set(['et', 'de', 'a']);
function gameName(g) {
  return (g || '').split('-').map((w, i) => (i > 0 && SMALL.has(w) ? w : w.charAt(0).toUpperCase() + w.slice(1))).join(' ');
}
const STATES = {
  'idle': ['Idle', ''],
  'verified': ['Verified', ''],
  'shuffled': ['Cut', ''],
  'cut': ['Stop card', ''],
  'burning': ['Burning', 'dealing'],
  'between-rounds': ['Bets', 'bets'],
  'in-round': ['Dealing', 'dealing'],
  'counting': ['Counting', ''],
  'held': ['Held', 'held'],
};

// ---- cards -----------------------------------------------------------------------------------

const RANKS = 'A23456789TJQK';
const SUITS = { c: 'clubs', d: 'diamonds', h: 'hearts', s: 'spades' };
const RANK_NAMES = { A: 'ace', T: 'ten', J: 'jack', Q: 'queen', K: 'king' };

function cardHTML(c, key) {
  const fresh = key && !state.seenCards.has(key);
  if (key) state.seenCards.add(key);
  const cls = ['card'];
  if (fresh) cls.push('new');
  let title = 'face down';
  let marks = '';
  if (!c.card || c.hidden) {
    cls.push('back');
  } else {
    const r = RANKS.indexOf(c.card[0]);
    const s = c.card[1];
    cls.push('r' + r, 's-' + s);
    title = (RANK_NAMES[c.card[0]] || c.card[0]) + ' of ' + SUITS[s];
    if (c.down) { cls.push('down'); title += ' (dealt face down)'; marks = '<i class="mark">down</i>'; }
  }
  if (c.manual) { title += ' — entered by hand by ' + c.manual; marks = '<i class="mark manual">by hand</i>'; }
  if (c.pos) title += ' · shoe position ' + c.pos;
  return `<div class="${cls.join(' ')}" title="${esc(title)}" data-card="${esc(c.card || '')}">${marks}</div>`;
}

// ---- a table ---------------------------------------------------------------------------------

function handClass(h) {
  const cls = ['hand', 'h-' + (h.place.seat ? 'box' : h.place.name)];
  if (h.outcome) cls.push(h.outcome.replace(/[^a-z-]/g, ''));
  return cls.join(' ');
}

function feltHTML(t, keyPrefix) {
  const r = t.round;
  const fam = t.family || 'other';
  if (!r || !r.hands || r.hands.length === 0) {
    let say = (t.say && t.say.length) ? t.say[t.say.length - 1] : 'no round on the layout';
    if (r && r.state === 'dealing' && t.state !== 'held') say = `no more bets: ${(r.bets || []).length} bets, waiting for the first card`;
    const line = r ? `<span class="round-line">Round ${r.no}</span>` : '';
    return `<div class="felt fam-${esc(fam)}">${line}<div class="idle">${esc(say)}</div></div>`;
  }
  const hands = r.hands.map((h) => {
    const cards = h.cards.map((c, i) => cardHTML(c, keyPrefix ? `${keyPrefix}|${r.no}|${h.label}|${i}|${c.card || ''}` : null)).join('');
    const total = h.total ? `<span class="total">${esc(h.total)}</span>` : '';
    const cat = h.category ? `<div class="category">${esc(h.category)}</div>` : '';
    const dec = h.decisions && h.decisions.length ? `<div class="decisions">${h.decisions.map((d) => `<span>${esc(d)}</span>`).join('')}</div>` : '';
    const out = h.outcome && h.outcome !== 'done' ? `<div class="outcome">${esc(h.outcome)}</div>` : '';
    return `<div class="${handClass(h)}" data-hand="${esc(h.label)}">
      <div class="hand-head"><span class="label">${esc(h.label)}</span>${total}</div>
      <div class="cards">${cards}</div>${cat}${dec}${out}</div>`;
  }).join('');
  const burns = r.burns && r.burns.length
    ? `<div class="burns">burned ${r.burns.map((c) => cardHTML(c, null)).join('')}</div>` : '';
  const line = `Round ${r.no}` + (r.state === 'voided' ? ' · VOIDED' : '');
  return `<div class="felt fam-${esc(fam)}"><span class="round-line">${esc(line)}</span>${hands}${burns}</div>`;
}

function shoeHTML(t) {
  const s = t.shoe || {};
  if (!s.total) {
    const text = s.id ? `Shoe <b>${esc(s.id)}</b> · <b class="num">${s.out}</b> out · joined after the shoe was loaded` : 'no shoe loaded';
    return `<div class="shoe"><div class="bar"></div><div class="shoe-text"><span>${text}</span></div></div>`;
  }
  const pct = (n) => Math.max(0, Math.min(100, (100 * n) / s.total)).toFixed(2);
  const cut = s.cut_behind ? `<i class="cut" data-left="${pct(s.total - s.cut_behind)}" title="stop card: ${s.cut_behind} cards behind it"></i>` : '';
  const parts = [
    `Shoe <b>${esc(s.id)}</b>`,
    `<b class="num">${s.out}</b> out (${s.dealt} dealt, ${s.burned} burned)`,
    `<b class="num">${s.left}</b> left`,
  ];
  if (s.cut_behind) parts.push(`stop card ${s.cut_behind} from the back`);
  if (s.cut_reached) parts.push('<span class="stop">STOP CARD OUT</span>');
  if (s.ended && s.ok !== undefined) {
    parts.push(s.ok ? '<span class="acc-ok">accounting OK</span>' : '<span class="acc-bad">ACCOUNTING FAILED</span>');
  }
  return `<div class="shoe"><div class="bar"><span class="burned" data-w="${pct(s.burned)}"></span><span class="dealt" data-w="${pct(s.out - s.burned)}"></span>${cut}</div>
    <div class="shoe-text">${parts.map((p) => `<span>${p}</span>`).join('')}</div></div>`;
}

function guideHTML(t) {
  const held = t.state === 'held';
  // The guidance without the line that only repeats where the next card goes.
  const say = (t.say || []).filter((x) => x !== t.need).join(' · ');
  const need = t.need ? `next: ${t.need}` : '';
  if (!say && !need) return `<div class="guide"><span class="need">${held ? 'held' : ''}</span></div>`;
  return `<div class="guide${held ? ' held' : ''}">${say ? `<span class="say">${esc(say)}</span>` : ''}<span class="need">${esc(need)}</span></div>`;
}

function moneyHTML(t) {
  const r = t.round;
  if (!r) return '';
  const parts = [`Stake <b class="num">${money(r.stake || 0)}</b>`, `${(r.bets || []).length} bets`];
  if (r.net !== undefined && r.net !== null) {
    const cls = r.net > 0 ? 'pos' : r.net < 0 ? 'neg' : '';
    parts.push(`players <b class="num ${cls}">${signed(r.net)}</b>`);
  }
  if (r.result) parts.push(`result <b>${esc(r.result)}</b>`);
  if (r.reason) parts.push(`voided: ${esc(r.reason)}`);
  return `<div class="money">${parts.map((p) => `<span>${p}</span>`).join('')}</div>`;
}

// derivedHTML shows the three derived roads and what a banker or a player win would add to each.
function derivedHTML(roads) {
  const names = { big_eye_boy: 'Big eye boy', small_road: 'Small road', cockroach_pig: 'Cockroach pig' };
  const rows = SabotRoads.KINDS.map((k) => `<div class="derived-row"><span class="cap">${names[k]}</span><div class="road">${SabotRoads.derived(roads, k, { cell: 7, min: 30, max: 52 })}</div></div>`).join('');
  const n = roads.next || {};
  const ask = (side, label) => `<span class="ask ${side}">${label} ${SabotRoads.KINDS.map((k) => SabotRoads.next(k, (n[side] || {})[k], 12)).join('')}</span>`;
  return `<div class="derived-roads">${rows}<div class="asks">${ask('banker', 'if banker')}${ask('player', 'if player')}</div></div>`;
}

function lowerHTML(t) {
  let roads = '';
  if (t.roads) {
    const n = t.roads.counts || {};
    roads = `<div class="road-block"><span class="cap">Bead plate</span><div class="road">${SabotRoads.bead(t.roads)}</div></div>
      <div class="road-block"><span class="cap">Big road</span><div class="road">${SabotRoads.bigRoad(t.roads)}</div>
      ${derivedHTML(t.roads)}
      <div class="counts"><span class="b">Banker ${n.banker || 0}</span><span class="p">Player ${n.player || 0}</span><span class="t">Tie ${n.tie || 0}</span><span>pairs ${(n.banker_pair || 0) + (n.player_pair || 0)}</span><span>naturals ${n.natural || 0}</span></div></div>`;
  }
  const recent = (t.recent || []).slice(-(t.roads ? 8 : 14)).map((o) => {
    const cls = o.voided ? 'voided' : (['banker', 'player', 'tie'].includes(o.result) ? o.result : '');
    return `<span class="chip ${cls}" title="${esc('round ' + o.round + ': ' + o.summary + (o.voided ? '' : ' · players ' + signed(o.net)))}">${esc(t.roads && !o.voided ? o.summary.split(' · ').slice(1).map((x) => x.split(' ').pop()).join('–') : '#' + o.round + ' ' + o.result)}</span>`;
  }).join('');
  const odds = typeof oddsHTML === 'function' ? oddsHTML(t) : '';
  if (!roads && !recent && !odds) return '';
  return `<div class="lower">${roads}<div class="road-block"><span class="cap">Last results</span><div class="recent">${recent || '<span class="chip">none yet</span>'}</div></div>${odds}</div>`;
}

function devicesHTML(t) {
  const devs = (t.devices || []).map((d) => `<span class="dev ${esc(d.state)}" title="${esc(d.detail || d.state)}">${esc(d.name)} <small>${esc(d.state)}</small></span>`).join('');
  return `<div class="devices">${devs || '<span class="dev">no device report</span>'}
    <span class="feed">feed <b class="seq">#${t.seq}</b> · session ${t.session || '—'} · last card <span data-ago="${esc(t.last_card || '')}">${ago(t.last_card)}</span></span></div>`;
}

function tableHTML(t, opts = {}) {
  const offline = t.online === false;
  const st = offline ? ['Offline', 'offline'] : (STATES[t.state] || [t.state || '—', '']);
  const badge = `<span class="badge ${st[1]}">${esc(st[0])}${t.state === 'held' && t.held ? ': ' + esc(t.held) : ''}</span>`;
  const tools = opts.replay ? '' : `<span class="tools">
      ${state.meta && state.meta.replay ? `<button class="btn" data-replay="${esc(t.table)}">Replay</button>` : ''}
      ${state.meta && state.meta.tech ? `<a class="btn" href="/tech/${encodeURIComponent(t.table)}">Technician</a>` : ''}</span>`;
  const round = t.round ? `<span class="round">round ${t.round.no}</span>` : '';
  return `<header><h2>${esc(t.table)}</h2><span class="game">${esc(gameName(t.game))}</span>${badge}${round}<span class="grow"></span>${tools}</header>
    ${shoeHTML(t)}${feltHTML(t, opts.replay ? null : t.table)}${guideHTML(t)}${moneyHTML(t)}${opts.replay ? '' : lowerHTML(t) + devicesHTML(t)}`;
}

function sizeBars(root) {
  for (const el of root.querySelectorAll('[data-w]')) el.style.width = el.dataset.w + '%';
  for (const el of root.querySelectorAll('[data-left]')) el.style.left = 'calc(' + el.dataset.left + '% - 2px)';
}

function renderTable(t) {
  const main = $('#tables');
  $('#empty')?.remove();
  const id = 't-' + t.table;
  let el = document.getElementById(id);
  if (!el) {
    el = document.createElement('article');
    el.id = id;
    el.dataset.table = t.table;
    const after = [...main.children].find((x) => x.dataset.table && x.dataset.table > t.table);
    main.insertBefore(el, after || null);
  }
  el.className = 'table' + (t.state === 'held' ? ' held' : '') + (t.online === false ? ' offline' : '');
  main.classList.toggle('single', main.querySelectorAll('article.table').length === 1);
  el.innerHTML = tableHTML(t);
  sizeBars(el);
}

// ---- alerts ----------------------------------------------------------------------------------

function alertHTML(a, history) {
  const where = `${esc(a.table || 'view')}${a.round ? `<small>round ${a.round}</small>` : ''}`;
  const resolved = a.resolved ? `<span class="resolved">resolved at the table: ${esc(a.resolved)}</span>` : '';
  if (history) {
    return `<div class="alert ${esc(a.severity)}"><span class="kind">${esc(a.title)}</span><span class="where">${where}</span>
      <span class="text">${esc(a.text)}</span><span class="ackd">${hhmmss(a.at)} · acknowledged by ${esc(a.ack_by)} at ${hhmmss(a.ack_at)}</span></div>`;
  }
  const fresh = !state.seenAlerts.has(a.id);
  state.seenAlerts.add(a.id);
  return `<div class="alert ${esc(a.severity)}${fresh ? ' fresh' : ''}" data-alert="${a.id}" data-kind="${esc(a.kind)}">
    <span class="kind">${esc(a.title)}</span><span class="where">${where}</span>
    <span class="text" title="${esc(a.text)}">${esc(a.text)}${resolved}</span>
    <span class="count">${a.count > 1 ? '×' + a.count : ''}</span>
    <span class="time">${hhmmss(a.at)}</span>
    <button data-ack="${a.id}">Acknowledge</button></div>`;
}

// STRIP is how many open alerts the strip shows before "n more" (the most serious and newest).
const STRIP = 5;

function renderAlerts() {
  const open = state.alerts.filter((a) => !a.ack_by);
  const done = state.alerts.filter((a) => a.ack_by);
  const shown = state.allAlerts ? open : open.slice(0, STRIP);
  let more = '';
  if (open.length > STRIP) {
    more = `<button class="more-toggle" id="more-toggle">${state.allAlerts ? '▴ show the first ' + STRIP : '▾ ' + (open.length - STRIP) + ' more open alerts'}</button>`;
  }
  $('#alerts').innerHTML = shown.map((a) => alertHTML(a, false)).join('') + more;
  const tg = $('#history-toggle');
  tg.hidden = done.length === 0;
  tg.textContent = (state.history ? '▾ ' : '▸ ') + done.length + ' acknowledged';
  const h = $('#history');
  h.hidden = !state.history || done.length === 0;
  h.innerHTML = state.history ? done.map((a) => alertHTML(a, true)).join('') : '';
  renderSummary();
}

function renderSummary() {
  const open = state.alerts.filter((a) => !a.ack_by);
  const crit = open.filter((a) => a.severity === 'critical').length;
  const held = [...state.tables.values()].filter((t) => t.state === 'held').length;
  const offline = [...state.tables.values()].filter((t) => t.online === false).length;
  $('#summary').innerHTML = `<span><b>${state.tables.size}</b> tables</span>` +
    `<span class="${held ? 'bad' : ''}"><b>${held}</b> held</span>` +
    `<span class="${offline ? 'bad' : ''}"><b>${offline}</b> offline</span>` +
    `<span class="${crit ? 'bad' : ''}"><b>${open.length}</b> open alerts</span>` +
    (state.pools || []).map((p) => `<span class="pool" title="contributions ${money(p.contributions)}, ${p.hits} prizes paid${p.last_win ? ', last: ' + money(p.last_win.amount) + ' at ' + p.last_win.table : ''}">` +
      `progressive ${esc(p.pool)} <b class="meter">${money(p.value)}</b></span>`).join('') +
    Object.entries(state.progressive || {}).filter(([, st]) => st === 'closed').map(([t]) =>
      `<span class="bad" title="the table's progressive controller is offline: it takes no progressive bet">progressive closed at <b>${esc(t)}</b></span>`).join('');
}

// money writes cents as dollars: 123456 → $1,234.56.
function money(c) {
  const s = Math.abs(c).toString().padStart(3, '0');
  const whole = s.slice(0, -2).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return (c < 0 ? '-' : '') + '$' + whole + '.' + s.slice(-2);
}

async function ack(id, button) {
  const op = $('#operator');
  const by = op.value.trim();
  if (!by) {
    op.classList.add('need');
    op.focus();
    op.placeholder = 'who acknowledges?';
    return;
  }
  button.disabled = true;
  button.textContent = 'Acknowledging…';
  try {
    const res = await fetch(`/api/alerts/${id}/ack`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ by }) });
    if (!res.ok) throw new Error((await res.json()).error || res.statusText);
  } catch (err) {
    button.disabled = false;
    button.textContent = 'Acknowledge';
    button.title = String(err);
  }
}

// ---- the live stream -------------------------------------------------------------------------

function applyMeta(m) {
  state.meta = m;
  $('#title').textContent = m.title + (m.public ? ' · public feed' : ' · secure feed');
  document.title = 'Sabot · ' + m.title;
  if (m.art) {
    document.documentElement.style.setProperty('--card-ratio', String(m.art.card_w / m.art.card_h));
    $('#art-credit').textContent = m.art.license;
  }
}

function applySnapshot(s, full) {
  if (full) {
    state.tables.clear();
    for (const el of document.querySelectorAll('#tables article')) el.remove();
  }
  for (const t of s.tables) {
    state.tables.set(t.table, t);
    renderTable(t);
  }
  if (s.alerts) {
    state.alerts = s.alerts;
    renderAlerts();
  }
  state.link = s.link || null;
  if (s.pools) state.pools = s.pools;
  if (s.progressive) state.progressive = s.progressive;
  renderBanner();
  renderSummary();
}

function setLive(on) {
  state.live = on;
  if (!on && !state.lostAt) state.lostAt = new Date();
  if (on) state.lostAt = null;
  document.body.classList.toggle('stale', !on); // nothing on the page is live any more
  const l = $('#live');
  l.className = 'live ' + (on ? 'on' : 'off');
  $('#live-text').textContent = on ? 'live' : 'offline';
  renderBanner();
}

function renderBanner() {
  const b = $('#banner');
  let text = '';
  if (!state.live && state.lostAt) {
    text = `Connection to the ${state.meta && state.meta.tech ? 'daemon' : 'floor'} lost at ${hhmmss(state.lostAt)}: this view is frozen as it was then. Reconnecting…`;
  } else if (state.link) {
    text = `The floor's feed is down since ${hhmmss(state.link.at)}: ${state.link.detail}`;
  }
  b.hidden = !text;
  b.textContent = text;
}

function connect() {
  const es = new EventSource('/api/stream');
  es.addEventListener('meta', (e) => applyMeta(JSON.parse(e.data)));
  es.addEventListener('snapshot', (e) => { setLive(true); applySnapshot(JSON.parse(e.data), true); });
  es.addEventListener('update', (e) => applySnapshot(JSON.parse(e.data), false));
  es.onerror = () => setLive(false);
}

// ---- replay ----------------------------------------------------------------------------------

const rp = { table: null, shoe: null, frames: [], i: 0, timer: null };

async function getJSON(url) {
  const res = await fetch(url);
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

async function openReplay(table) {
  rp.table = table;
  const dlg = $('#replay');
  $('#rp-title').textContent = 'Replay · ' + table;
  $('#rp-stage').innerHTML = '<p class="rp-hint">Pick a round to replay it card by card from the journal.</p>';
  $('#rp-controls').hidden = true;
  $('#rp-rounds').innerHTML = '';
  if (!dlg.open) dlg.showModal();
  try {
    const shoes = await getJSON(`/api/tables/${encodeURIComponent(table)}/shoes`);
    $('#rp-shoe').innerHTML = shoes.map((s) => `<option>${esc(s)}</option>`).join('');
    if (shoes.length) await loadRounds(shoes[0]);
    else $('#rp-stage').innerHTML = '<p class="rp-hint">The journal holds no shoe yet.</p>';
  } catch (err) {
    $('#rp-stage').innerHTML = `<p class="rp-hint">${esc(err.message)}</p>`;
  }
}

async function loadRounds(shoe) {
  rp.shoe = shoe;
  const rounds = await getJSON(`/api/tables/${encodeURIComponent(rp.table)}/shoes/${encodeURIComponent(shoe)}/rounds`);
  const box = $('#rp-rounds');
  box.innerHTML = rounds.map((r) => {
    const cls = ['banker', 'player', 'tie'].includes(r.result) ? r.result : (r.result === 'voided' ? 'voided' : '');
    return `<span class="chip ${cls}${r.faults ? ' faulty' : ''}" data-round="${r.round}" title="${esc(r.summary || 'unfinished')}">#${r.round}</span>`;
  }).join('') || '<span class="chip">no round in this shoe</span>';
  box.scrollLeft = box.scrollWidth;
}

async function loadReplay(round) {
  stopPlay();
  for (const c of document.querySelectorAll('#rp-rounds .chip')) c.classList.toggle('sel', c.dataset.round === String(round));
  try {
    const r = await getJSON(`/api/tables/${encodeURIComponent(rp.table)}/shoes/${encodeURIComponent(rp.shoe)}/rounds/${round}`);
    rp.frames = r.frames;
    rp.i = 0;
    $('#rp-controls').hidden = false;
    showFrame();
    play();
  } catch (err) {
    $('#rp-stage').innerHTML = `<p class="rp-hint">${esc(err.message)}</p>`;
  }
}

function showFrame() {
  const f = rp.frames[rp.i];
  if (!f) return;
  const stage = $('#rp-stage');
  stage.innerHTML = `<article class="table">${tableHTML(f.table, { replay: true })}</article>`;
  sizeBars(stage);
  $('#rp-pos').textContent = `${rp.i + 1} / ${rp.frames.length}`;
  $('#rp-caption').textContent = `${hhmmss(f.at)} #${f.seq} ${f.caption}`;
}

function step(d) {
  rp.i = Math.max(0, Math.min(rp.frames.length - 1, rp.i + d));
  showFrame();
}
function play() {
  stopPlay();
  $('#rp-play').textContent = '❚❚';
  rp.timer = setInterval(() => {
    if (rp.i >= rp.frames.length - 1) { stopPlay(); return; }
    step(1);
  }, 900);
}
function stopPlay() {
  clearInterval(rp.timer);
  rp.timer = null;
  $('#rp-play').textContent = '▶';
}

// ---- wiring ----------------------------------------------------------------------------------

document.addEventListener('click', (e) => {
  const a = e.target.closest('[data-ack]');
  if (a) { ack(a.dataset.ack, a); return; }
  const r = e.target.closest('[data-replay]');
  if (r) { openReplay(r.dataset.replay); return; }
  const chip = e.target.closest('#rp-rounds [data-round]');
  if (chip) { loadReplay(chip.dataset.round); return; }
  if (e.target.closest('#history-toggle')) { state.history = !state.history; renderAlerts(); }
  if (e.target.closest('#more-toggle')) { state.allAlerts = !state.allAlerts; renderAlerts(); }
});

function init() {
  const op = $('#operator');
  op.value = localStorage.getItem('sabot.operator') || '';
  op.addEventListener('input', () => { localStorage.setItem('sabot.operator', op.value.trim()); op.classList.remove('need'); });
  $('#rp-close').addEventListener('click', () => { stopPlay(); $('#replay').close(); });
  $('#replay').addEventListener('close', stopPlay);
  $('#rp-shoe').addEventListener('change', (e) => loadRounds(e.target.value));
  $('#rp-first').addEventListener('click', () => { stopPlay(); rp.i = 0; showFrame(); });
  $('#rp-last').addEventListener('click', () => { stopPlay(); rp.i = rp.frames.length - 1; showFrame(); });
  $('#rp-prev').addEventListener('click', () => { stopPlay(); step(-1); });
  $('#rp-next').addEventListener('click', () => { stopPlay(); step(1); });
  $('#rp-play').addEventListener('click', () => (rp.timer ? stopPlay() : play()));
  document.addEventListener('keydown', (e) => {
    if (!$('#replay').open || !rp.frames.length) return;
    if (e.key === 'ArrowLeft') { stopPlay(); step(-1); }
    if (e.key === 'ArrowRight') { stopPlay(); step(1); }
    if (e.key === ' ') { e.preventDefault(); rp.timer ? stopPlay() : play(); }
  });
  fetch('/metrics', { method: 'HEAD' }).then((r) => { $('#metrics-link').hidden = !r.ok; }).catch(() => {});
  setInterval(() => {
    $('#clock').textContent = new Date().toLocaleTimeString('en-GB', { hour12: false });
    for (const el of document.querySelectorAll('[data-ago]')) el.textContent = ago(el.dataset.ago);
  }, 1000);
  connect();
}

init();
