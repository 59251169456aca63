// Sabot dealer terminal. The page shows what the table says (/api/stream) and sends taps
// (/api/act); it holds no key and decides no rule: the decisions offered are the engine's, the
// limits the table's, the words the catalogs' (/api/ui). Nothing reacts to hover.
'use strict';

const $ = (s, el = document) => el.querySelector(s);
const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));

const state = {
  ui: {}, lang: 'en', view: null, live: false,
  bets: [], seat: 1, spot: null, amount: '', // the bets being entered (cents are amount × 100)
  entry: '',                                  // the cut's or the stop card's number
  raise: '',                                  // a bet of a chosen size (circle poker)
  bank: null,                                 // chemin de fer: the bank action being entered
  pending: null,                              // an action waiting for a supervisor's approval
  seenRound: 0,
};

// T says a code of the terminal's catalog with its arguments.
function T(code, args = {}) {
  const t = state.ui[code];
  if (t === undefined) return code;
  return t.replace(/\{([a-z-]+)\}/g, (m, k) => (k in args ? String(args[k]) : m));
}

function money(cents) {
  const v = Number(cents) / 100;
  return v.toLocaleString(state.lang === 'es' ? 'es-CL' : 'en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

async function loadUI(lang) {
  const r = await fetch('/api/ui?lang=' + encodeURIComponent(lang));
  state.ui = await r.json();
  state.lang = lang;
  document.documentElement.lang = lang;
  for (const el of document.querySelectorAll('[data-t]')) el.textContent = T(el.dataset.t);
  for (const b of document.querySelectorAll('[data-lang]')) b.classList.toggle('on', b.dataset.lang === lang);
}

async function post(path, body) {
  const r = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body || {}) });
  let out = {};
  try { out = await r.json(); } catch (e) { out = { error: String(e) }; }
  return out;
}

// ---- cards ------------------------------------------------------------------------------------

const RANKS = 'A23456789TJQK';
function cardHTML(c) {
  if (!c || !c.card || c.hidden) return '<div class="card back" data-card=""></div>';
  const r = RANKS.indexOf(c.card[0]);
  const mark = c.manual ? `<i class="mark">${esc(T('ui.dealt-by-hand'))}</i>` : '';
  return `<div class="card r${r} s-${esc(c.card[1])}" data-card="${esc(c.card)}">${mark}</div>`;
}

// ---- rendering --------------------------------------------------------------------------------

function render() {
  const v = state.view;
  if (!v) return;
  if (v.state !== state.shownState) { // a new step: what was typed for the last one goes
    state.shownState = v.state;
    state.entry = '';
    state.raise = '';
    state.amount = '';
    state.error = '';
  }
  $('#table-name').textContent = T('ui.table', { table: v.table });
  $('#game').textContent = v.game;
  $('#sim').hidden = !v.sim;
  $('#sim').textContent = T('ui.sim');
  const signed = v.signed;
  $('#signin').hidden = !!signed;
  $('#who').hidden = !signed;
  if (signed) {
    $('#dealer').textContent = signed.id;
    $('#sign-out').textContent = T('ui.sign-out');
    $('#idle').textContent = T('ui.idle', { min: Math.ceil((v.idle_in || 0) / 60) });
    if (signed.lang !== state.lang) loadUI(signed.lang).then(render);
  }
  renderShoe(v);
  renderGuide(v);
  renderLayout(v);
  renderPanel(v);
  renderFoot(v);
}

function renderShoe(v) {
  const s = v.shoe || {};
  const el = $('#shoe');
  if (!s.id || s.ended || !s.total) {
    el.querySelector('.out').style.width = '0';
    el.querySelector('.stop').hidden = true;
    el.querySelector('.text').textContent = T('ui.no-shoe');
    return;
  }
  el.querySelector('.out').style.width = (100 * s.out / s.total) + '%';
  const stop = el.querySelector('.stop');
  stop.hidden = !s.cut_behind;
  if (s.cut_behind) stop.style.left = `calc(${100 * (s.total - s.cut_behind) / s.total}% - 3px)`;
  const parts = [T('ui.left', { left: s.left })];
  if (s.cut_behind && !s.cut_reached) parts.push(T('ui.to-stop', { n: Math.max(0, s.left - s.cut_behind) }));
  if (s.cut_reached) parts.push(T('ui.stop-out'));
  el.querySelector('.text').textContent = parts.join(' · ');
}

