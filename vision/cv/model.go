package cv

import (
	"math"
	"sort"
)

// The scoring model. A frame's card is compared with every class's template block by block —
// the index corner, and the face where calibration knows it at the end in view — and each block
// cell by cell: a grid of small cells, each compared by normalized correlation (which ignores how
// bright and how contrasted the frame is), so that the one cell where two cards differ (the suit
// symbol of the 3♠ and the 3♣) counts as much as any other, not by its share of the ink. A cell
// of the template with no ink (paper) is compared by the frame's ink there instead: none is a
// match, a card's worth a miss. A class's distance is the mean of its cells' mismatches (1 − the
// correlation), 0 for a frame that is its template. The index corner is compared at the shift
// (a few pixels either way) at which the best-fitting class fits best, every class at that one
// shift, so that what two templates share cancels between their distances.

// The index corner block in fine pixels (from the card's corner), its cells, and how far it is
// searched; the face's cells, in face pixels.
const (
	idxW     = 40 // 0.31 card widths across
	idxH     = 60 // 0.47 card widths down
	idxCW    = 10
	idxCH    = 12
	idxShift = 3
	faceCell = 8
)

// cellStats are a cell's sums: per channel, and of squares.
type cellStats struct {
	s [3]float64
	q float64
}

// energy is a cell's sum of squares about each channel's mean.
func (c cellStats) energy(n int) float64 {
	e := c.q
	for k := range 3 {
		e -= c.s[k] * c.s[k] / float64(n/3)
	}
	return max(0, e)
}

// cells is a block laid out cell by cell (each cell's values contiguous, row by row within it).
type cells struct {
	v     []float32
	per   int // values a cell
	cols  int // cells across
	n     int // cells
	st    []cellStats
	plain []bool // the cell has no ink (templates only)
	// ink is what a plain cell's ink is measured against (see ownInk); 0: the model's.
	ink float64
}

// ownInk sets c.ink to the block's own ink, its cells' 75th percentile energy (as the model's
// is measured over the calibration frames), but never under inkFloor of the calibrated ink
// (cal). Blur and a dim frame take a card's ink down evenly; measured against its own, the cells
// a template has no ink in count the same sharp or blurred, and a plain card's (noise) is still
// measured against a card's.
func (c *cells) ownInk(cal float64) {
	var buf [128]float64
	e := buf[:0]
	for i := range c.n {
		e = append(e, c.st[i].energy(c.per))
	}
	sort.Float64s(e)
	c.ink = cal
	if len(e) > 0 {
		c.ink = max(e[len(e)*3/4], inkFloor*cal)
	}
}

// inkFloor: the least share of the calibrated ink a frame's own may count for, so that a plain
// card's noise is measured against a card's ink and never against itself.
const inkFloor = 0.25

// layout copies the w × h pixel region at (x0, y0) of a 3-channel plane rw values wide into c, in
// cells of cw × ch pixels, and sums each cell.
func (c *cells) layout(src []float32, rw, x0, y0, w, h, cw, ch int) {
	c.cols = w / cw
	c.n = c.cols * (h / ch)
	c.per = cw * ch * 3
	c.v = resize32(c.v, c.n*c.per)
	if cap(c.st) < c.n {
		c.st = make([]cellStats, c.n)
	}
	c.st = c.st[:c.n]
	k := 0
	for cy := 0; cy < h/ch; cy++ {
		for cx := 0; cx < c.cols; cx++ {
			var st cellStats
			for y := 0; y < ch; y++ {
				row := src[((y0+cy*ch+y)*rw/3+x0+cx*cw)*3:][:cw*3]
				copy(c.v[k:], row)
				for i, x := range row {
					st.s[i%3] += float64(x)
					st.q += float64(x) * float64(x)
				}
				k += cw * 3
			}
			c.st[cy*c.cols+cx] = st
		}
	}
}

