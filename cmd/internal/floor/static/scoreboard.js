'use strict';
// scoreboard.js is the table's scoreboard (floor.Scoreboard): the five roads, what a banker or a
// player win would add to the derived roads, the last results, the limits and the shoe's count,
// live from /api/stream, in simplified or traditional Chinese, English or Spanish (?lang=zh-Hans,
// zh-Hant, en, es; ?rotate=N turns through the four every N seconds).

const WORDS = {
  'zh-Hans': {
    title: { standard: '百家乐', ez: '免佣百家乐', super6: '超级六百家乐' },
    table: '台', bead: '珠盘路', big: '大路', big_eye_boy: '大眼仔', small_road: '小路', cockroach_pig: '曱甴路',
    ask_banker: '庄问路', ask_player: '闲问路', last: '最近结果', limits: '限红',
    letters: { banker: '庄', player: '闲', tie: '和' },
    spots: { banker: '庄', player: '闲', tie: '和', 'player-pair': '闲对', 'banker-pair': '庄对', 'dragon-7': '龙七', 'panda-8': '熊猫八',
      'lucky-6': '幸运六', 'player-dragon': '闲龙宝', 'banker-dragon': '庄龙宝', 'either-pair': '任意对子', 'perfect-pair': '完美对子' },
    coups: '局数', left: '剩余牌', pairs: '对子', naturals: '例牌', shoe: '牌靴',
    live: '实时', lost: '连接中断', waiting: '等待新牌靴', cut: '本靴最后一局', ended: '本靴结束',
  },
  'zh-Hant': {
    title: { standard: '百家樂', ez: '免佣百家樂', super6: '超級六百家樂' },
    table: '枱', bead: '珠盤路', big: '大路', big_eye_boy: '大眼仔', small_road: '小路', cockroach_pig: '曱甴路',
    ask_banker: '莊問路', ask_player: '閒問路', last: '最近結果', limits: '限紅',
    letters: { banker: '莊', player: '閒', tie: '和' },
    spots: { banker: '莊', player: '閒', tie: '和', 'player-pair': '閒對', 'banker-pair': '莊對', 'dragon-7': '龍七', 'panda-8': '熊貓八',
      'lucky-6': '幸運六', 'player-dragon': '閒龍寶', 'banker-dragon': '莊龍寶', 'either-pair': '任意對子', 'perfect-pair': '完美對子' },
    coups: '局數', left: '剩餘牌', pairs: '對子', naturals: '例牌', shoe: '牌靴',
    live: '即時', lost: '連線中斷', waiting: '等待新牌靴', cut: '本靴最後一局', ended: '本靴結束',
  },
  en: {
    title: { standard: 'Baccarat', ez: 'EZ Baccarat', super6: 'Super 6 Baccarat' },
    table: 'Table', bead: 'Bead plate', big: 'Big road', big_eye_boy: 'Big eye boy', small_road: 'Small road', cockroach_pig: 'Cockroach pig',
    ask_banker: 'If Banker wins', ask_player: 'If Player wins', last: 'Last results', limits: 'Limits',
    letters: { banker: 'B', player: 'P', tie: 'T' },
    spots: { banker: 'Banker', player: 'Player', tie: 'Tie', 'player-pair': 'Player pair', 'banker-pair': 'Banker pair', 'dragon-7': 'Dragon 7',
      'panda-8': 'Panda 8', 'lucky-6': 'Lucky 6', 'player-dragon': 'Player Dragon', 'banker-dragon': 'Banker Dragon', 'either-pair': 'Either pair',
      'perfect-pair': 'Perfect pair' },
    coups: 'Coups', left: 'Cards left', pairs: 'Pairs', naturals: 'Naturals', shoe: 'Shoe',
    live: 'live', lost: 'connection lost', waiting: 'waiting for the shoe', cut: 'last coup of the shoe', ended: 'shoe over',
  },
  es: {
    title: { standard: 'Punto y Banca', ez: 'Bacará EZ', super6: 'Bacará Super 6' },
    table: 'Mesa', bead: 'Tablero', big: 'Camino grande', big_eye_boy: 'Ojo grande', small_road: 'Camino pequeño', cockroach_pig: 'Cucaracha',
    ask_banker: 'Si gana la Banca', ask_player: 'Si gana el Punto', last: 'Últimos resultados', limits: 'Límites',
    letters: { banker: 'B', player: 'P', tie: 'E' },
    spots: { banker: 'Banca', player: 'Punto', tie: 'Empate', 'player-pair': 'Pareja punto', 'banker-pair': 'Pareja banca', 'dragon-7': 'Dragón 7',
      'panda-8': 'Panda 8', 'lucky-6': 'Seis de la suerte', 'player-dragon': 'Bono dragón punto', 'banker-dragon': 'Bono dragón banca',
      'either-pair': 'Cualquier pareja', 'perfect-pair': 'Pareja perfecta' },
    coups: 'Manos', left: 'Cartas restantes', pairs: 'Parejas', naturals: 'Naturales', shoe: 'Zapato',
    live: 'en vivo', lost: 'conexión perdida', waiting: 'esperando el zapato', cut: 'última mano del zapato', ended: 'zapato terminado',
  },
};
const LANGS = Object.keys(WORDS);

const params = new URLSearchParams(location.search);
let lang = LANGS.includes(params.get('lang')) ? params.get('lang') : '';
let board = null;
let online = false;

const $ = (id) => document.getElementById(id);
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