function renderGuide(v) {
  const g = $('#guide');
  g.classList.toggle('held', v.state === 'held');
  g.classList.toggle('closed', !!v.closed && v.state !== 'held');
  const lines = v.guide.slice(-3);
  g.querySelector('.lines').innerHTML = lines.map((l, i) => `<div class="line${i < lines.length - 1 ? ' prev' : ''}">${esc(l)}</div>`).join('');
}

function renderLayout(v) {
  const el = $('#layout');
  const r = v.round;
  let html = '';
  if (r && r.state === 'dealing' && (!r.hands || !r.hands.length)) {
    // No card yet: the bets on the layout.
    const spots = Object.fromEntries((v.spots || []).map((s) => [s.code, s.text]));
    html = `<div class="felt-bets">${(r.bets || []).map((b) => `<div>${esc(T('ui.box', { seat: b.seat }))} · ${esc(spots[b.spot] || b.spot)} · ${esc(money(b.amount))}</div>`).join('') ||
      esc(T('ui.no-bets'))}</div>`;
  } else if (!r || !r.hands || !r.hands.length) {
    html = `<div class="idle-felt">${esc(v.guide[v.guide.length - 1] || '')}</div>`;
  } else {
    const next = v.need && v.need.kind === 'card' ? v.need.place : (v.need && v.need.kind === 'decision' ? { name: 'box', seat: v.need.seat, hand: v.need.hand } : null);
    const same = (p, q) => q && p.name === q.name && (p.seat || 0) === (q.seat || 0) && (p.hand || 0) === (q.hand || 0);
    html = '<div class="hands">' + r.hands.map((h) => {
      const cls = ['hand', 'h-' + (h.place.seat ? 'box' : h.place.name)];
      if (r.state === 'dealing' && same(h.place, next)) cls.push('next');
      const out = h.outcome && h.outcome !== 'done' ? `<span class="outcome">${esc(h.outcome)}</span>` : '';
      return `<div class="${cls.join(' ')}" data-place="${esc(h.place.name)}${h.place.seat ? ' ' + h.place.seat : ''}${h.place.hand ? '/' + h.place.hand : ''}">
        <div class="head"><span class="label">${esc(h.label)}</span>${out}<span class="total">${esc(h.total || '')}</span></div>
        <div class="cards">${h.cards.map(cardHTML).join('')}</div></div>`;
    }).join('') + '</div>';
  }
  if (v.settle && v.settle.length) {
    html += '<div class="settle" id="settle">' + v.settle.map((s) =>
      `<div class="line ${s.net > 0 ? 'pay' : s.net < 0 ? 'take' : ''}" data-seat="${s.seat}">${esc(localMoney(s.text, s.net))}</div>`).join('') + '</div>';
  }
  el.innerHTML = html;
}

// localMoney writes a settlement line's amount in the dealer's number format.
function localMoney(text, net) {
  const plain = (Math.abs(net) / 100).toFixed(2);
  return text.replace(plain, money(Math.abs(net)));
}

function renderFoot(v) {
  $('#recent').innerHTML = (v.recent || []).slice(-16).map((o) =>
    `<span class="chip ${esc(o.voided ? 'voided' : o.result)}" title="${esc(o.summary)}">${esc(o.voided ? '×' : String(o.result || '').slice(0, 1).toUpperCase())}</span>`).join('');
  const spots = Object.fromEntries((v.spots || []).map((s) => [s.code, s.text]));
  $('#limits').textContent = (v.limits || []).map((l) => `${spots[l.spot] || l.spot} ${money(l.min)}–${money(l.max)}`).join(' · ');
}

// ---- the panel: what the dealer may do now ------------------------------------------------------