// cellDist is cell i's mismatch between a frame's cells x and a template's t: 1 − their
// correlation, or for a template cell with no ink, the frame's ink there as a share of ink (a
// card's cell's median energy).
func cellDist(x, t *cells, i int, ink float64) float64 {
	n := x.per
	if t.plain[i] {
		return min(1, x.st[i].energy(n)/ink)
	}
	a, b := x.st[i], t.st[i]
	dot := float64(dot32(x.v[i*n:(i+1)*n], t.v[i*n:(i+1)*n], 1))
	xx, tt := a.q, b.q
	m := float64(n / 3)
	for k := range 3 {
		dot -= a.s[k] * b.s[k] / m
		xx -= a.s[k] * a.s[k] / m
		tt -= b.s[k] * b.s[k] / m
	}
	if xx <= 1e-12 || tt <= 1e-12 {
		return 1
	}
	return 1 - dot/math.Sqrt(xx*tt)
}

// blockDist is the mean mismatch of the cells [c0, c1) (all, for the index).
func blockDist(x, t *cells, c0, c1 int, ink float64) float64 {
	if c1 <= c0 {
		return math.NaN()
	}
	if worstShare > 0 {
		var buf [128]float64
		ds := buf[:0]
		for i := c0; i < c1; i++ {
			ds = append(ds, cellDist(x, t, i, ink))
		}
		sort.Float64s(ds)
		k := max(1, int(math.Ceil(worstShare*float64(len(ds)))))
		s := 0.0
		for _, d := range ds[len(ds)-k:] {
			s += d
		}
		return s / float64(k)
	}
	s := 0.0
	for i := c0; i < c1; i++ {
		s += cellDist(x, t, i, ink)
	}
	return s / float64(c1-c0)
}

var worstShare = 0.0

// view is one end of one class as calibration knows it.
type view struct {
	class int // index into model.classes
	end   int // 0: the end calibrated first; 1: the other end
	// idx is the index block at each blur level (see blurLevels); face the face.
	idx  [nLevels]cells
	face cells
	// faceRows is how many face rows calibration saw of this end.
	faceRows int
	// hasIdx: calibration saw the index corner. plain: the cut card, plain all over. made: an
	// end calibration did not see, made up from the other (see addTurned).
	hasIdx, plain, made bool
}

// model is what the recognizer compares frames with: every class's views.
type model struct {
	classes  []string // tokens: "As" … "Kc", "BACK", "CUT"
	views    []view
	faceRows int
	// other[v] is the view of the same class at the other end, or -1.
	other []int
	// inkIdx and inkFace are how much ink a card's inked cell holds (the median over the 52
	// cards' calibration frames): a plain cell is measured against them.
	inkIdx, inkFace float64
	// length is the card's length in card widths, measured at calibration from a single pass
	// of reader frames (0 otherwise); views of the ends calibration did not see are made from it.
	length float64
	// part[i] is the part of the index corner cell i belongs to: partRank (the cards differ
	// there by rank), partSuit (by suit), or partPaper.
	part []uint8
}

// The parts of the index corner.
const (
	partPaper = iota
	partRank
	partSuit
	nParts
)

// indexDist is the index block's distance: the mean mismatch of each part's cells, the worst
// part's (the rank glyph of the 6 and the 8 or the suit symbol of the 3♠ and the 3♣ differ in a
// few cells: they must not be outvoted by the many cells the two cards share).
func (m *model) indexDist(x, t *cells) float64 {
	ink := m.inkIdx
	if x.ink > 0 {
		ink = x.ink
	}
	if len(m.part) != x.n {
		return blockDist(x, t, 0, x.n, ink)
	}
	var sum [nParts]float64
	var n [nParts]int
	for i := range x.n {
		sum[m.part[i]] += cellDist(x, t, i, ink)
		n[m.part[i]]++
	}
	// The paper cells (the card's edge, blank paper: the same on every card) are no part of
	// the index; a part is its cells' mean.
	d := 0.0
	for p := partRank; p < nParts; p++ {
		if n[p] > 0 {
			d = max(d, sum[p]/float64(n[p]))
		}
	}
	return d
}

