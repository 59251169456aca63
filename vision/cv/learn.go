package cv

import (
	"math"
	"slices"
)

// sample is one class's end seen in calibration: the calibration frame's own description and
// its perturbations' descriptions.
type sample struct {
	class, end int
	base       *desc
	perturbed  []*desc
	plain      bool // CUT: a plain card, whose template is no ink at all
}

// alignIndex returns the shift of d's index block that best matches ref's (least squares).
func alignIndex(d, ref *desc) (int, int) {
	bx, by, best := 0, 0, math.Inf(1)
	for dy := -idxShift; dy <= idxShift; dy++ {
		for dx := -idxShift; dx <= idxShift; dx++ {
			var ss float64
			for y := range idxH {
				a := d.fine[((y+fineMargin+dy)*fineW+fineMargin+dx)*3:][:idxW*3]
				b := ref.fine[((y+fineMargin)*fineW+fineMargin)*3:][:idxW*3]
				for i := range a {
					e := float64(a[i] - b[i])
					ss += e * e
				}
			}
			if ss < best {
				bx, by, best = dx, dy, ss
			}
		}
	}
	return bx, by
}

// learnModel builds the model from the calibration samples: each view's template is the mean of
// its perturbed descriptions (its index block aligned to the calibration frame's), its cells
// with no ink marked plain against the cards' ink.
func learnModel(classes []string, samples []sample, turn bool) *model {
	m := &model{classes: classes}
	const bw = idxW * idxH * 3
	const rw = faceScale * 3
	for _, s := range samples {
		m.faceRows = max(m.faceRows, s.base.faceRows/faceCell*faceCell)
	}
	m.inkIdx, m.inkFace = inkOf(samples, m.faceRows)
	for _, s := range samples {
		idx := make([]float64, bw)
		face := make([]float64, m.faceRows*rw)
		nf := make([]float64, m.faceRows)
		ni := 0
		for _, d := range s.perturbed {
			if d.idxOK && s.base.idxOK {
				dx, dy := alignIndex(d, s.base)
				for y := range idxH {
					row := d.fine[((y+fineMargin+dy)*fineW+fineMargin+dx)*3:][:idxW*3]
					for i, v := range row {
						idx[y*idxW*3+i] += float64(v)
					}
				}
				ni++
			}
			for y := d.faceTop; y < min(d.faceRows, m.faceRows); y++ {
				for i := y * rw; i < (y+1)*rw; i++ {
					face[i] += float64(d.face[i])
				}
				nf[y]++
			}
		}
		v := view{class: s.class, end: s.end, hasIdx: ni > 0 || s.plain, plain: s.plain}
		ti := make([]float32, bw)
		for i := range idx {
			if ni > 0 && !s.plain {
				ti[i] = float32(idx[i] / float64(ni))
			}
		}
		// The face rows at least half the perturbations saw, in whole cells.
		rows := 0
		for y := range m.faceRows {
			if nf[y] < float64(len(s.perturbed))/2 {
				break
			}
			rows = y + 1
		}
		rows = rows / faceCell * faceCell
		if s.plain {
			rows = 0 // the cut card is read by its bare corner: its middle may be printed
		}
		tf := make([]float32, rows*rw)
		for i := range tf {
			if !s.plain && nf[i/rw] > 0 {
				tf[i] = float32(face[i] / nf[i/rw])
			}
		}
		m.views = append(m.views, newView(v, ti, tf, rows, m.inkIdx, m.inkFace))
	}
	// The cut card is plain: its template is no ink at all, whatever its colour, so a pass
	// without a frame of it (photographs of the 52 cards) knows it all the same.
	cut := slices.Index(classes, classCut)
	if cut >= 0 && !slices.ContainsFunc(samples, func(s sample) bool { return s.class == cut }) {
		m.views = append(m.views, newView(view{class: cut, hasIdx: true, plain: true}, make([]float32, bw), nil, 0, m.inkIdx, m.inkFace))
	}
	m.length = cardLength(samples)
	if turn {
		m.addTurned()
	}
	m.link()
	m.learnParts()
	return m
}

// newView lays out a view's template blocks (row by row, as profiles keep them) in cells.
func newView(v view, idx, face []float32, faceRows int, inkIdx, inkFace float64) view {
	for l, k := range blurLevels {
		v.idx[l] = templateCells(blurRows(idx, idxW*3, idxH, k), idxW*3, idxW, idxH, idxCW, idxCH, inkIdx)
		v.idx[l].ownInk(inkIdx)
	}
	v.face = templateCells(face, faceScale*3, faceScale, faceRows, faceCell, faceCell, inkFace)
	v.faceRows = faceRows
	if v.plain {
		for l := range v.idx {
			for i := range v.idx[l].plain {
				v.idx[l].plain[i] = true
			}
		}
		for i := range v.face.plain {
			v.face.plain[i] = true
		}
	}
	return v
}

// inkOf is how much ink an inked cell of a card holds: the 75th percentile of the energies of
// the 52 cards' calibration cells (a quarter of a card's cells hold more; many hold paper only).
func inkOf(samples []sample, faceRows int) (float64, float64) {
	var ei, ef []float64
	var c cells
	for _, s := range samples {
		if s.class >= 52 || s.plain {
			continue
		}
		d := s.base
		if d.idxOK {
			c.layout(d.fine, fineW*3, fineMargin, fineMargin, idxW, idxH, idxCW, idxCH)
			for i := range c.n {
				ei = append(ei, c.st[i].energy(c.per))
			}
		}
		rows := min(d.faceRows, faceRows) / faceCell * faceCell
		c.layout(d.face, faceScale*3, 0, 0, faceScale, rows, faceCell, faceCell)
		for i := (d.faceTop + faceCell - 1) / faceCell * (faceScale / faceCell); i < c.n; i++ {
			ef = append(ef, c.st[i].energy(c.per))
		}
	}
	q := func(v []float64) float64 {
		if len(v) == 0 {
			return 1
		}
		slices.Sort(v)
		return max(v[len(v)*3/4], 1e-9)
	}
	return q(ei), q(ef)
}