function renderPanel(v) {
  const p = $('#panel');
  if (!v.signed) { p.innerHTML = ''; return; }
  if (v.round && v.round.no !== state.seenRound && v.round.state === 'dealing') {
    state.seenRound = v.round.no;
    state.bets = [];
  }
  let html = `<p class="error" id="error" role="alert">${esc(state.error || '')}</p>`;
  switch (v.state) {
    case 'held': html += heldPanel(v); break;
    case 'idle': case 'verified': html += newShoePanel(v); break;
    case 'shuffled': html += numberPanel('ui.cut', T('ui.cut-hint', { min: v.proc.cut_min, max: v.proc.total - v.proc.cut_min }), 'cut', 'ui.do-cut'); break;
    case 'cut': {
      const exact = v.proc.behind_min === v.proc.behind_max;
      if (exact && state.entry === '') state.entry = String(v.proc.behind_min);
      const hint = exact ? T('ui.stop-card-exact', { n: v.proc.behind_min }) : T('ui.stop-card-hint', { min: v.proc.behind_min, max: v.proc.behind_max });
      html += numberPanel('ui.stop-card', hint, 'cutcard', 'ui.place-stop');
      break;
    }
    case 'burning': html += `<p class="hint">${esc(T('ui.wait', { what: T('ui.burning') }))}</p>`; break;
    case 'between-rounds':
      if (v.bank) html += bankPanel(v);
      html += v.closed || (v.bank && v.bank.phase !== 'held') ? '' : betsPanel(v); // only a bank held takes bets
      if (v.shuffler === 'csm') html += `<button data-do="end-shoe">${esc(T('ui.end-shoe'))}</button>`;
      break;
    case 'in-round': html += roundPanel(v); break;
    case 'counting': html += stepPanel('ui.count', v.shuffler === 'sabot' ? 'ui.count-hint' : 'ui.count-hand-hint', 'count'); break;
  }
  if (['idle', 'between-rounds', 'counting'].includes(v.state)) html += tablePanel(v);
  p.innerHTML = html;
}

// newShoePanel: the shuffler reads the cards, or the dealer attests them.
function newShoePanel(v) {
  if (v.shuffler === 'sabot') return stepPanel('ui.new-shoe', 'ui.new-shoe-hint', 'new-shoe');
  const ways = v.shuffler === 'csm' ? [['csm', 'ui.attest-csm']] : [['hand', 'ui.attest-hand'], ['pre-shuffled', 'ui.attest-pre']];
  return `<h2>${esc(T('ui.new-shoe'))}</h2><p class="hint">${esc(T('ui.attest-hint'))}</p>` +
    ways.map(([a, code]) => `<button class="big go" data-do="new-shoe" data-attest="${a}">${esc(T(code))}</button>`).join('');
}

function stepPanel(title, hint, what) {
  return `<h2>${esc(T(title))}</h2><p class="hint">${esc(T(hint))}</p>
    <button class="big go" data-do="${what}">${esc(T(title))}</button>`;
}

function keypad(target) {
  const keys = ['1', '2', '3', '4', '5', '6', '7', '8', '9', 'C', '0', '←'];
  return `<div class="keypad" data-for="${target}">${keys.map((k) => `<button type="button" data-key="${k}">${k === 'C' ? esc(T('ui.clear')) : k}</button>`).join('')}</div>`;
}

function numberPanel(title, hint, what, button) {
  return `<h2>${esc(T(title))}</h2><p class="hint">${esc(hint)}</p>
    <div class="display" id="entry">${esc(state.entry)}</div>${keypad('entry')}
    <button class="big go" data-do="${what}" ${state.entry ? '' : 'disabled'}>${esc(T(button))}</button>`;
}

function limitOf(v, spot) { return (v.limits || []).find((l) => l.spot === spot); }

// amountProblem says why the amount typed is not a bet the table takes, as the dealer types.
function amountProblem(v) {
  if (!state.spot || state.amount === '') return '';
  const cents = Number(state.amount) * 100;
  const l = limitOf(v, state.spot);
  if (cents <= 0) return T('err.bet-amount', { seat: state.seat, spot: spotText(v, state.spot) });
  if (l && (cents < l.min || cents > l.max)) {
    return T('err.bet-limit', { seat: state.seat, spot: spotText(v, state.spot), amount: money(cents), min: money(l.min), max: money(l.max) });
  }
  return '';
}

