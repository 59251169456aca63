package cv

import (
	"fmt"
	"math"
	"strings"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/vision"
)

// A deck whose index is printed at one end only (a rank glyph at one end, a bare suit symbol at
// the other: oxygen) may be calibrated from whichever end each card passed the reader: some
// cards show their rank end, others their suit end. Such a pass is "mixed". No window then tells
// every rank from every other over the 52 calibration frames (model.indexGood is false), and a
// card's face is known at one end only: the end it was calibrated at. Its other end may look
// like another card's calibrated end (a seven's odd pip, a court figure drawn once), so the face
// alone never tells a card whose other end may be in view.
//
// What the pass does teach is each rank's glyph (from the cards seen at their rank end) and each
// suit's symbol (from the cards seen at their suit end). split holds those: the end each
// calibration card shows, the windows and class templates that read the corner's glyph. The
// corner then tells the end in view and which cards it may be; each of those is known at that
// end as calibrated or, calibrated at the other end and the card's length measured, turned end
// for end over the middle of the card that both ends show (see splitShoe, splitTable).
type split struct {
	// end is each calibration card's end: endRank (its corner shows the rank), endSuit, or
	// endUnknown (either: a shoe frame weighs both its views, and it is a rival at both).
	end [52]int8
	// unlearned has a bit for each rank no calibration card showed at its rank end: no glyph
	// rules it out.
	unlearned uint32
	// rankWin (index patch pixels) tells the ranks apart among the rank-end cards, symWin the
	// suits among the suit-end cards.
	rankWin, symWin rect
	// glyph holds the corner's classes: the 13 ranks' glyphs (from the rank-end cards) then
	// the 4 suits' symbols (from the suit-end cards), each as the mean of its cards' index
	// patches in every blur variant (nil for a class with no card). A rank is read in rankWin
	// (brightness) against every class, a symbol in symWin (colour) against every class: a
	// frame's corner shows one glyph, and the end it is seen at follows from which.
	glyph [suitVariants][17][][]float32
	// rankStats and symStats are the classes' sums over rankWin and symWin; rankSim and symSim
	// how alike two classes are there (see newSplit).
	rankStats, symStats [suitVariants][17]winStats
	rankSim, symSim     [17][17]float64
	// count is how many calibration cards each class has.
	count [17]int
}

const (
	endRank    = 0
	endSuit    = 1
	endUnknown = 2 // a corner like neither its rank-mates' nor its suit-mates' plainly
)

// classOf is the glyph class card i shows at end e (see split.glyph).
func classOf(i int, e int8) int {
	c := card.FromIndex(i)
	if e == endSuit {
		return symClass(int(c.Suit()))
	}
	return int(c.Rank()) - 1
}

// symClass is the class index of suit s's symbol (see split.glyph).
func symClass(s int) int { return 13 + s }

// splitAff is how alike (brightness correlation over the index corner) two calibration cards'
// corners must be to count as showing the same glyph; minMixed is the least number of cards
// seen at each end for a calibration pass to count as mixed.
const (
	splitAff = 0.9
	minMixed = 8
)

// calibratedEnds tells, for a deck whose index does not tell every rank, the end each
// calibration card shows, from the cards' corner similarities (model.cornerSim): a card seen at
// its suit end shares its corner (the suit symbol) with cards of its suit and any rank; at its
// rank end, with cards of its rank and any suit. It returns the ends and how many cards show
// each. A card like neither is taken at its rank end here; newSplit checks every card against
// the glyphs learned.
func (m *model) calibratedEnds() (end [52]int8, nRank, nSuit int) {
	cs := m.cornerSim
	for i := 0; i < 52; i++ {
		ci := card.FromIndex(i)
		rankAff, suitAff := -2.0, -2.0
		for j := 0; j < 52; j++ {
			if j == i {
				continue
			}
			cj := card.FromIndex(j)
			switch {
			case cj.Rank() == ci.Rank():
				rankAff = max(rankAff, cs[i][j])
			case cj.Suit() == ci.Suit():
				suitAff = max(suitAff, cs[i][j])
			}
		}
		if suitAff >= splitAff && suitAff > rankAff {
			end[i] = endSuit
			nSuit++
		} else {
			nRank++
		}
	}
	return end, nRank, nSuit
}

