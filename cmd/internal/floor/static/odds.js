'use strict';
// odds.js shows a baccarat table's live odds (the floor's TableView.odds): every bet's expected
// return for the cards left in the shoe, beside the full shoe's, the bets that favour the player
// first and marked.
function oddsHTML(t) {
  const o = t.odds;
  if (!o) return '';
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
  if (o.note) return `<div class="road-block odds"><span class="cap">Live odds</span><div class="odds-note">${esc(o.note)}</div></div>`;
  const bets = (o.bets || []).slice().sort((a, b) => (b.player ? 1 : 0) - (a.player ? 1 : 0));
  const rows = bets.map((b) => {
    const drift = parseFloat(b.ev) - parseFloat(b.full);
    const arrow = Math.abs(drift) < 0.00005 ? '' : drift > 0 ? '▲' : '▼';
    return `<tr class="${b.player ? 'player-edge' : ''}" data-spot="${esc(b.spot)}"><td>${esc(b.spot)}</td><td class="num ev">${esc(b.ev)}%</td><td class="num full">${esc(b.full)}%</td><td class="drift">${arrow}</td></tr>`;
  }).join('');
  const unknown = o.unknown ? `<span class="odds-warn">${o.unknown} card(s) unidentified: approximate</span>` : '';
  return `<div class="road-block odds"><span class="cap">Live odds · coup ${o.coups + 1} · ${o.left} cards · ${esc(o.paytable)} · heavy side bet ≥ ${o.heavy_side_bet}% of the main bet</span>${unknown}
    <table class="odds-table"><thead><tr><th>bet</th><th>now</th><th>full shoe</th><th></th></tr></thead><tbody>${rows}</tbody></table></div>`;
}