function spotText(v, code) { const s = (v.spots || []).find((x) => x.code === code); return s ? s.text : code; }

function betsPanel(v) {
  if (!state.spot && v.spots.length) state.spot = v.spots[0].code;
  const seats = Array.from({ length: v.seats }, (_, i) => i + 1);
  const problem = amountProblem(v);
  const total = state.bets.reduce((a, b) => a + b.amount, 0);
  return `<h2>${esc(T('ui.bets'))}</h2>
    <div class="row seats"><span class="hint">${esc(T('ui.boxes'))}</span>${seats.map((s) => `<button data-seat="${s}" class="${s === state.seat ? 'on' : ''}">${s}</button>`).join('')}</div>
    <div class="row spots">${v.spots.map((s) => {
      const l = limitOf(v, s.code);
      const lim = l ? T('ui.limit', { min: money(l.min), max: money(l.max) }) : T('ui.no-limit');
      return `<button data-spot="${esc(s.code)}" class="${s.code === state.spot ? 'on' : ''}">${esc(s.text)}<small>${esc(lim)}</small></button>`;
    }).join('')}</div>
    <p class="error" id="bet-problem">${esc(problem)}</p>
    <div class="betgrid">${keypad('amount')}<div class="side">
      <div class="display ${problem ? 'bad' : ''}" id="amount">${state.amount === '' ? '' : esc(money(Number(state.amount) * 100))}</div>
      <button data-do="add-bet" ${state.amount === '' || problem ? 'disabled' : ''}>${esc(T('ui.add-bet'))}</button>
      <div class="betlist">${state.bets.map((b, i) => `<div class="bet"><span>${esc(T('ui.box', { seat: b.seat }))} · ${esc(spotText(v, b.spot))} · ${esc(money(b.amount))}</span>
        <button class="quiet" data-remove="${i}">${esc(T('ui.remove'))}</button></div>`).join('')}</div>
      <p class="hint">${esc(state.bets.length ? T('ui.total', { amount: money(total) }) : T('ui.no-bets'))}</p>
      <button class="big go" data-do="bets">${esc(T('ui.no-more-bets'))}</button></div></div>`;
}

// bankPanel: the chemin de fer bank between coups, and the actions its phase allows (seed 000).
function bankPanel(v) {
  const b = v.bank;
  return `<h2>${esc(T('ui.bank'))}</h2><p class="hint" id="bank-text">${esc(b.text)}</p>
    <div class="options">${b.actions.map((a) => `<button class="big" data-bank="${esc(a.code)}">${esc(a.text)}</button>`).join('')}</div>`;
}

const SIZED = { raise: true, accept: true, bid: true }; // the bank actions that take an amount

// bankDialog asks the amount of a bank action, and at auction which box bids.
function bankDialog(v, a) {
  const b = v.bank;
  state.bank = { action: a.code, seat: 0, amount: '' };
  let seats = '';
  if (a.code === 'bid') {
    seats = `<div class="row seats"><span class="hint">${esc(T('ui.boxes'))}</span>${Array.from({ length: b.seats }, (_, i) => i + 1).map((s) =>
      `<button data-bank-seat="${s}" ${(b.excluded || []).includes(s) ? 'disabled' : ''}>${s}</button>`).join('')}</div>`;
  }
  modal(`<h1>${esc(a.text)}</h1><p class="hint">${esc(b.text)}</p>${seats}
    <label>${esc(T('ui.bank-amount'))}<div class="display" id="bank-amount"></div></label>${keypad('bank-amount')}
    <p class="error" id="modal-error"></p>
    <div class="actions"><button data-close="1">${esc(T('ui.cancel'))}</button><button class="go" data-do="bank-go">${esc(T('ui.ok'))}</button></div>`);
}

async function bankGo() {
  const x = state.bank;
  if (!x) return;
  const ok = await act({ do: 'table', action: x.action, seat: x.seat, amount: Number(x.amount) * 100 });
  if (ok) { state.bank = null; closeModal(); }
}