// newSplit learns the glyphs of a mixed calibration pass (see split). It returns nil when they
// do not read plainly: the rank end's glyphs must tell most ranks apart, the suit end's every
// suit. No calibration card may then read plainly, from its own corner, as a glyph other than
// the one it was taken for (a suit's symbol taken for a rank's glyph): such a card is set
// endUnknown and the glyphs learned again without it.
func (m *model) newSplit(end [52]int8) *split {
	for pass := 0; pass < 8; pass++ {
		sp := m.learnSplit(end)
		if sp == nil {
			return nil
		}
		again := false
		for i := 0; i < 52; i++ {
			if end[i] == endUnknown {
				continue
			}
			c := card.FromIndex(i)
			k := int(c.Rank()) - 1
			if end[i] == endSuit {
				k = symClass(int(c.Suit()))
			}
			// A corner that reads plainly as a glyph of the other end, or as another glyph of
			// this end only, was taken at the wrong end (a glyph too faint to read plainly
			// from its own corner is kept: what it shows is what it was taken for).
			sc := m.scoreSplitWith(sp, &m.idx[i], 0, 0)
			if e, set, ok := sp.read(&sc); ok && (e != end[i] || set&(1<<k) == 0) {
				end[i], again = endUnknown, true
			}
		}
		if again {
			continue
		}
		// A glyph learned from one card alone always reads as that card's own: such a card
		// is read against the glyphs learned without it, and one that then reads plainly as
		// a glyph of the other end was taken at the wrong end (a pass at either end showed
		// the 8 of diamonds at its suit end, the only 8 taken at its rank end, and every
		// diamond's corner read as an 8).
		for i := 0; i < 52; i++ {
			if end[i] == endUnknown || sp.count[classOf(i, end[i])] != 1 {
				continue
			}
			without := end
			without[i] = endUnknown
			if sp1 := m.learnSplit(without); sp1 != nil {
				sc := m.scoreSplitWith(sp1, &m.idx[i], 0, 0)
				if e, _, ok := sp1.read(&sc); ok && e != end[i] {
					end[i], again = endUnknown, true
				}
			}
		}
		if !again {
			return sp
		}
	}
	return nil
}

// learnSplit is one pass of newSplit: the glyphs of the cards taken at each end.
func (m *model) learnSplit(end [52]int8) *split {
	sp := &split{end: end}
	cls := make([]int, 52)
	for i := 0; i < 52; i++ {
		c := card.FromIndex(i)
		switch end[i] {
		case endSuit:
			cls[i] = symClass(int(c.Suit()))
		case endRank:
			cls[i] = int(c.Rank()) - 1
		default:
			cls[i] = -1
			continue
		}
		sp.count[cls[i]]++
	}
	for r := 0; r < 13; r++ {
		if sp.count[r] == 0 {
			sp.unlearned |= 1 << r
		}
	}
	nr, ns := 0, 0
	for k, n := range sp.count {
		switch {
		case n == 0:
		case k < 13:
			nr++
		default:
			ns++
		}
	}
	if nr < 10 || ns < 4 {
		return nil
	}
	pw, ph := m.idx[0].w, m.idx[0].h
	var rankF, symF []*feat
	var rankC, symC []int
	for i := 0; i < 52; i++ {
		switch end[i] {
		case endRank:
			rankF = append(rankF, &m.idx[i])
			rankC = append(rankC, cls[i])
		case endSuit:
			symF = append(symF, &m.idx[i])
			symC = append(symC, cls[i]-13)
		}
	}
	var sep float64
	sp.rankWin, sep = classWindow(rankF, rankC, 13, bright, rect{0, 0, pw, ph}, 2, pw/8)
	if sep < MinIndexSeparation {
		return nil
	}
	sp.symWin, sep = classWindow(symF, symC, 4, colour, rect{0, 0, pw, ph}, 2, pw/10)
	if sep < MinSuitSeparation {
		return nil
	}
	for v := range sp.glyph {
		for k := range sp.glyph[v] {
			if sp.count[k] == 0 {
				continue
			}
			t := make([][]float32, 4)
			for c := range t {
				t[c] = make([]float32, pw*ph)
			}
			for i := 0; i < 52; i++ {
				if cls[i] != k {
					continue
				}
				for c := range t {
					for p, x := range m.idxV[v][i].c[c] {
						t[c][p] += x / float32(sp.count[k])
					}
				}
			}
			sp.glyph[v][k] = t
			sp.rankStats[v][k] = planeStats(t, pw, bright, sp.rankWin)
			sp.symStats[v][k] = planeStats(t, pw, colour, sp.symWin)
		}
	}
	tf := func(planes [][]float32) *feat {
		f := &feat{w: pw, h: ph, valid: ph}
		copy(f.c[:], planes)
		return f
	}
	// How alike two classes are, under the freedom a frame is read with: the best correlation
	// of one's mean with the other's over the shifts and blur variants scoreSplit tries (at no
	// shift, two small symbols look less alike than a frame finds them).
	for a := range sp.glyph[0] {
		ta := sp.glyph[0][a]
		if ta == nil {
			continue
		}
		fa := tf(ta)
		for b := range sp.glyph[0] {
			if a == b {
				sp.rankSim[a][b], sp.symSim[a][b] = 1, 1
				continue
			}
			if sp.glyph[0][b] == nil {
				continue
			}
			sp.rankSim[a][b], sp.symSim[a][b] = -1, -1
			for v := range sp.glyph {
				tb := sp.glyph[v][b]
				for dy := -splitShift; dy <= splitShift; dy++ {
					for dx := -splitShift; dx <= splitShift; dx++ {
						if shiftInside(sp.rankWin, dx, dy, pw, ph) {
							sp.rankSim[a][b] = max(sp.rankSim[a][b], corrOf(statsAt(fa, bright, sp.rankWin, dx, dy), sp.rankStats[v][b], dotAt(fa, tb, pw, bright, sp.rankWin, dx, dy)))
						}
						if shiftInside(sp.symWin, dx, dy, pw, ph) {
							sp.symSim[a][b] = max(sp.symSim[a][b], corrOf(statsAt(fa, colour, sp.symWin, dx, dy), sp.symStats[v][b], dotAt(fa, tb, pw, colour, sp.symWin, dx, dy)))
						}
					}
				}
			}
		}
	}
	// A pair is as alike as its more alike direction (the windows are shifted over one side).
	for a := range sp.rankSim {
		for b := 0; b < a; b++ {
			sp.rankSim[a][b] = max(sp.rankSim[a][b], sp.rankSim[b][a])
			sp.rankSim[b][a] = sp.rankSim[a][b]
			sp.symSim[a][b] = max(sp.symSim[a][b], sp.symSim[b][a])
			sp.symSim[b][a] = sp.symSim[a][b]
		}
	}
	return sp
}