// learnParts assigns each index cell to the part its cards differ by: from the 52 card
// templates, the cell's variance between the ranks' means and between the suits' means; a cell
// with little of either (paper, or the same on every card) is paper.
func (m *model) learnParts() {
	var ref *cells
	byClass := map[int]*cells{}
	for i := range m.views {
		v := &m.views[i]
		if v.class < 52 && v.hasIdx && v.end == 0 {
			byClass[v.class] = &v.idx[0]
			ref = &v.idx[0]
		}
	}
	if ref == nil || len(byClass) < 52 {
		return
	}
	per := ref.per
	m.part = make([]uint8, ref.n)
	score := make([][2]float64, ref.n)
	for i := range ref.n {
		mean := make([]float64, per)
		var rankM [13][]float64
		var suitM [4][]float64
		for r := range rankM {
			rankM[r] = make([]float64, per)
		}
		for s := range suitM {
			suitM[s] = make([]float64, per)
		}
		for c, t := range byClass {
			r, s := c/4, c%4
			for k, x := range t.v[i*per : (i+1)*per] {
				mean[k] += float64(x) / 52
				rankM[r][k] += float64(x) / 4
				suitM[s][k] += float64(x) / 13
			}
		}
		var R, S float64
		for k := range per {
			for r := range 13 {
				d := rankM[r][k] - mean[k]
				R += d * d / 13
			}
			for s := range 4 {
				d := suitM[s][k] - mean[k]
				S += d * d / 4
			}
		}
		score[i] = [2]float64{R, S}
	}
	most := 0.0
	for _, sc := range score {
		most = max(most, sc[0], sc[1])
	}
	for i, sc := range score {
		switch {
		case max(sc[0], sc[1]) < paperShare*most:
			m.part[i] = partPaper
		case sc[0] >= sc[1]:
			m.part[i] = partRank
		default:
			m.part[i] = partSuit
		}
	}
}

// paperShare: a cell whose cards differ by less than this share of the most differing cell's
// variance is paper.
const paperShare = 0.1

// link fills m.other.
func (m *model) link() {
	m.other = make([]int, len(m.views))
	for i := range m.views {
		m.other[i] = -1
		for j := range m.views {
			if j != i && m.views[j].class == m.views[i].class && m.views[j].end != m.views[i].end {
				m.other[i] = j
			}
		}
	}
}

// fit is a class's distance from a frame, with what it was made of.
type fit struct {
	view        int
	d           float64 // the distance: the mean mismatch of the blocks compared
	dIdx, dFace float64 // each block's (NaN when not compared)
	faceCells   int
}

// scratch holds a frame's blocks; one per recognizer.
type scratch struct {
	idx   cells // the index block at the shift being tried
	face  cells
	level int // the blur level the index is compared at
}

// The templates' blur levels: a card sliding out of the shoe is blurred along its length by its
// motion, by up to 9 pixels of a reader frame (5 of the fine band) and more in a fast hand. The
// index is compared with each template blurred as much as the frame is (the level is found
// with the shift, by the best-fitting views, and every view is compared at it), so that a
// blurred frame is not told from its card by its blur.
const nLevels = 4

var blurLevels = [nLevels]int{0, 2, 4, 7} // box lengths, fine pixels along the card

// blurRows blurs a 3-channel block (rw values a row, rows rows) along its rows' direction by a
// box of length k, the edge rows repeated.
func blurRows(v []float32, rw, rows, k int) []float32 {
	out := make([]float32, len(v))
	if k <= 1 {
		copy(out, v)
		return out
	}
	lo, hi := -(k-1)/2, k/2
	for y := range rows {
		o := out[y*rw : (y+1)*rw]
		for j := lo; j <= hi; j++ {
			yy := min(rows-1, max(0, y+j))
			for i, x := range v[yy*rw : (yy+1)*rw] {
				o[i] += x
			}
		}
		for i := range o {
			o[i] /= float32(k)
		}
	}
	return out
}

// indexBlock lays out the frame's index block at shift (dx, dy).
func (m *model) indexBlock(d *desc, dx, dy int, s *scratch) {
	s.idx.layout(d.fine, fineW*3, fineMargin+dx, fineMargin+dy, idxW, idxH, idxCW, idxCH)
	s.idx.ownInk(m.inkIdx)
}

// faceBlock lays out the frame's face.
func (m *model) faceBlock(d *desc, s *scratch) {
	s.face.layout(d.face, faceScale*3, 0, 0, faceScale, d.faceRows/faceCell*faceCell, faceCell, faceCell)
}