function roundPanel(v) {
  const n = v.need;
  if (!n) return '';
  if (n.kind === 'decision') {
    const title = n.hand ? T('ui.decision-hand', { seat: n.seat, hand: n.hand + 1 }) : T('ui.decision', { seat: n.seat });
    const sized = n.options.find((o) => o.max);
    let html = `<h2>${esc(title)}</h2><div class="options">` + n.options.filter((o) => !o.max).map((o) =>
      `<button class="big" data-option="${esc(o.code)}">${esc(o.text)}</button>`).join('') + '</div>';
    if (sized) {
      html += `<p class="hint">${esc(T('ui.raise-to', { min: money(sized.min), max: money(sized.max) }))}</p>
        <div class="display" id="raise">${state.raise ? esc(money(Number(state.raise) * 100)) : ''}</div>${keypad('raise')}
        <button class="big" data-option="${esc(sized.code)}" data-sized="1">${esc(sized.text)}</button>`;
    }
    return html;
  }
  return `<h2>${esc(T('ui.wait-card', { to: n.to || n.text }))}</h2>
    ${v.shoe && v.shoe.cut_behind && !v.shoe.cut_reached ? `<button data-do="cutcard-out">${esc(T('ui.report-stop'))}</button>` : ''}`;
}

function heldPanel(v) {
  const f = v.fault || {};
  let html = `<h2>${esc(T('ui.held'))}</h2>`;
  if (f.manual) html += `<button class="big warn" data-do="picker">${esc(T('ui.enter-card'))}</button>`;
  html += `<button class="big bad" data-do="void-dialog">${esc(T('ui.void'))}</button>`;
  return html;
}

function tablePanel(v) {
  return `<div class="row">${v.closed
    ? `<button data-do="open">${esc(T('ui.open'))}</button>`
    : `<button data-do="close">${esc(T('ui.close'))}</button>`}
    <button data-do="limits-dialog">${esc(T('ui.set-limits'))}</button></div>`;
}

// ---- modals -----------------------------------------------------------------------------------

function modal(html) {
  $('#modal-box').innerHTML = html;
  $('#modal').hidden = false;
}
function closeModal() { $('#modal').hidden = true; $('#modal-box').innerHTML = ''; }

function pickerDialog(v) {
  // The 52 cards, those the shoe may still hold first (in rank then suit order).
  const order = [];
  for (const r of RANKS) for (const s of 'shdc') order.push(r + s);
  const can = order.filter((c) => (v.possible || {})[c] > 0);
  const cannot = order.filter((c) => !((v.possible || {})[c] > 0));
  const btn = (c, ok) => `<button data-pick="${c}" ${ok ? '' : 'disabled'}>${cardHTML({ card: c })}${ok ? '' : `<small>${esc(T('ui.none-left'))}</small>`}</button>`;
  modal(`<h1>${esc(T('ui.enter-card'))}</h1><p class="hint">${esc(T('ui.possible'))}</p>
    <div class="picker">${can.map((c) => btn(c, true)).join('')}${cannot.map((c) => btn(c, false)).join('')}</div>
    <p class="error" id="modal-error"></p>
    <div class="actions"><button data-close="1">${esc(T('ui.cancel'))}</button></div>`);
}

function voidDialog() {
  modal(`<h1>${esc(T('ui.void'))}</h1><p class="hint">${esc(T('ui.void-hint'))}</p>
    <label>${esc(T('ui.void-reason'))}<input id="void-reason" maxlength="200"></label>
    <p class="error" id="modal-error"></p>
    <div class="actions"><button data-close="1">${esc(T('ui.cancel'))}</button><button class="bad" data-do="void">${esc(T('ui.void'))}</button></div>`);
}