// classWindow finds the rectangle within area (corners on a grid of step pixels, sides at least
// minSide) in which the classes' mean planes differ most, for their worst pair, against the
// variation within each class (see findWindows), less pixelCost a pixel. It returns the window
// and the worst pair's separation there. cls gives each feature's class (0…n-1); a class with no
// feature takes no part.
func classWindow(fs []*feat, cls []int, n, planes int, area rect, step, minSide int) (rect, float64) {
	w, h := fs[0].w, area.y1
	for _, f := range fs {
		h = min(h, f.valid)
	}
	np := w * h
	c0, c1 := planeRange(planes)
	k := c1 - c0
	count := make([]int, n)
	for _, c := range cls {
		count[c]++
	}
	means := make([][]float64, n*k)
	for i := range means {
		means[i] = make([]float64, np)
	}
	for i, f := range fs {
		for c := c0; c < c1; c++ {
			mp := means[cls[i]*k+c-c0]
			for p := 0; p < np; p++ {
				mp[p] += float64(f.c[c][p]) / float64(count[cls[i]])
			}
		}
	}
	noise := make([]float64, np)
	groups := 0
	for c := range count {
		if count[c] > 1 {
			groups++
		}
	}
	for i, f := range fs {
		if count[cls[i]] < 2 {
			continue
		}
		for c := c0; c < c1; c++ {
			mp := means[cls[i]*k+c-c0]
			for p := 0; p < np; p++ {
				d := float64(f.c[c][p]) - mp[p]
				noise[p] += d * d / float64(count[cls[i]]) / float64(max(groups, 1))
			}
		}
	}
	for p := range noise {
		noise[p] += float64(k) * noiseFloor
	}
	pairs := pairIntegrals(means, noise, n, k, w, h, func(c int) bool { return count[c] > 0 })
	if len(pairs) == 0 {
		return rect{}, 0
	}
	worst := func(r rect) float64 {
		s := math.Inf(1)
		for i := range pairs {
			s = math.Min(s, pairs[i].sum(r))
		}
		return s
	}
	var best rect
	bestScore := math.Inf(-1)
	for x0 := area.x0; x0 < area.x1; x0 += step {
		for x1 := x0 + minSide; x1 <= area.x1; x1 += step {
			for y0 := area.y0; y0 < h; y0 += step {
				for y1 := y0 + minSide; y1 <= h; y1 += step {
					r := rect{x0, y0, x1, y1}
					if s := worst(r) - pixelCost*float64(r.area()); s > bestScore {
						best, bestScore = r, s
					}
				}
			}
		}
	}
	return best, worst(best)
}

// splitScores are a frame's correlations with a split deck's classes (see split), each the best
// over small shifts and the blur variants: the rank window and the symbol window with every
// glyph class (-2 for a class with no card).
type splitScores struct {
	rank, sym [17]float64
}

// splitShift is how far (index patch pixels) the split's windows are searched about the index's
// alignment (which is on all 52 cards' mean, of both ends).
const splitShift = 2

// scoreSplit correlates a frame's index patch, aligned at (bx, by), with the split's classes.
func (m *model) scoreSplit(patch *feat, bx, by int) splitScores {
	return m.scoreSplitWith(m.split, patch, bx, by)
}

// scoreSplitWith is scoreSplit with the classes of sp.
// Each class finds its shift on its most blurred variant (whose correlation varies smoothly):
// every other pixel within splitShift, then around the best; every variant is read there.
func (m *model) scoreSplitWith(sp *split, patch *feat, bx, by int) splitScores {
	var s splitScores
	for i := range s.rank {
		s.rank[i], s.sym[i] = -2, -2
	}
	const coarse = suitVariants - 1
	one := func(win rect, planes int, stats *[suitVariants][17]winStats, out *[17]float64) {
		// The frame's sums at each shift tried (within splitShift+1 of the alignment).
		const span = 2*splitShift + 3
		var cache [span][span]winStats
		var have [span][span]bool
		at := func(v, k, dx, dy int) float64 {
			if !shiftInside(win, dx, dy, patch.w, patch.h) {
				return -2
			}
			i, j := dy-by+splitShift+1, dx-bx+splitShift+1
			if !have[i][j] {
				cache[i][j], have[i][j] = statsAt(patch, planes, win, dx, dy), true
			}
			return corrOf(cache[i][j], stats[v][k], dotAt(patch, sp.glyph[v][k], patch.w, planes, win, dx, dy))
		}
		for k := range sp.glyph[0] {
			if sp.glyph[0][k] == nil {
				continue
			}
			best, sx, sy := -2.0, bx, by
			for dy := by - splitShift; dy <= by+splitShift; dy += 2 {
				for dx := bx - splitShift; dx <= bx+splitShift; dx += 2 {
					if c := at(coarse, k, dx, dy); c > best {
						best, sx, sy = c, dx, dy
					}
				}
			}
			cx, cy := sx, sy
			for dy := cy - 1; dy <= cy+1; dy++ {
				for dx := cx - 1; dx <= cx+1; dx++ {
					if dx == cx && dy == cy {
						continue
					}
					if c := at(coarse, k, dx, dy); c > best {
						best, sx, sy = c, dx, dy
					}
				}
			}
			for v := 0; v < coarse; v++ {
				best = max(best, at(v, k, sx, sy))
			}
			out[k] = best
		}
	}
	one(sp.rankWin, bright, &sp.rankStats, &s.rank)
	one(sp.symWin, colour, &sp.symStats, &s.sym)
	return s
}