function words() { return WORDS[lang || (board && board.lang) || 'en'] || WORDS.en; }

// money writes cents as the table's units: 2500 is 25, 123450 is 1,234.50.
function money(c, l) {
  const whole = c % 100 === 0;
  return new Intl.NumberFormat(l, { minimumFractionDigits: whole ? 0 : 2, maximumFractionDigits: 2 }).format(c / 100);
}

function render() {
  const w = words();
  const l = lang || (board && board.lang) || 'en';
  document.documentElement.lang = l;
  document.querySelectorAll('[data-t]').forEach((e) => { e.textContent = w[e.dataset.t]; });
  if (!board) return;
  $('table').textContent = `${w.table} ${board.table}`;
  $('title').textContent = w.title[board.paytable] || w.title.standard;
  document.title = `${w.title[board.paytable] || w.title.standard} · ${board.table}`;
  const r = board.roads;
  // As many columns as the box holds square cells of a six-row road: the roads fill the screen.
  const cols = (id, least) => {
    const e = $(id);
    return Math.max(least, Math.floor((e.clientWidth / Math.max(1, e.clientHeight)) * (r.rows || 6)));
  };
  let n = cols('bead', 6);
  $('bead').innerHTML = SabotRoads.bead(r, { cell: 20, min: n, max: n, letters: w.letters, label: w.bead });
  n = cols('big', 12);
  $('big').innerHTML = SabotRoads.bigRoad(r, { cell: 20, min: n, max: n, label: w.big });
  for (const k of SabotRoads.KINDS) {
    n = cols(k, 12);
    $(k).innerHTML = SabotRoads.derived(r, k, { cell: 10, min: n, max: n, label: w[k] });
  }
  const next = r.next || {};
  $('ask').innerHTML = ['banker', 'player'].map((side) => `<div class="side ${side}" data-side="${side}"><h3>${esc(w['ask_' + side])}</h3>
      <div class="marks">${SabotRoads.KINDS.map((k) => SabotRoads.next(k, (next[side] || {})[k], 20)).join('')}</div></div>`).join('');
  $('coup').innerHTML = coupHTML(board.coup, w);
  const c = r.counts || {};
  const cnt = (cls, label, v) => `<div class="n ${cls}"><b>${v}</b><span>${esc(label)}</span></div>`;
  $('count').innerHTML = cnt('banker', w.spots.banker, c.banker || 0) + cnt('player', w.spots.player, c.player || 0) + cnt('tie', w.spots.tie, c.tie || 0)
    + cnt('coups', w.coups, board.shoe.coups) + cnt('left', w.left, board.shoe.left)
    + cnt('pairs', `${w.pairs} · ${w.naturals}`, `${(c.banker_pair || 0) + (c.player_pair || 0)} · ${c.natural || 0}`);
  const last = board.last || [];
  $('last').innerHTML = last.map((b, i) => `<div class="chip ${b.result}${i === last.length - 1 ? ' newest' : ''}" data-result="${b.result}">${esc(w.letters[b.result])}
      <small>${esc(w.letters.player)}${b.player_total} ${esc(w.letters.banker)}${b.banker_total}</small></div>`).join('');
  const lims = (board.limits || []).map((x) => `<div class="lim" data-spot="${esc(x.spot)}"><span>${esc(w.spots[x.spot] || x.spot)}</span><b>${money(x.min, l)} – ${money(x.max, l)}</b></div>`).join('');
  $('limits').innerHTML = lims ? `<div class="lim label"><span>${esc(w.limits)}</span></div>${lims}` : '';
  let st = online ? w.live : w.lost;
  if (!board.shoe.id || board.shoe.ended) st = board.shoe.ended ? w.ended : w.waiting;
  else if (board.shoe.cut) st = w.cut;
  $('status').textContent = `${w.shoe} ${board.shoe.id || '—'} · ${st}`;
  $('status').className = 'status' + (online ? '' : ' off');
  document.body.dataset.version = board.version;
}

// cardHTML draws a card as rank and suit, or its back where the public feed does not show it
// (a squeezed card before its reveal).
function cardHTML(c) {
  if (!c) return '<span class="card back"></span>';
  const rank = c[0] === 'T' ? '10' : c[0];
  const suit = { s: '♠', h: '♥', d: '♦', c: '♣' }[c[1]];
  return `<span class="card${c[1] === 'h' || c[1] === 'd' ? ' red' : ''}" data-card="${esc(c)}">${rank}<i>${suit}</i></span>`;
}

function coupHTML(c, w) {
  if (!c) return '';
  const hand = (side) => {
    const h = c[side] || { cards: [] };
    const won = c.result === side || c.result === 'tie';
    return `<div class="hand ${side}${won && c.result ? ' win' : ''}"><h3>${esc(w.spots[side])}</h3>
      <div class="cards">${(h.cards || []).map(cardHTML).join('')}</div><div class="total">${esc(h.total || '')}</div></div>`;
  };
  return hand('player') + hand('banker');
}

function connect() {
  const es = new EventSource('/api/stream');
  es.addEventListener('board', (ev) => { board = JSON.parse(ev.data); online = true; render(); });
  es.onerror = () => { online = false; render(); };
}

const rotate = parseInt(params.get('rotate') || '0', 10);
if (rotate > 0) {
  let i = Math.max(0, LANGS.indexOf(lang));
  setInterval(() => { i = (i + 1) % LANGS.length; lang = LANGS[i]; render(); }, rotate * 1000);
}
render();
connect();
window.addEventListener('resize', render);