// normalize takes each channel's mean from v (3 interleaved channels) and scales it to unit norm.
func normalize(v []float32) {
	var s [3]float64
	for i, x := range v {
		s[i%3] += float64(x)
	}
	n := float64(len(v) / 3)
	var q float64
	for i := range v {
		v[i] -= float32(s[i%3] / n)
		q += float64(v[i]) * float64(v[i])
	}
	if q > 0 {
		k := float32(1 / math.Sqrt(q))
		for i := range v {
			v[i] *= k
		}
	}
}

// cardLength measures the card's length, in card widths, from the calibration frames of one
// pass: where a frame shows the card past its middle, the face there is the face turned end for
// end about the card's centre (a two-ended design), and the length is where the cards agree
// best. It returns 0 when too few frames show the middle.
func cardLength(samples []sample) float64 {
	const rw = faceScale * 3
	best, bestL := 0.0, 0
	for lf := faceScale * 11 / 10; lf <= maxFaceRows; lf++ {
		sum, n := 0.0, 0
		for _, s := range samples {
			d := s.base
			if s.class >= 52 || s.plain {
				continue
			}
			r0, r1 := max(lf-d.faceRows, d.faceTop, lf/2-faceScale/4), d.faceRows
			if r1-r0 < faceCell {
				continue
			}
			var a, b []float32
			for y := r0; y < r1; y++ {
				ty := lf - 1 - y
				if ty < d.faceTop || ty >= d.faceRows {
					continue
				}
				for x := range faceScale {
					a = append(a, d.face[y*rw+x*3:][:3]...)
					b = append(b, d.face[ty*rw+(faceScale-1-x)*3:][:3]...)
				}
			}
			if len(a) < faceScale*3*faceCell {
				continue
			}
			sum += corr32(a, b)
			n++
		}
		if n >= 13 && sum/float64(n) > best {
			best, bestL = sum/float64(n), lf
		}
	}
	if bestL == 0 || best < minSymmetry {
		return 0
	}
	return float64(bestL) / faceScale
}

// minSymmetry: cards that agree less than this with themselves turned end for end about their
// middle are not two-ended: no length is measured, and no end is made up.
const minSymmetry = 0.5

// corr32 is the correlation of two equal-length vectors.
func corr32(a, b []float32) float64 {
	var sa, sb, saa, sbb, sab float64
	for i := range a {
		x, y := float64(a[i]), float64(b[i])
		sa += x
		sb += y
		saa += x * x
		sbb += y * y
		sab += x * y
	}
	n := float64(len(a))
	va, vb := saa-sa*sa/n, sbb-sb*sb/n
	if va <= 0 || vb <= 0 {
		return 0
	}
	return (sab - sa*sb/n) / math.Sqrt(va*vb)
}

// addTurned makes up each card's other end from the one calibrated, for a pass that saw each
// card at one end only: the same index (a two-ended design prints it at both ends), the face as
// far as the calibration frame saw the card from its other end turned end for end about the
// card's centre (exactly what that end shows), and nearer the end as calibrated (the pips nearest
// an end look alike at both ends). Where
// that is not so — a court card drawn whole rather than mirrored, the 7's odd pip — a frame of
// the other end fits neither view and is rejected, never read as another card: its index must
// fit as well.
func (m *model) addTurned() {
	if m.length == 0 {
		return
	}
	lf := int(math.Round(m.length * faceScale))
	const rw = faceScale * 3
	n := len(m.views)
	for i := 0; i < n; i++ {
		a := m.views[i]
		if a.plain || a.class >= 52 || a.end != 0 {
			continue
		}
		fa := rowMajor(&a.face, faceScale, faceCell, faceCell)
		rows := min(lf, maxFaceRows) / faceCell * faceCell
		fb := make([]float32, rows*rw)
		mid := max(0, lf-a.faceRows) // rows from here on are the calibrated rows turned
		for y := range rows {
			src, flip := y, false
			if y >= mid {
				src, flip = lf-1-y, true
			}
			if src < 0 || src >= a.faceRows {
				continue
			}
			for x := range faceScale {
				sx := x
				if flip {
					sx = faceScale - 1 - x
				}
				copy(fb[y*rw+x*3:][:3], fa[src*rw+sx*3:][:3])
			}
		}
		// Rows made of neither end (a short calibration frame) end the face.
		valid := rows
		for y := range rows {
			src := y
			if y >= mid {
				src = lf - 1 - y
			}
			if src < 0 || src >= a.faceRows {
				valid = y / faceCell * faceCell
				break
			}
		}
		b := view{class: a.class, end: 1, hasIdx: a.hasIdx, made: true}
		idx := rowMajor(&a.idx[0], idxW, idxCW, idxCH)
		m.views = append(m.views, newView(b, idx, fb[:valid*rw], valid, m.inkIdx, m.inkFace))
	}
}

// maxFaceRows is the longest face a card has, in face rows.
var maxFaceRows = int(math.Floor(maxLength * faceScale))