// read says which end of the card the corner shows, and which glyphs of that end it may be
// (a bit per class, see split.glyph): the best glyph, and every glyph of its end not plainly
// behind it. The end must be plain: every glyph of the other end plainly behind. ok is false
// when the corner shows neither end plainly.
func (sp *split) read(sc *splitScores) (end int8, set uint32, ok bool) {
	try := func(v *[17]float64, sim *[17][17]float64, lo, hi int, least, margin, firm, firmMargin float64) (uint32, bool) {
		b := lo
		for k := lo; k < hi; k++ {
			if v[k] > v[b] {
				b = k
			}
		}
		if v[b] < least {
			return 0, false
		}
		behind := func(k int) bool {
			l := relLead(v[b], v[k], sim[b][k])
			return l >= margin || v[b] >= firm && l >= firmMargin
		}
		var set uint32
		for k := range v {
			switch {
			case v[k] <= -2 || k == b:
			case k < lo || k >= hi:
				if !behind(k) {
					return 0, false
				}
			case !behind(k):
				set |= 1 << k
			}
		}
		return set | 1<<b, true
	}
	if set, ok := try(&sc.rank, &sp.rankSim, 0, 13, rankMin, rankMargin, 2, 0); ok {
		return endRank, set, true
	}
	if set, ok := try(&sc.sym, &sp.symSim, 13, 17, suitMin, suitMargin, suitFirm, suitFirmMargin); ok {
		return endSuit, set, true
	}
	return 0, 0, false
}

// setName names the glyphs of a set (see split.read): "rank 9 or T", "suit h or d".
func setName(end int8, set uint32) string {
	var names []string
	for k := 0; k < 17; k++ {
		if set&(1<<k) == 0 {
			continue
		}
		if k < 13 {
			names = append(names, card.Rank(k+1).String())
		} else {
			names = append(names, card.Suit(k-13).String())
		}
	}
	what := "rank "
	if end == endSuit {
		what = "suit "
	}
	return what + strings.Join(names, " or ")
}

// inSet says whether card q has a glyph of the set at that end.
func inSet(q int, end int8, set uint32) bool {
	c := card.FromIndex(q)
	if end == endRank {
		return set&(1<<(int(c.Rank())-1)) != 0
	}
	return set&(1<<symClass(int(c.Suit()))) != 0
}

// A card's view at the end a frame shows (see splitShoe): its calibrated band as is, when it was
// calibrated at that end, or turned end for end at the card's length, when it was calibrated
// at the other. A turned view knows only the rows both ends show: with the window showing 72%
// of oxygen's card, the middle of the card (its rows 50 to 128 of 178), which holds the pips
// (or the figure) and no index. Two views are compared only over the rows both know.
type sideView struct {
	q      int
	turned bool
}

func (v sideView) String() string {
	if v.turned {
		return card.FromIndex(v.q).String() + " (its other end)"
	}
	return card.FromIndex(v.q).String()
}

// cardFeat is card q's template at the resolution of a frame feature w wide (fine or coarse).
func (m *model) cardFeat(q, w int) *feat {
	if w == m.cards[q].coarse.w {
		return &m.cards[q].coarse
	}
	return &m.cards[q].fine
}

// viewRows are the frame rows [y0, y1) view v knows, within the frame f's, at card length l (in
// f's pixels: the frame's fine or coarse features).
func (m *model) viewRows(f *feat, v sideView, l int) (y0, y1 int) {
	t := m.cardFeat(v.q, f.w)
	y0, y1 = max(f.top, t.top), min(f.valid, t.valid)
	if v.turned {
		// Frame row y shows template row l-1-y.
		y0, y1 = max(f.top, l-t.valid), min(f.valid, l-t.top)
	}
	return y0, max(y0, y1)
}

// viewScore correlates the frame f with view v over the frame rows [y0, y1) (which v must know).
func (m *model) viewScore(f *feat, v sideView, l, y0, y1 int) float64 {
	t := m.cardFeat(v.q, f.w)
	if v.turned {
		return nccRot(t, f, rect{0, y0, f.w, y1}, l)
	}
	return nccRows(f, t, y0, y1)
}

