package cv

import (
	"math"
)

// A class's template is the whole card as calibration knows it, in card coordinates: fineScale
// pixels a card width across, as many rows as the card is long, described as a frame is
// (describe.go), seen from the end calibrated first. The rows calibration saw, or could infer,
// are known; the others are not compared, for any class (model.go).
//
// A pass through the shoe's reader shows each card's top end only. Two passes, the second with
// the deck turned end for end, show both ends, and together the whole card. One pass of a
// two-ended design (the index at both ends) is completed by symmetry: the rows within
// symRows of the end not seen are the seen end's rows turned about the card's centre, as far as
// a corner part reaches (the index and the nearest pips, the same at both ends of such a
// design); the middle of the far end is not known. A photograph shows the whole card at once.
type cardTemplate struct {
	rows  int
	v     []float32 // fineScale × rows × 3
	known []bool    // per row
	// widthPx is the card's width in pixels in the calibration frame it was made from (the
	// smallest, of two passes; 0: not known): how sharp it is (model.go, frameBlur).
	widthPx float64
}

// symRows is how far from the end a pass did not see rows are completed by symmetry: the
// corner parts' height (half a card width), where two-ended designs repeat the index.
const symRows = cornerH

func newTemplate(rows int) *cardTemplate {
	return &cardTemplate{rows: rows, v: make([]float32, fineScale*rows*3), known: make([]bool, rows)}
}

// row returns row y's values.
func (t *cardTemplate) row(y int) []float32 { return t.v[y*fineScale*3 : (y+1)*fineScale*3] }

// turned is the template seen from the card's other end.
func (t *cardTemplate) turned() *cardTemplate {
	o := newTemplate(t.rows)
	o.widthPx = t.widthPx
	for y := range t.rows {
		o.known[y] = t.known[t.rows-1-y]
		reverseRow(o.row(y), t.row(t.rows-1-y))
	}
	return o
}

// reverseRow writes src's pixels into dst right to left (3 channels each).
func reverseRow(dst, src []float32) {
	n := len(src) / 3
	for x := range n {
		copy(dst[x*3:x*3+3], src[(n-1-x)*3:(n-x)*3])
	}
}

// knows reports whether the first n rows are known.
func (t *cardTemplate) knows(n int) bool {
	if n > t.rows {
		return false
	}
	for _, k := range t.known[:n] {
		if !k {
			return false
		}
	}
	return true
}

// put lays a description of one end of the card (end 0: as the template's top; end 1: the
// other end, turned) into the template. Rows already known from end 0 stay as they are.
//
// Where the frame cut the card (the reader's window), its last cutRows rows are not the card's
// own: their local mean saw the band mirrored at the cut (describe.go). They are laid only with
// atCut, into rows no frame of the card showed away from a cut: lay every frame without it
// first, then with it, and a second pass turned end for end gives those rows from its own end.
func (t *cardTemplate) put(d *desc, end int, atCut bool) {
	n := min(t.rows, d.rows())
	from, to := max(0, d.top-fineMargin), n
	if d.rows() < t.rows {
		to = max(from, n-cutRows)
	}
	if atCut {
		from, to = to, n
	}
	for y := from; y < to; y++ {
		src := d.fine[((y+fineMargin)*fineW+fineMargin)*3:][:fineScale*3]
		ty := y
		if end == 1 {
			ty = t.rows - 1 - y
		}
		if t.known[ty] && (end == 1 || atCut) {
			continue
		}
		if end == 1 {
			reverseRow(t.row(ty), src)
		} else {
			copy(t.row(ty), src)
		}
		t.known[ty] = true
	}
}

// cutRows is how far from where a frame cuts the card its description is not the card's own:
// the local mean's reach past the cut, twice hpSigma (describe.go).
const cutRows = 15

// complete fills the unknown rows within symRows of either end from the rows at the other end,
// turned about the card's centre (a two-ended design; see cardTemplate).
func (t *cardTemplate) complete() {
	for _, y := range t.nearEnds() {
		s := t.rows - 1 - y
		if t.known[y] || !t.known[s] {
			continue
		}
		reverseRow(t.row(y), t.row(s))
		t.known[y] = true
	}
}

func (t *cardTemplate) nearEnds() []int {
	var out []int
	for y := range min(symRows, t.rows) {
		out = append(out, y, t.rows-1-y)
	}
	return out
}