function approvalDialog(what) {
  modal(`<h1>${esc(T('ui.approval'))}</h1><p class="hint">${esc(T('ui.approval-hint', { what: T('ui.what.' + what) }))}</p>
    <label>${esc(T('ui.supervisor'))}<input id="sup-id" autocapitalize="off" spellcheck="false"></label>
    <label>${esc(T('ui.pin'))}<input id="sup-pin" class="pin" readonly></label>
    ${keypad('sup-pin')}
    <p class="error" id="modal-error"></p>
    <div class="actions"><button data-close="1">${esc(T('ui.cancel'))}</button><button class="go" data-do="approve">${esc(T('ui.approve'))}</button></div>`);
}

function limitsDialog(v) {
  const rows = v.spots.map((s) => {
    const l = limitOf(v, s.code) || {};
    return `<label>${esc(s.text)}<span class="row"><input data-limit-min="${esc(s.code)}" inputmode="numeric" value="${l.min ? l.min / 100 : ''}">
      <input data-limit-max="${esc(s.code)}" inputmode="numeric" value="${l.max ? l.max / 100 : ''}"></span></label>`;
  }).join('');
  modal(`<h1>${esc(T('ui.set-limits'))}</h1>${rows}<p class="error" id="modal-error"></p>
    <div class="actions"><button data-close="1">${esc(T('ui.cancel'))}</button><button class="go" data-do="limits">${esc(T('ui.ok'))}</button></div>`);
}

// ---- actions ----------------------------------------------------------------------------------

function showError(text) {
  state.error = text || '';
  const m = $('#modal-error');
  if (!$('#modal').hidden && m) { m.textContent = state.error; return; }
  const e = $('#error');
  if (e) e.textContent = state.error;
}

// act sends one action; a refusal that a supervisor's approval would let through asks for it.
async function act(action) {
  const v = state.view;
  action.seq = v.seq;
  const out = await post('/api/act', action);
  if (out.ok) {
    state.error = '';
    return true;
  }
  if (out.approval) {
    state.pending = action;
    approvalDialog(action.do === 'manual' ? 'manual' : action.do);
    return false;
  }
  showError(out.error);
  return false;
}

async function approve() {
  const a = state.pending;
  if (!a) return;
  a.approval = { id: $('#sup-id').value.trim(), pin: $('#sup-pin').value };
  const out = await post('/api/act', Object.assign({}, a, { seq: state.view.seq }));
  if (out.ok) { state.pending = null; state.error = ''; closeModal(); return; }
  delete a.approval;
  showError(out.error);
  if (out.code === 'err.stale' || out.code === 'err.table') { state.pending = null; closeModal(); showError(out.error); }
}

function typeKey(target, key) {
  const el = $('#' + target);
  if (target === 'signin-pin' || target === 'sup-pin') {
    if (key === 'C') el.value = '';
    else if (key === '←') el.value = el.value.slice(0, -1);
    else if (el.value.length < 12) el.value += key;
    el.dataset.len = el.value.length;
    return;
  }
  if (target === 'bank-amount') {
    let s = state.bank.amount;
    if (key === 'C') s = '';
    else if (key === '←') s = s.slice(0, -1);
    else if (s.length < 9) s = (s === '0' ? '' : s) + key;
    state.bank.amount = s;
    el.textContent = s === '' ? '' : money(Number(s) * 100);
    return;
  }
  const field = target === 'entry' ? 'entry' : target === 'raise' ? 'raise' : 'amount';
  let s = state[field];
  if (key === 'C') s = '';
  else if (key === '←') s = s.slice(0, -1);
  else if (s.length < 9) s = (s === '0' ? '' : s) + key;
  state[field] = s;
  render();
}