// viewSim is how alike two views are over the frame rows [y0, y1) (which both must know), a
// laid at card length la and b at lb.
func (m *model) viewSim(a sideView, la int, b sideView, lb, y0, y1 int) float64 {
	ta, tb := &m.cards[a.q].fine, &m.cards[b.q].fine
	switch {
	case !a.turned && !b.turned:
		return nccRows(ta, tb, y0, y1)
	case a.turned && b.turned:
		// Frame rows [y0, y1) are a's rows [la-y1, la-y0) and b's [lb-y1, lb-y0), both
		// turned alike.
		return nccRowsShift(ta, tb, la-y1, la-y0, lb-la)
	case a.turned:
		return nccRot(ta, tb, rect{0, y0, tb.w, y1}, la)
	default:
		return nccRot(tb, ta, rect{0, y0, ta.w, y1}, lb)
	}
}

// turnLength is the card length (fine band pixels) at which the turned views are laid over a
// frame: within lengthSlack of the calibrated length, the one at which the turned view that
// matches best at the calibrated length matches best (the frame's registration sets the card's
// scale to a pixel or two).
func (m *model) turnLength(f *feat, views []sideView) int {
	L := 2 * m.length
	bv, best := -1, -2.0
	for k, v := range views {
		if !v.turned {
			continue
		}
		if y0, y1 := m.viewRows(f, v, L); y1-y0 >= splitMinRows {
			if s := m.viewScore(f, v, L, y0, y1); s > best {
				bv, best = k, s
			}
		}
	}
	if bv < 0 {
		return L
	}
	bl := L
	for l := L - lengthSlack; l <= L+lengthSlack; l++ {
		if y0, y1 := m.viewRows(f, views[bv], l); l != L && y1-y0 >= splitMinRows {
			if s := m.viewScore(f, views[bv], l, y0, y1); s > best {
				best, bl = s, l
			}
		}
	}
	return bl
}

// gapOver is how much better the card's view w must match than a rival's v: splitGap, and
// splitTurnedBias more when the card's view is as calibrated and the rival's turned.
func gapOver(w, v sideView) float64 {
	if v.turned && !w.turned {
		return splitGap + splitTurnedBias
	}
	return splitGap
}

// rowScores keeps a few scores by the rows they were measured over, without allocating (a
// frame's card view is compared over a handful of row ranges); past its size it measures anew.
type rowScores struct {
	n    int
	rows [24][2]int
	v    [24]float64
}

// get is the score over rows [y0, y1), measured by score the first time.
func (c *rowScores) get(y0, y1 int, score func() float64) float64 {
	for i := 0; i < c.n; i++ {
		if c.rows[i] == [2]int{y0, y1} {
			return c.v[i]
		}
	}
	v := score()
	if c.n < len(c.v) {
		c.rows[c.n], c.v[c.n] = [2]int{y0, y1}, v
		c.n++
	}
	return v
}

// vetoCoarse: a rival whose half-resolution score comes this near the card's is compared in
// full (see splitShoe).
const vetoCoarse = 0.1

// alikeAnyLength says whether view v, at any length it may have (turned, within rivalSlack of
// the calibrated length; as calibrated, at l), is more than splitAlike alike the card's view w (laid at l)
// over at least splitMinRows of the rows [wy0, wy1) both know.
func (m *model) alikeAnyLength(f *feat, w sideView, l int, v sideView, wy0, wy1 int) bool {
	lo, hi := l, l
	if v.turned {
		lo, hi = 2*m.length-rivalSlack, 2*m.length+rivalSlack
	}
	for lv := lo; lv <= hi; lv++ {
		vy0, vy1 := m.viewRows(f, v, lv)
		y0, y1 := max(wy0, vy0), min(wy1, vy1)
		if y1-y0 >= splitMinRows && m.viewSim(w, l, v, lv, y0, y1) > splitAlike {
			return true
		}
	}
	return false
}

// bestCoarseLength is the card length (coarse band pixels, within [lo, hi]) at which the turned
// view v, laid over the frame's coarse features fc, matches best over the rows it shares with
// the view w laid at lw; 0 when they share too few rows at every length.
func (m *model) bestCoarseLength(fc *feat, w sideView, lw int, v sideView, lo, hi int) int {
	wy0, wy1 := m.viewRows(fc, w, lw)
	best, bl := -3.0, 0
	for lv := lo; lv <= hi; lv++ {
		vy0, vy1 := m.viewRows(fc, v, lv)
		y0, y1 := max(wy0, vy0), min(wy1, vy1)
		if y1-y0 < splitMinRows/2 {
			continue
		}
		if s := m.viewScore(fc, v, lv, y0, y1); s > best {
			best, bl = s, lv
		}
	}
	return bl
}

// lengthSlack is how far (fine band pixels) the card length is searched about the calibrated
// for the card's own view, rivalSlack for a rival's: a length a few pixels off (a frame whose
// scale the registration misjudged, a length measured short) misaligns the true card's turned
// view, and a rival must be given every chance to come near (with oxygen's length set 4 to 6
// pixels off, 2 to 14 cards of a pass were read wrong with the rivals held to 2 pixels; none
// with 6, see TestMixedLengthOff). A rival's length is found at half resolution within
// rivalSlack, then in full within lengthSlack of it (see splitShoe).
const lengthSlack, rivalSlack = 2, 6

