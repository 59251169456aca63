'use strict';
// roads.js draws a baccarat shoe's five roads, the JSON of games/baccarat/roads (the bead
// plate, the big road, big eye boy, small road, cockroach pig, and the prediction), as SVG.
// The surveillance view and the table's scoreboard both use it.
const SabotRoads = (() => {
  const COLOR = { banker: '#d83a3c', player: '#2f74e6', tie: '#1f9d55', red: '#d83a3c', blue: '#2f74e6' };

  // span picks the columns to show: the last ones, at least min and at most max.
  function span(lastCol, min, max) {
    const cols = Math.max(min, lastCol + 1);
    const first = Math.max(0, cols - max);
    return { first, shown: cols - first };
  }

  function grid(shown, rows, cell, stroke) {
    let g = '';
    for (let c = 0; c <= shown; c++) g += `<line x1="${c * cell}" y1="0" x2="${c * cell}" y2="${rows * cell}" stroke="${stroke}"/>`;
    for (let r = 0; r <= rows; r++) g += `<line x1="0" y1="${r * cell}" x2="${shown * cell}" y2="${r * cell}" stroke="${stroke}"/>`;
    return g;
  }

  function svg(w, h, label, g, cls) {
    return `<svg class="${cls || ''}" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}" role="img" aria-label="${label}">${g}</svg>`;
  }

  function last(items) {
    return items.reduce((m, c) => Math.max(m, c.col), 0);
  }

  // pairs draws a hand's pair as a dot: the banker's top left, the player's bottom right.
  function pairs(x, y, d, item, r) {
    let g = '';
    if (item.banker_pair) g += `<circle class="pair-b" cx="${x - d}" cy="${y - d}" r="${r}" fill="${COLOR.banker}" stroke="#fff" stroke-width=".8"/>`;
    if (item.player_pair) g += `<circle class="pair-p" cx="${x + d}" cy="${y + d}" r="${r}" fill="${COLOR.player}" stroke="#fff" stroke-width=".8"/>`;
    return g;
  }

  // bead draws the bead plate. o: cell, min, max (columns), letters {banker, player, tie},
  // label, stroke.
  function bead(roads, o) {
    o = Object.assign({ cell: 17, min: 12, max: 14, letters: { banker: 'B', player: 'P', tie: 'T' }, label: 'bead plate', stroke: '#d9d4c5' }, o);
    const rows = roads.rows || 6, cell = o.cell;
    const beads = roads.bead_plate || [];
    const { first, shown } = span(beads.length ? beads[beads.length - 1].col : 0, o.min, o.max);
    let g = grid(shown, rows, cell, o.stroke);
    for (const b of beads) {
      if (b.col < first) continue;
      const x = (b.col - first) * cell + cell / 2, y = b.row * cell + cell / 2;
      g += `<circle class="bead ${b.result}" cx="${x}" cy="${y}" r="${cell * 0.42}" fill="${COLOR[b.result]}"/>`;
      g += `<text x="${x}" y="${y + cell * 0.21}" font-size="${cell * 0.58}" font-weight="700" text-anchor="middle" fill="#fff">${o.letters[b.result]}</text>`;
      g += pairs(x, y, cell * 0.3, b, cell * 0.13);
    }
    return svg(shown * cell, rows * cell, o.label, g, 'bead-plate');
  }

  // bigRoad draws the big road: hollow rings, a tie's green slash (with its count past one),
  // the pairs' dots. The shoe's first ties, before any win, wait at the first place.
  function bigRoad(roads, o) {
    o = Object.assign({ cell: 13, min: 20, max: 26, label: 'big road', stroke: '#e2ddcf' }, o);
    const rows = roads.rows || 6, cell = o.cell;
    const road = roads.big_road || [];
    const { first, shown } = span(last(road), o.min, o.max);
    let g = grid(shown, rows, cell, o.stroke);
    const tie = (x, y, n) => {
      const d = cell * 0.38;
      let s = `<line class="tie" x1="${x - d}" y1="${y + d}" x2="${x + d}" y2="${y - d}" stroke="${COLOR.tie}" stroke-width="${cell * 0.15}"/>`;
      if (n > 1) s += `<text x="${x}" y="${y + cell * 0.23}" font-size="${cell * 0.54}" text-anchor="middle" fill="#111">${n}</text>`;
      return s;
    };
    if (!road.length && roads.leading_ties) g += tie(cell / 2, cell / 2, roads.leading_ties);
    for (const c of road) {
      if (c.col < first) continue;
      const x = (c.col - first) * cell + cell / 2, y = c.row * cell + cell / 2;
      g += `<circle class="ring ${c.result}" cx="${x}" cy="${y}" r="${cell * 0.35}" fill="none" stroke="${COLOR[c.result]}" stroke-width="${cell * 0.17}"/>`;
      if (c.ties) g += tie(x, y, c.ties);
      g += pairs(x, y, cell * 0.33, c, cell * 0.12);
    }
    return svg(shown * cell, rows * cell, o.label, g, 'big-road');
  }

  // mark draws one derived road mark at (x, y): big eye boy a hollow ring, small road a dot,
  // cockroach pig a slash, as the scoreboards draw them.
  function mark(kind, color, x, y, cell) {
    const c = COLOR[color];
    switch (kind) {
      case 'big_eye_boy':
        return `<circle class="m ${color}" cx="${x}" cy="${y}" r="${cell * 0.33}" fill="none" stroke="${c}" stroke-width="${cell * 0.16}"/>`;
      case 'small_road':
        return `<circle class="m ${color}" cx="${x}" cy="${y}" r="${cell * 0.36}" fill="${c}"/>`;
    }
    const d = cell * 0.34;
    return `<line class="m ${color}" x1="${x - d}" y1="${y + d}" x2="${x + d}" y2="${y - d}" stroke="${c}" stroke-width="${cell * 0.17}" stroke-linecap="round"/>`;
  }

  // derived draws one derived road ("big_eye_boy", "small_road" or "cockroach_pig").
  function derived(roads, kind, o) {
    o = Object.assign({ cell: 8, min: 20, max: 40, label: kind.replace(/_/g, ' '), stroke: '#e2ddcf' }, o);
    const rows = roads.rows || 6, cell = o.cell;
    const ms = roads[kind] || [];
    const { first, shown } = span(last(ms), o.min, o.max);
    let g = grid(shown, rows, cell, o.stroke);
    for (const m of ms) {
      if (m.col < first) continue;
      g += mark(kind, m.color, (m.col - first) * cell + cell / 2, m.row * cell + cell / 2, cell);
    }
    return svg(shown * cell, rows * cell, o.label, g, 'derived ' + kind);
  }

  // next draws what a derived road would mark next ("" draws an empty place).
  function next(kind, color, cell) {
    cell = cell || 14;
    const g = color ? mark(kind, color, cell / 2, cell / 2, cell) : '';
    return svg(cell, cell, (kind.replace(/_/g, ' ') + ' ' + (color || 'none')), g, 'next ' + kind + ' ' + (color || 'none'));
  }

  const KINDS = ['big_eye_boy', 'small_road', 'cockroach_pig'];
  return { COLOR, KINDS, bead, bigRoad, derived, next };
})();