async function onTap(ev) {
  const b = ev.target.closest('button');
  if (!b || b.disabled) return;
  const v = state.view;
  const d = b.dataset;
  if (d.lang) {
    if (v && v.signed) await post('/api/lang', { lang: d.lang });
    await loadUI(d.lang);
    render();
    return;
  }
  if (d.key) { typeKey(b.parentElement.dataset.for, d.key); return; }
  if (d.close) { state.pending = null; state.bank = null; closeModal(); return; }
  if (d.bank) {
    const a = v.bank.actions.find((x) => x.code === d.bank);
    if (SIZED[d.bank]) bankDialog(v, a);
    else await act({ do: 'table', action: d.bank });
    return;
  }
  if (d.bankSeat) {
    state.bank.seat = Number(d.bankSeat);
    for (const x of document.querySelectorAll('[data-bank-seat]')) x.classList.toggle('on', x === b);
    return;
  }
  if (d.seat) { state.seat = Number(d.seat); render(); return; }
  if (d.spot) { state.spot = d.spot; render(); return; }
  if (d.remove) { state.bets.splice(Number(d.remove), 1); render(); return; }
  if (d.pick) {
    const ok = await act({ do: 'manual', card: d.pick });
    if (ok) closeModal();
    return;
  }
  if (d.option) {
    let decision = d.option;
    if (d.sized) decision += ':' + String(Number(state.raise) * 100);
    if (await act({ do: 'decision', seat: v.need.seat, decision })) state.raise = '';
    return;
  }
  if (b.id === 'sign-out') { await post('/api/sign-out'); return; }
  switch (d.do) {
    case 'add-bet':
      if (!amountProblem(v)) state.bets.push({ seat: state.seat, spot: state.spot, amount: Number(state.amount) * 100 });
      state.amount = '';
      render();
      return;
    case 'bets': if (await act({ do: 'bets', bets: state.bets })) { state.bets = []; } return;
    case 'cut': await act({ do: 'cut', at: Number(state.entry) }); return;
    case 'cutcard': await act({ do: 'cutcard', behind: Number(state.entry) }); return;
    case 'picker': pickerDialog(v); return;
    case 'void-dialog': voidDialog(); return;
    case 'void': {
      const reason = $('#void-reason').value.trim();
      closeModal();
      await act({ do: 'void', reason });
      return;
    }
    case 'limits-dialog': limitsDialog(v); return;
    case 'limits': {
      const ls = [];
      for (const s of v.spots) {
        const lo = $(`[data-limit-min="${s.code}"]`).value, hi = $(`[data-limit-max="${s.code}"]`).value;
        if (lo !== '' || hi !== '') ls.push({ spot: s.code, min: Math.round(Number(lo) * 100), max: Math.round(Number(hi) * 100) });
      }
      closeModal();
      await act({ do: 'limits', limits: ls });
      return;
    }
    case 'approve': await approve(); return;
    case 'bank-go': await bankGo(); return;
    case 'new-shoe': await act(d.attest ? { do: 'new-shoe', attest: d.attest } : { do: 'new-shoe' }); return;
    case 'count': case 'cutcard-out': case 'open': case 'close': case 'end-shoe':
      await act({ do: d.do });
      return;
  }
}

async function signIn(ev) {
  ev.preventDefault();
  const id = $('#signin-id').value.trim();
  const pin = $('#signin-pin').value;
  $('#signin-go').disabled = true;
  const out = await post('/api/sign-in', { id, pin });
  $('#signin-go').disabled = false;
  $('#signin-pin').value = '';
  $('#signin-error').textContent = out.ok ? '' : out.error;
  if (out.ok) reconnect();
}

// ---- the live view ------------------------------------------------------------------------------

let source = null;
function reconnect() {
  if (source) source.close();
  source = new EventSource('/api/stream');
  source.addEventListener('view', (e) => {
    state.view = JSON.parse(e.data);
    state.live = true;
    $('#banner').hidden = true;
    document.body.dataset.state = state.view.state;
    document.body.dataset.seq = state.view.seq;
    render();
  });
  source.addEventListener('beat', () => { state.live = true; $('#banner').hidden = true; });
  source.onerror = () => {
    state.live = false;
    const b = $('#banner');
    b.textContent = T('ui.offline');
    b.hidden = false;
  };
}

document.addEventListener('click', onTap);
$('#signin-form').addEventListener('submit', signIn);
$('#signin .keypad').innerHTML = keypad('signin-pin').replace(/^<div[^>]*>|<\/div>$/g, '');
fetch('/api/view').then((r) => r.json()).then(async (v) => {
  await loadUI(v.signed ? v.signed.lang : (navigator.language || 'en').slice(0, 2) === 'es' ? 'es' : 'en');
  state.view = v;
  render();
  reconnect();
});