// Acceptance for a mixed calibration (see split).
const (
	// splitFaceMin is the least correlation of a shoe frame's face with the card's calibrated
	// view, splitTableFaceMin a table frame's, splitTurnedMin a shoe frame's with the card's
	// turned view (or with its calibrated view over the rows a turned rival knows).
	splitFaceMin, splitTableFaceMin, splitTurnedMin = 0.95, 0.9, 0.9
	// splitLead is the least relative lead (see relLead) of the card's face over every other
	// candidate's; splitGap the least plain difference (two cards whose views differ by a pip
	// the frame shows only in part differ by little, however alike they are).
	splitLead, splitGap = 0.25, 0.02
	// splitAlike: two views of which one is turned, more alike than this over the rows they
	// both know, are not told apart by the face. Their calibration frames were taken at two
	// ends, under two lights: how alike two such views of the same card would be is not known,
	// and the jacks of two suits, seen at the end without index, differ by their small suit
	// symbol alone (over oxygen's passes at either end, views of two cards that differ so were
	// 0.93 to 0.97 alike; 4 cards were read wrong at 0.95).
	splitAlike = 0.92
	// splitTurnedBias: a view turned end for end matches a frame of its card less well than a
	// view as calibrated matches a frame of its own (it is made of the calibration frame's far
	// rows, and laid at a length known to a pixel). A 7 of diamonds whose corner read as an 8,
	// its turned view 0.952, was read as the 8 of diamonds at 0.975 (a pass at either end
	// rendered with seed 32, not among those the rules were made on).
	splitTurnedBias = 0.03
	// splitMinRows is the least number of rows two views must both know to be compared.
	splitMinRows = 24
	// splitColourApart is the least colour difference (see chromaDist) at which a card of the
	// other colour is ruled out by its colour (oxygen's red and black pip cards differ by 0.2 to
	// 0.4, its court cards by less, and are not ruled out so; a card's frames stay within 0.1
	// of its calibrated colour; cards printed on white differ by a few hundredths).
	splitColourApart = 0.2
)