// faceCells returns the face cells [c0, c1) a frame and a view both hold.
func (m *model) faceCells(d *desc, faceRows int) (int, int) {
	top := (d.faceTop + faceCell - 1) / faceCell
	bottom := min(d.faceRows, faceRows) / faceCell
	return top * (faceScale / faceCell), bottom * (faceScale / faceCell)
}

// score measures one view against the frame laid out in s.
func (m *model) score(d *desc, v int, s *scratch, useFace bool) fit {
	vw := &m.views[v]
	f := fit{view: v, dIdx: math.NaN(), dFace: math.NaN()}
	n, total := 0, 0.0
	if vw.hasIdx && d.idxOK {
		f.dIdx = m.indexDist(&s.idx, &vw.idx[s.level])
		total += f.dIdx
		n++
	}
	if useFace {
		c0, c1 := m.faceCells(d, vw.faceRows)
		if c1-c0 >= minFaceCells {
			f.dFace = blockDist(&s.face, &vw.face, c0, c1, m.inkFace)
			f.faceCells = c1 - c0
			total += f.dFace
			n++
		}
	}
	if n == 0 {
		f.d = math.Inf(1)
		return f
	}
	// Every part must match: the class's distance is its worse part's (the suit symbol of the
	// A♠ and the A♣ differ in the index, their big pips on the face).
	f.d = max(nanZero(f.dIdx), nanZero(f.dFace))
	_ = total
	return f
}

// minFaceCells: a face seen over fewer cells (a row of them: a quarter of the card's width) is
// not compared.
const minFaceCells = faceScale / faceCell

// fitAll measures every view against a frame: the index is searched for the shift at which the
// best-fitting views fit best, then every view is measured at that shift. It returns the fits,
// best first.
func (m *model) fitAll(d *desc, s *scratch, useFace bool, out []fit) []fit {
	out = out[:0]
	if useFace {
		m.faceBlock(d, s)
	}
	if d.idxOK {
		type cand struct {
			v int
			d float64
		}
		best := make([]cand, len(m.views))
		for i := range best {
			best[i] = cand{i, math.Inf(1)}
		}
		s.level = nLevels / 2
		for dy := -2; dy <= 2; dy += 2 {
			for dx := -2; dx <= 2; dx += 2 {
				m.indexBlock(d, dx, dy, s)
				for v := range m.views {
					if f := m.score(d, v, s, false); f.d < best[v].d {
						best[v].d = f.d
					}
				}
			}
		}
		sort.Slice(best, func(i, j int) bool { return best[i].d < best[j].d })
		bx, by, bl, bd := 0, 0, 0, math.Inf(1)
		for dy := -idxShift; dy <= idxShift; dy++ {
			for dx := -idxShift; dx <= idxShift; dx++ {
				m.indexBlock(d, dx, dy, s)
				for l := range nLevels {
					s.level = l
					for _, c := range best[:min(len(best), topViews)] {
						if f := m.score(d, c.v, s, false); f.d < bd {
							bx, by, bl, bd = dx, dy, l, f.d
						}
					}
				}
			}
		}
		m.indexBlock(d, bx, by, s)
		s.level = bl
	}
	for v := range m.views {
		out = append(out, m.score(d, v, s, useFace))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].d < out[j].d })
	return out
}

// topViews is how many of the best-fitting views the fine shift search looks at.
const topViews = 6

// templateCells makes a template's cells from its block (rw values a row) and marks its plain
// cells: those with less ink than plainShare of a card's inked cell.
func templateCells(v []float32, rw, w, h, cw, ch int, ink float64) cells {
	var c cells
	c.layout(v, rw, 0, 0, w, h, cw, ch)
	c.plain = make([]bool, c.n)
	for i := range c.plain {
		c.plain[i] = c.st[i].energy(c.per) < plainShare*ink
	}
	return c
}

// plainShare: a template cell holding less ink than this share of a card's inked cell is paper:
// it is measured by the frame's ink there, not by a correlation that noise alone would make.
const plainShare = 0.05

func nanZero(v float64) float64 {
	if math.IsNaN(v) {
		return 0
	}
	return v
}