// plainTemplate is the cut card's when calibration saw none: a card with nothing printed on
// it, the values every card of the deck shares — at each value, the median of the cards' templates (their outline, its
// rounded corners, the paper; no index, no pip). Its face is not compared (model.go): casinos
// print what they like across a cut card's middle.
func plainTemplate(cards []*cardTemplate, rows int) *cardTemplate {
	t := newTemplate(rows)
	col := make([]float32, 0, len(cards))
	for y := range rows {
		for i := y * fineScale * 3; i < (y+1)*fineScale*3; i++ {
			col = col[:0]
			for _, c := range cards {
				if c != nil && y < c.rows && c.known[y] {
					col = append(col, c.v[i])
				}
			}
			if len(col) > 0 {
				t.v[i] = quantile32(col, 0.5)
				t.known[y] = true
			}
		}
	}
	return t
}

// lengthFromSymmetry measures a two-ended card's length, in card widths, from one pass of top
// ends: where a description reaches past the card's middle, what it shows there is its top end
// turned about the centre, so the length is where the 52 cards agree best with themselves
// turned. It returns 0 when too few cards show the middle or the cards do not agree (a
// one-ended design, whose far end cannot be inferred).
func lengthFromSymmetry(ds []*desc) float64 {
	return bestLength(func(lf int) (float64, int) {
		sum, n := 0.0, 0
		for _, d := range ds {
			if c, ok := overlapCorr(d, d, lf); ok {
				sum += c
				n++
			}
		}
		return sum, n
	})
}

// lengthFromPasses measures the card's length from two passes, the second turned end for end:
// the length at which each card's two ends, laid into one card, agree best where both reach.
func lengthFromPasses(first, second []*desc) float64 {
	return bestLength(func(lf int) (float64, int) {
		sum, n := 0.0, 0
		for i := range first {
			if c, ok := overlapCorr(first[i], second[i], lf); ok {
				sum += c
				n++
			}
		}
		return sum, n
	})
}

// minSymmetry: ends that agree less than this (correlation) where they overlap are not the same
// card's two ends: no length.
const minSymmetry = 0.5

// bestLength returns the length (in card widths) whose agreement is highest, 0 when fewer than
// 13 cards could be compared or the best agreement is under minSymmetry.
func bestLength(agree func(lf int) (float64, int)) float64 {
	best, bestL := 0.0, 0
	for lf := fineScale * 11 / 10; lf <= int(math.Floor(maxLength*fineScale)); lf++ {
		s, n := agree(lf)
		if n >= 13 && s/float64(n) > best {
			best, bestL = s/float64(n), lf
		}
	}
	if bestL == 0 || best < minSymmetry {
		return 0
	}
	return float64(bestL) / fineScale
}

// overlapCorr correlates end a's rows with end b's rows turned about the centre of a card lf
// rows long, where both reach (at least a quarter of a card width of rows, sampled every
// other row and column).
func overlapCorr(a, b *desc, lf int) (float64, bool) {
	r0 := max(lf-b.rows(), a.top-fineMargin, lf/2-fineScale/8)
	r1 := a.rows()
	if r1-r0 < fineScale/4 {
		return 0, false
	}
	var sa, sb, saa, sbb, sab float64
	n := 0
	for y := r0; y < r1; y += 2 {
		ty := lf - 1 - y
		if ty < b.top-fineMargin || ty >= b.rows() {
			continue
		}
		ra := a.fine[((y+fineMargin)*fineW+fineMargin)*3:][:fineScale*3]
		rb := b.fine[((ty+fineMargin)*fineW+fineMargin)*3:][:fineScale*3]
		for x := 0; x < fineScale; x += 2 {
			for c := range 3 {
				p, q := float64(ra[x*3+c]), float64(rb[(fineScale-1-x)*3+c])
				sa += p
				sb += q
				saa += p * p
				sbb += q * q
				sab += p * q
				n++
			}
		}
	}
	if n < fineScale*fineScale/16 {
		return 0, false
	}
	fn := float64(n)
	va, vb := saa-sa*sa/fn, sbb-sb*sb/fn
	if va <= 0 || vb <= 0 {
		return 0, false
	}
	return (sab - sa*sb/fn) / math.Sqrt(va*vb), true
}