// splitShoe reads a shoe frame of a mixed calibration. The corner gives the end of the card in
// view and the glyphs it may show (a rank at one end, a suit at the other); the candidates are
// the cards of those glyphs and the frame's colour. Each is seen at that end as calibrated, or
// (its calibration showing the other end, and the card's length known) turned end for end, over
// the middle of the card both ends show. The card must win a duel with every other candidate
// over the rows both views know: match plainly, lead, and (a turned view being one of the two)
// differ from the rival more than calibration frames taken at two ends may differ by chance.
// No other card, at either end and at any length it may have, may then come as near over the
// rows it shares with the card, nor look as alike as two candidates may not, nor fail to share
// enough rows to be weighed: a glyph may be misread, and a calibration card taken at the wrong
// end.
func (r *Recognizer) splitShoe(a *analysis) vision.Result {
	m := r.m
	sp := m.split
	end, set, ok := sp.read(a.split)
	if !ok {
		return vision.Rejected("the corner shows neither a rank nor a suit plainly", 0)
	}
	f := &a.frame.fine
	turn := m.length > 0
	var views []sideView
	for q := 0; q < 52; q++ {
		// A rank no calibration card showed at its rank end has no glyph to be ruled out by.
		// (At the suit end the corner reads the suit, learned or not the rank.)
		unlearned := end == endRank && sp.unlearned&(1<<(int(card.FromIndex(q).Rank())-1)) != 0
		if !inSet(q, end, set) && !unlearned || chromaDist(a.frame.chroma, m.cards[q].chroma) > splitColourApart {
			continue
		}
		if sp.end[q] != end && !turn {
			return vision.Rejected(fmt.Sprintf("the corner shows %s; %s, calibrated at its other end, may be the card (the card's length is not known)", setName(end, set), card.FromIndex(q)), 0)
		}
		switch sp.end[q] {
		case end:
			views = append(views, sideView{q, false})
		case endUnknown:
			views = append(views, sideView{q, false}, sideView{q, true})
		default:
			views = append(views, sideView{q, true})
		}
	}
	if len(views) == 0 {
		return vision.Rejected(fmt.Sprintf("the corner shows %s, no card of its colour", setName(end, set)), 0)
	}
	l := 2 * m.length
	if turn {
		l = m.turnLength(f, views)
	}
	// The challenger: the view that matches best over the rows it knows.
	best, bs := -1, -2.0
	for k, v := range views {
		if y0, y1 := m.viewRows(f, v, l); y1-y0 >= splitMinRows {
			if s := m.viewScore(f, v, l, y0, y1); s > bs {
				best, bs = k, s
			}
		}
	}
	if best < 0 {
		return vision.Rejected(fmt.Sprintf("the corner shows %s; too little of the card is in view", setName(end, set)), 0)
	}
	w := views[best]
	c := card.FromIndex(w.q)
	// rivalAt lays a rival's view v over the frame at the lengths it may have (as calibrated,
	// at l; turned, within lengthSlack of the length within rivalSlack of the calibrated one
	// at which it matches best at half resolution) and calls at with the rows it shares with
	// the card's view w there, the frame's score with each, and the length; it returns false
	// when they share too few rows at every length.
	wy0, wy1 := m.viewRows(f, w, l)
	fc := &a.frame.coarse
	lc := (l + 1) / 2
	var swAt, swcAt rowScores // the card's scores, full and half resolution, by the rows compared
	rivalAt := func(v sideView, at func(y0, y1 int, sw, sv float64, lv int)) bool {
		lo, hi := l, l
		if v.turned {
			// The rival's length: at half resolution within rivalSlack, then in full
			// within lengthSlack of the best found there.
			lo, hi = 2*m.length-rivalSlack, 2*m.length+rivalSlack
			if bc := m.bestCoarseLength(fc, w, lc, v, m.length-(rivalSlack+1)/2, m.length+(rivalSlack+1)/2); bc > 0 {
				lo, hi = max(lo, 2*bc-lengthSlack), min(hi, 2*bc+lengthSlack)
			}
		}
		shared := false
		for lv := lo; lv <= hi; lv++ {
			vy0, vy1 := m.viewRows(f, v, lv)
			y0, y1 := max(wy0, vy0), min(wy1, vy1)
			if y1-y0 < splitMinRows {
				continue
			}
			shared = true
			sw := swAt.get(y0, y1, func() float64 { return m.viewScore(f, w, l, y0, y1) })
			at(y0, y1, sw, m.viewScore(f, v, lv, y0, y1), lv)
		}
		return shared
	}
	// The duels, each at the rival's best length.
	lead := 3 * splitLead
	least := bs
	for _, v := range views {
		if v.q == w.q {
			continue
		}
		var sw, sv float64
		var by0, by1, bl int
		sv = -3
		shared := rivalAt(v, func(y0, y1 int, s0, s1 float64, lv int) {
			if s1 > sv {
				sw, sv, by0, by1, bl = s0, s1, y0, y1, lv
			}
		})
		var sim float64
		if shared {
			sim = m.viewSim(w, l, v, bl, by0, by1)
		}
		switch {
		case !shared:
			return vision.Rejected(fmt.Sprintf("the corner shows %s; %s and %s share too little of what is in view", setName(end, set), w, v), 0)
		case (w.turned || v.turned) && sim > splitAlike:
			return vision.Rejected(fmt.Sprintf("the corner shows %s; %s and %s look alike in what is in view", setName(end, set), w, v), 0)
		}
		least = min(least, sw)
		if sw-sv < gapOver(w, v) {
			lead = 0
		}
		lead = min(lead, relLead(sw, sv, sim))
	}
	// The card's whole view as calibrated must match as a view as calibrated does; over the
	// rows a turned view knows, splitTurnedMin.
	floor := splitFaceMin
	if w.turned {
		floor = splitTurnedMin
	}
	if bs < floor || least < splitTurnedMin {
		return vision.Rejected(fmt.Sprintf("the corner shows %s, the face no card of it plainly", setName(end, set)), max(bs, 0))
	}
	if lead < splitLead {
		return vision.Rejected(fmt.Sprintf("the corner shows %s, the face not plainly %s", setName(end, set), c), 0)
	}
	// Every other card of the frame's colour, at either end (turned only with the length
	// known), at the lengths it may have (see rivalAt), over the rows it shares with the card: the glyph
	// may be misread, a calibration card taken at the wrong end. A rival is looked at in full
	// unless at half resolution it stays vetoCoarse behind the card wherever the two share
	// enough rows (where it costs a quarter).
	wc0, wc1 := m.viewRows(fc, w, lc)
	for q := 0; q < 52; q++ {
		if q == w.q || chromaDist(a.frame.chroma, m.cards[q].chroma) > splitColourApart {
			continue
		}
		for _, v := range []sideView{{q, false}, {q, true}} {
			if v.turned && !turn {
				continue
			}
			near := false
			lo, hi := lc, lc
			if v.turned {
				lo, hi = m.length-(rivalSlack+1)/2, m.length+(rivalSlack+1)/2
			}
			for lv := lo; lv <= hi && !near; lv++ {
				vy0, vy1 := m.viewRows(fc, v, lv)
				y0, y1 := max(wc0, vy0), min(wc1, vy1)
				// Too few rows at half resolution may be enough at full: looked at in full.
				if y1-y0 < splitMinRows/2+1 {
					near = true
					break
				}
				swc := swcAt.get(y0, y1, func() float64 { return m.viewScore(fc, w, lc, y0, y1) })
				near = m.viewScore(fc, v, lv, y0, y1) > swc-vetoCoarse
			}
			if !near {
				continue
			}
			// A rival too alike the card to be told by the face (a turned view taking part)
			// rules it out, whatever the corner read: a glyph is misread plainly at times (a
			// 7 of diamonds' corner read as an 8 at a relative lead of 0.75 to 0.96), and a
			// calibration card of a rank no other card shows at that end can be taken at the
			// wrong end. How alike is measured at every length the rival may have (it does
			// not depend on the frame); its score, about its best.
			alike := false
			if v.turned || w.turned {
				alike = m.alikeAnyLength(f, w, l, v, wy0, wy1)
			}
			vetoed := alike
			shared := rivalAt(v, func(_, _ int, sw, sv float64, _ int) {
				vetoed = vetoed || sv > sw-gapOver(w, v)
			})
			switch {
			case vetoed:
				return vision.Rejected(fmt.Sprintf("the corner shows %s, the face %s as well", setName(end, set), v), 0)
			case !shared:
				// A rival that cannot be laid against the card cannot be ruled out.
				return vision.Rejected(fmt.Sprintf("the corner shows %s; too little of the card is in view to rule out %s", setName(end, set), v), 0)
			}
		}
	}
	return vision.Result{Kind: vision.Card, Card: c, Confidence: confidence(bs, lead, splitLead)}
}

// splitTable reads a table frame of a mixed calibration. The whole card lies on the felt: one
// way up shows its rank end's corner, the other its suit end's, and each way up is read for its
// glyph (see split.read). The candidates are the cards of a rank and a suit so read; with both
// ends in view (wholeCard), every card's calibrated end is, so each candidate is judged by its
// face at its best way up. The
// card must match plainly, ahead of every other candidate, and no card the corners ruled out may
// come as near.
func (r *Recognizer) splitTable(a *analysis) vision.Result {
	m := r.m
	sp := m.split
	if !a.wholeCard {
		// A card running off the frame shows one end: the card may be one calibrated at the
		// other, whose face is then not in view to be weighed.
		return vision.Rejected("the card's two ends are not both in view", 0)
	}
	ranks, suits := uint32(1<<13-1), uint32(0xf)
	read := false
	for k := range a.ends {
		e := &a.ends[k]
		if e.split == nil {
			continue
		}
		end, set, ok := sp.read(e.split)
		switch {
		case !ok:
		case end == endRank:
			// A rank no calibration card showed at its rank end has no glyph to be ruled
			// out by.
			ranks &= set | sp.unlearned
			read = true
		default:
			suits &= set >> 13
			read = true
		}
	}
	if !read {
		return vision.Rejected("neither corner shows a rank or a suit plainly", 0)
	}
	names := func() string { return setName(endRank, ranks) + ", " + setName(endSuit, suits<<13) }
	if ranks == 0 || suits == 0 {
		return vision.Rejected("the card's corners read glyphs that disagree", 0)
	}
	face := func(q int) float64 {
		best := -2.0
		for k := range a.ends {
			best = max(best, nccRows(a.ends[k].band, &m.cards[q].fine, 0, bandH))
		}
		return best
	}
	cand := func(q int) bool {
		c := card.FromIndex(q)
		return ranks&(1<<(int(c.Rank())-1)) != 0 && suits&(1<<int(c.Suit())) != 0
	}
	best, bs := -1, -2.0
	var fs [52]float64
	for q := 0; q < 52; q++ {
		if cand(q) {
			if fs[q] = face(q); fs[q] > bs {
				best, bs = q, fs[q]
			}
		}
	}
	if bs < splitTableFaceMin {
		return vision.Rejected(fmt.Sprintf("the corners read %s, the face no card of them", names()), max(bs, 0))
	}
	c := card.FromIndex(best)
	lead := 3 * splitLead
	for q := 0; q < 52; q++ {
		if q != best && cand(q) {
			lead = min(lead, relLead(bs, fs[q], m.faceSim[best][q]))
			if bs-fs[q] < splitGap {
				lead = 0
			}
		}
	}
	if lead < splitLead {
		return vision.Rejected(fmt.Sprintf("the corners read %s, the face not plainly %s", names(), c), 0)
	}
	// A card the corners ruled out whose face matches as well: a glyph may be misread (a
	// club's small symbol for a spade's), and the faces of two such cards may be all but one.
	for q := 0; q < 52; q++ {
		if cand(q) {
			continue
		}
		near := false
		for k := range a.ends {
			near = near || a.ends[k].face[q] > bs-splitTableNear
		}
		if near && face(q) > bs-splitGap {
			return vision.Rejected(fmt.Sprintf("the corners read %s, the face %s as well", names(), card.FromIndex(q)), 0)
		}
	}
	return vision.Result{Kind: vision.Card, Card: c, Confidence: confidence(bs, lead, splitLead)}
}

// splitTableNear: a card the corners ruled out, whose face at half resolution comes this near
// the pick's, is compared at full resolution (see splitTable).
const splitTableNear = 0.05

// Reading says how a profile's cards will be read, for the technician who made it.
type Reading struct {
	// IndexReads is set when the index corner tells every rank apart (a two-ended design, or
	// a one-ended one calibrated at its index end).
	IndexReads bool
	// Mixed is set when the calibration pass showed cards of a one-ended design at either end
	// (see split); RankEnd and SuitEnd count the cards seen at each, Unknown those whose corner
	// read as neither plainly, and GlyphsRead says whether the glyphs were learned plainly (when
	// not, nothing is read).
	Mixed                     bool
	RankEnd, SuitEnd, Unknown int
	GlyphsRead                bool
}

// Describe tells how cards will be read with p.
func Describe(p *calibration.VisionProfile) (Reading, error) {
	m, err := newModel(p)
	if err != nil {
		return Reading{}, err
	}
	r := Reading{IndexReads: m.indexGood, Mixed: m.mixed, GlyphsRead: m.split != nil}
	if m.mixed {
		end, _, _ := m.calibratedEnds()
		if m.split != nil {
			end = m.split.end
		}
		for _, e := range end {
			switch e {
			case endRank:
				r.RankEnd++
			case endSuit:
				r.SuitEnd++
			default:
				r.Unknown++
			}
		}
	}
	return r, nil
}
