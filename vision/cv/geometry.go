package cv

import (
	"errors"
	"image"
	"image/color"
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// pose maps card coordinates to frame coordinates: band pixel (u, v), where the card's width is
// bandW pixels and v runs down from the card's top edge, lands at frame pixel H·(u, v, 1).
type pose struct {
	h       [3][3]float64
	widthPx float64 // card width in frame pixels
	// fit is how well the card's outline was found, in [0, 1].
	fit float64
}

func (p *pose) apply(u, v float64) (float64, float64) {
	x := p.h[0][0]*u + p.h[0][1]*v + p.h[0][2]
	y := p.h[1][0]*u + p.h[1][1]*v + p.h[1][2]
	w := p.h[2][0]*u + p.h[2][1]*v + p.h[2][2]
	if w == 0 {
		return math.Inf(1), math.Inf(1)
	}
	return x / w, y / w
}

// rotated returns the pose of the same card turned end for end: band (u, v) of the result is
// band (W-u, L-v) of p, for a card L band pixels long.
func (p *pose) rotated(bandW, length float64) pose {
	// H' = H · R, R = [[-1 0 W] [0 -1 L] [0 0 1]]
	var q pose
	q.widthPx, q.fit = p.widthPx, p.fit
	for i := 0; i < 3; i++ {
		q.h[i][0] = -p.h[i][0]
		q.h[i][1] = -p.h[i][1]
		q.h[i][2] = p.h[i][0]*bandW + p.h[i][1]*length + p.h[i][2]
	}
	return q
}

// line is c = a·t + b: for a near-vertical edge t is y and c is x; for a near-horizontal edge t
// is x and c is y.
type line struct{ a, b float64 }

func (l line) at(t float64) float64 { return l.a*t + l.b }

// fitLine fits a line to points (t[i], c[i]) robustly: every pair of points proposes a line
// (deterministically, no randomness), the one with most points within tol wins, and a least
// squares fit over its inliers refines it. It returns the line and its inlier count.
func fitLine(t, c []float64, tol, maxSlope float64) (line, int) {
	n := len(t)
	if n < 4 {
		return line{}, 0
	}
	best, bestN := line{}, 0
	step := 1
	if n > 24 {
		step = n / 24
	}
	for i := 0; i < n; i += step {
		for j := i + 1; j < n; j += step {
			dt := t[j] - t[i]
			if math.Abs(dt) < 8 {
				continue
			}
			a := (c[j] - c[i]) / dt
			if math.Abs(a) > maxSlope {
				continue
			}
			b := c[i] - a*t[i]
			k := 0
			for m := range t {
				if math.Abs(a*t[m]+b-c[m]) <= tol {
					k++
				}
			}
			if k > bestN {
				best, bestN = line{a, b}, k
			}
		}
	}
	if bestN < 3 {
		return line{}, 0
	}
	var st, sc, stt, stc, m float64
	for i := range t {
		if math.Abs(best.at(t[i])-c[i]) <= tol {
			st += t[i]
			sc += c[i]
			stt += t[i] * t[i]
			stc += t[i] * c[i]
			m++
		}
	}
	if d := m*stt - st*st; d > 1e-9 {
		a := (m*stc - st*sc) / d
		best = line{a, (sc - a*st) / m}
	}
	return best, bestN
}

var (
	errNoSideEdge = errors.New("no card edge on either side")
	errNoTopEdge  = errors.New("no card top edge")
	errTopAbove   = errors.New("the card's top edge is above the reader window")
	errCardSize   = errors.New("card too small or too large for this camera")
)

// edgeScan holds a frame's smoothed colour pixels for the edge scans of registerShoe.
type edgeScan struct {
	w, h int
	px   []uint8 // BGR, blurred
	row  []int
}

// gx is the horizontal colour step at (x, y): the largest change over 4 pixels among the three
// channels, so that a red cut card on dark felt shows as clearly as a white card.
func (e *edgeScan) gx(x, y int) int {
	i := (y*e.w + x) * 3
	return maxStep(e.px, i-6, i+6)
}

func (e *edgeScan) gy(x, y int) int {
	i := (y*e.w + x) * 3
	return maxStep(e.px, i-6*e.w, i+6*e.w)
}

// wideX and wideY are the colour steps across (x, y) over wideReach pixels each way: an edge
// between the card and the felt keeps its step that far, a thin line drawn on the card (a
// border, an ornament) does not.
func (e *edgeScan) wideX(x, y int) int {
	a, b := max(x-wideReach, 0), min(x+wideReach, e.w-1)
	return maxStep(e.px, (y*e.w+a)*3, (y*e.w+b)*3)
}

func (e *edgeScan) wideY(x, y int) int {
	a, b := max(y-wideReach, 0), min(y+wideReach, e.h-1)
	return maxStep(e.px, (a*e.w+x)*3, (b*e.w+x)*3)
}

// stepEdge locates an edge along a scan of colour steps v, met first at index i going in
// direction dir (1 or -1) from the outside: it climbs to the step's peak, then returns to where
// the step first reached half the peak, which is where the card begins (a card's rim or shadow
// widens a step, and its peak then wanders inside). Indexes stay within [lo, hi].
func stepEdge(v []int, i, dir, lo, hi int) (pos float64, peak int) {
	peak = i
	for peak+dir >= lo && peak+dir <= hi && v[peak+dir] > v[peak] {
		peak += dir
	}
	half := float64(v[peak]) / 2
	j := peak
	for j-dir >= lo && j-dir <= hi && float64(v[j-dir]) >= half {
		j -= dir
	}
	// Between j-dir (under half) and j (at or over half), where half is crossed.
	if k := j - dir; k >= lo && k <= hi {
		a, b := float64(v[k]), float64(v[j])
		if b > a {
			return float64(k) + float64(dir)*(half-a)/(b-a), peak
		}
	}
	return float64(j), peak
}

// wideReach is how far (pixels) either side of an edge its step must last.
const wideReach = 7

// colourAt is the blurred frame's colour at (x, y), clamped to the frame.
func (e *edgeScan) colourAt(x, y int) [3]int {
	x, y = max(0, min(e.w-1, x)), max(0, min(e.h-1, y))
	i := (y*e.w + x) * 3
	return [3]int{int(e.px[i]), int(e.px[i+1]), int(e.px[i+2])}
}

func colourDist(a, b [3]int) int {
	m := 0
	for c := range a {
		d := a[c] - b[c]
		if d < 0 {
			d = -d
		}
		m = max(m, d)
	}
	return m
}

func maxStep(px []uint8, a, b int) int {
	m := 0
	for c := 0; c < 3; c++ {
		d := int(px[b+c]) - int(px[a+c])
		if d < 0 {
			d = -d
		}
		if d > m {
			m = d
		}
	}
	return m
}

// shoeGeom is what registerShoe found: the card's side edges (x = a·y + b), either of which may
// be missing (outside the window), and its top edge (y = a·x + b).
type shoeGeom struct {
	left, right, top line
	leftOK, rightOK  bool
	// theta is the card's rotation (radians; its top edge runs along (cos θ, sin θ)).
	theta float64
	// fit is the share of edge samples that lie on the edges found, worst of the edges.
	fit float64
}

// bothSides reports whether both side edges were found, and so the card's width.
func (g *shoeGeom) bothSides() bool { return g.leftOK && g.rightOK }

// width is the distance between the side edges, in pixels (both must have been found), measured
// at frame row y.
func (g *shoeGeom) width(y float64) float64 {
	return (g.right.at(y) - g.left.at(y)) * math.Cos(g.theta)
}

// widthAt is the card's width (both sides must have been found), measured half way between the
// top-left corner and the bottom of a frame h rows high.
func (g *shoeGeom) widthAt(h int) float64 {
	_, cy := cornerOf(g.left, g.top)
	return g.width(cy + 0.5*(float64(h)-cy))
}

// errOneSide says that only one side of the card was found, and its width could not be told.
var errOneSide = errors.New("only one side of the card is in view")

// pose maps the band onto the card for a card widthPx pixels wide: from the top-left corner
// when the left edge was found, else from the top-right corner.
func (g *shoeGeom) pose(widthPx float64, bandW int) pose {
	c, sn := math.Cos(g.theta), math.Sin(g.theta)
	var cx, cy float64
	if g.leftOK {
		cx, cy = cornerOf(g.left, g.top)
	} else {
		cx, cy = cornerOf(g.right, g.top)
		cx, cy = cx-widthPx*c, cy-widthPx*sn
	}
	s := widthPx / float64(bandW)
	return pose{h: [3][3]float64{{s * c, -s * sn, cx}, {s * sn, s * c, cy}, {0, 0, 1}}, widthPx: widthPx, fit: g.fit}
}

// cornerOf is where a side edge (x = side.a·y + side.b) meets the top edge (y = top.a·x + top.b).
func cornerOf(side, top line) (float64, float64) {
	y := (top.a*side.b + top.b) / (1 - top.a*side.a)
	return side.at(y), y
}

// sideSample is one point of a side edge: the row and the column of the step.
type sideSample struct{ t, c float64 }

// registerShoe finds the card in a reader-window frame: its side edges and its top edge (the card
// enters the window top first, either end, with a small rotation). minStep is the smallest colour
// step (0…255) that counts as an edge.
//
// A side edge is the first strong, lasting colour step met scanning a row from the frame's side
// in; the sides are fitted robustly and must be parallel. The top edge runs square to them (a
// card is a rectangle, and the reader sees it without perspective): it is the topmost line square
// to the sides on which enough column scans meet their first step, and where the side edges end
// (a card's sides do not continue above its top). A line drawn on the card below a top edge that
// lies above the window is thus never taken for the top.
func registerShoe(blurred gocv.Mat, minStep int) (shoeGeom, error) {
	var g shoeGeom
	w, h := blurred.Cols(), blurred.Rows()
	px, err := blurred.DataPtrUint8()
	if err != nil || len(px) < w*h*3 || w < 32 || h < 32 {
		return g, errors.New("frame is not 8-bit colour")
	}
	e := edgeScan{w: w, h: h, px: px, row: make([]int, max(w, h))}
	var lt, lc, rt, rc []float64
	for y := 2; y < h-2; y += 3 {
		mx := 0
		for x := 2; x < w-2; x++ {
			e.row[x] = e.gx(x, y)
			mx = max(mx, e.row[x])
		}
		th := max(minStep, mx*3/10)
		for x := 2; x < w/2; x++ {
			if e.row[x] >= th {
				pos, peak := stepEdge(e.row, x, 1, 2, w-3)
				if e.wideX(peak, y) >= th*2/3 {
					lt, lc = append(lt, float64(y)), append(lc, pos)
				}
				break
			}
		}
		for x := w - 3; x > w/2; x-- {
			if e.row[x] >= th {
				pos, peak := stepEdge(e.row, x, -1, 2, w-3)
				if e.wideX(peak, y) >= th*2/3 {
					rt, rc = append(rt, float64(y)), append(rc, pos)
				}
				break
			}
		}
	}
	const maxSlope = 0.15 // about 8.5°
	var nl, nr int
	g.left, nl = fitLine(lt, lc, 1.5, maxSlope)
	g.right, nr = fitLine(rt, rc, 1.5, maxSlope)
	g.leftOK, g.rightOK = nl >= minSideSamples, nr >= minSideSamples
	if g.leftOK && g.rightOK {
		// The sides of a card are parallel, and both border the felt: when they are not, or
		// when what lies outside one differs from what lies outside the other, one of them is
		// a line of the card's drawing (its own side being outside the window). Keep the side
		// with the stronger step between the card and what lies outside.
		outL, inL := e.sideColours(g.left, lt, lc, -1)
		outR, inR := e.sideColours(g.right, rt, rc, 1)
		cl, cr := colourDist(outL, inL), colourDist(outR, inR)
		if math.Abs(g.left.a-g.right.a) > 0.045 || !feltAlike(outL, inL, outR, inR, min(cl, cr)*6/10) {
			if cl >= cr {
				g.rightOK = false
			} else {
				g.leftOK = false
			}
		}
	}
	if !g.leftOK && !g.rightOK {
		return g, errNoSideEdge
	}
	// The card's rotation, from the side edges (x = a·y + b runs along (a, 1)).
	switch {
	case g.leftOK && g.rightOK:
		g.theta = -(math.Atan(g.left.a)*float64(nl) + math.Atan(g.right.a)*float64(nr)) / float64(nl+nr)
	case g.leftOK:
		g.theta = -math.Atan(g.left.a)
	default:
		g.theta = -math.Atan(g.right.a)
	}
	// Where each side edge begins: its topmost samples on the line.
	sideTop := func(l line, ts, cs []float64) float64 {
		var ys []float64
		for i := range ts {
			if math.Abs(l.at(ts[i])-cs[i]) <= 1.5 {
				ys = append(ys, ts[i])
			}
		}
		sort.Float64s(ys)
		return ys[min(1, len(ys)-1)]
	}
	var lTop, rTop float64
	if g.leftOK {
		lTop = sideTop(g.left, lt, lc)
	}
	if g.rightOK {
		rTop = sideTop(g.right, rt, rc)
	}
	// The felt's colour: what lies just outside the side edges.
	var felt [3]int
	switch {
	case g.leftOK && g.rightOK:
		fl, _ := e.sideColours(g.left, lt, lc, -1)
		fr, _ := e.sideColours(g.right, rt, rc, 1)
		for c := range felt {
			felt[c] = (fl[c] + fr[c]) / 2
		}
	case g.leftOK:
		felt, _ = e.sideColours(g.left, lt, lc, -1)
	default:
		felt, _ = e.sideColours(g.right, rt, rc, 1)
	}
	// Top edge: scan columns between the sides, away from the rounded corners.
	mid := float64(h) / 2
	x0, x1 := 2, w-3
	if g.leftOK {
		x0 = int(g.left.at(mid)) + w/12
	}
	if g.rightOK {
		x1 = int(g.right.at(mid)) - w/12
	}
	// The top edge is a step between the same card and the same felt as the sides: a column
	// crossing strong ink (a word on a cut card) must not hide a faint top.
	edgeStrength := 255
	if g.leftOK {
		edgeStrength = e.sideStrength(g.left, lt, lc)
	}
	if g.rightOK {
		edgeStrength = min(edgeStrength, e.sideStrength(g.right, rt, rc))
	}
	var tt, tc, scanned []float64
	for x := max(x0, 2); x < min(x1, w-2); x += 3 {
		scanned = append(scanned, float64(x))
		mx := 0
		for y := 2; y < h-2; y++ {
			e.row[y] = e.gy(x, y)
			mx = max(mx, e.row[y])
		}
		th := max(minStep, min(mx*3/10, edgeStrength/2))
		for y := 2; y < h*3/4; y++ {
			if e.row[y] >= th {
				// The top edge at its step's peak: the slide's motion blur smears it evenly
				// about the edge.
				_, peak := stepEdge(e.row, y, 1, 2, h-3)
				if e.wideY(x, peak) >= th*2/3 {
					tt, tc = append(tt, float64(x)), append(tc, float64(peak))
				}
				break
			}
		}
	}
	// The top edge is square to the sides: y = slope·x + b with slope = tan θ. Each column's
	// step proposes b; the topmost b that enough columns agree on, and that the side edges end
	// at, is the top.
	slope := math.Tan(g.theta)
	bs := make([]float64, len(tt))
	for i := range tt {
		bs[i] = tc[i] - slope*tt[i]
	}
	order := make([]int, len(bs))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(i, j int) bool { return bs[order[i]] < bs[order[j]] })
	need := max(minTopSamples, len(bs)/8)
	const tol = 2.0
	above := false
	found := false
	for k := 0; k < len(order) && !found; k++ {
		b0 := bs[order[k]]
		n := 0
		var sum float64
		for j := k; j < len(order) && bs[order[j]] <= b0+2*tol; j++ {
			n++
			sum += bs[order[j]]
		}
		if n < need {
			continue
		}
		top := line{slope, sum / float64(n)}
		// The sides must begin below this line (past the rounded corners), and what lies above
		// it must be the felt:
		// else it is a line on the card, and the card's own top is higher (perhaps above the
		// window).
		// A card's top edge is the first step in nearly every column it crosses inside the
		// window; a line that a few columns of the card's drawing happen to agree on is not.
		covered := coveredCols(top, scanned)
		if n < covered/2 {
			above = true
			continue
		}
		if covered < len(scanned)/2 && n < len(scanned)*6/10 {
			// The line runs mostly along or above the window's top edge, where nothing shows
			// above it: it is the card's top only when a corner of the card shows below it,
			// a side edge ending short of the window's top.
			corner := false
			for _, sd := range []struct {
				ok bool
				l  line
			}{{g.leftOK, g.left}, {g.rightOK, g.right}} {
				if sd.ok && top.at(sd.l.at(0)) >= 0 && !e.sideReachesTop(sd.l, edgeStrength) {
					corner = true
				}
			}
			if !corner {
				above = true
				continue
			}
		}
		if (g.leftOK && lTop < top.at(g.left.at(lTop))+minCornerDrop) || (g.rightOK && rTop < top.at(g.right.at(rTop))+minCornerDrop) || !e.feltAbove(top, tt, tc, felt) {
			above = true
			continue
		}
		g.top, found = top, true
		// Refine over the columns on it: the line's height, and its slope when they spread
		// wide enough to tell it.
		var xs, ys []float64
		for i := range tt {
			if math.Abs(top.at(tt[i])-tc[i]) <= tol {
				xs, ys = append(xs, tt[i]), append(ys, tc[i])
			}
		}
		if l, n := fitLine(xs, ys, tol, maxSlope); n >= need && math.Abs(l.a-slope) < 0.02 {
			g.top = l
		}
		g.fit = float64(n) / float64(len(bs))
	}
	if !found {
		if above || (g.leftOK && lTop < 6) || (g.rightOK && rTop < 6) {
			return g, errTopAbove
		}
		return g, errNoTopEdge
	}
	if g.bothSides() {
		cy, _ := cornerOf(g.left, g.top)
		width := g.width(cy + 0.5*(float64(h)-cy))
		if width < float64(w)/5 || width > float64(w)*1.2 {
			return g, errCardSize
		}
	}
	return g, nil
}

// feltAlike reports whether the colours outside a card's two side edges (outL, outR) are alike,
// within tol, as the felt either side of one card is: as they are, or once the light falling
// unevenly across the window is evened out. The card is one colour across (a plastic cut card, a
// back's rim, a face's margin), so how much brighter it is inside one side than inside the other
// (inL, inR) is how much more light falls there.
func feltAlike(outL, inL, outR, inR [3]int, tol int) bool {
	if colourDist(outL, outR) <= tol {
		return true
	}
	sl, sr := inL[0]+inL[1]+inL[2], inR[0]+inR[1]+inR[2]
	if sl < 24 || sr < 24 || 2*sl < sr || 2*sr < sl {
		return false
	}
	var lit [3]int
	for c := range lit {
		lit[c] = (outL[c]*sr + sl/2) / sl
	}
	return colourDist(lit, outR) <= tol
}

// feltAbove reports whether, at the column scans (xs, ys) that lie on the line top, what lies just
// above the line looks like the felt (colour felt) rather than like the card below it. Columns
// whose line is at the frame's top edge say nothing; with none left, the answer is yes.
func (e *edgeScan) feltAbove(top line, xs, ys []float64, felt [3]int) bool {
	var up, down []int
	for i := range xs {
		y := top.at(xs[i])
		if math.Abs(y-ys[i]) > 2 || y < 6 {
			continue
		}
		x := int(xs[i])
		up = append(up, colourDist(e.colourAt(x, int(y)-5), felt))
		down = append(down, colourDist(e.colourAt(x, int(y)+5), felt))
	}
	if len(up) == 0 {
		return true
	}
	sort.Ints(up)
	sort.Ints(down)
	return up[len(up)/2]*2 < down[len(down)/2]
}

// sideColours are the median colours just outside and just inside a side edge (x = l.at(y)),
// over the row scans (ts, cs) that lie on it; out is -1 for the left edge, 1 for the right. The
// outside is taken nearer the edge where the frame ends sooner, and not at all closer than 3
// pixels from the frame's side.
func (e *edgeScan) sideColours(l line, ts, cs []float64, out int) (outside, inside [3]int) {
	var o, in [][3]int
	for i := range ts {
		if math.Abs(l.at(ts[i])-cs[i]) > 1.5 {
			continue
		}
		x, y := int(cs[i]), int(ts[i])
		reach := sideReach
		if out < 0 {
			reach = min(reach, x)
		} else {
			reach = min(reach, e.w-1-x)
		}
		if reach < 3 {
			continue
		}
		o = append(o, e.colourAt(x+out*reach, y))
		in = append(in, e.colourAt(x-out*sideReach, y))
	}
	return medianColour(o), medianColour(in)
}

// sideStrength is the median peak colour step across a side edge over the row scans that lie on it.
func (e *edgeScan) sideStrength(l line, ts, cs []float64) int {
	var v []int
	for i := range ts {
		if math.Abs(l.at(ts[i])-cs[i]) <= 1.5 {
			// The step's peak, a little inside the edge.
			m := 0
			for x := max(int(cs[i])-3, 2); x <= min(int(cs[i])+3, e.w-3); x++ {
				m = max(m, e.gx(x, int(ts[i])))
			}
			v = append(v, m)
		}
	}
	if len(v) == 0 {
		return 255
	}
	sort.Ints(v)
	return v[len(v)/2]
}

// sideReach is how far from a side edge (pixels) the colours either side of it are taken: past
// a drawn card's shadow or antialiased rim.
const sideReach = 8

// sideReachesTop reports whether a side edge (x = l.a·y + l.b) goes on to the frame's top rows:
// a step of half the edge's strength within a pixel of it in rows 1 to 3.
func (e *edgeScan) sideReachesTop(l line, strength int) bool {
	k := 0
	for y := 1; y <= 3; y++ {
		x0 := int(math.Round(l.at(float64(y))))
		m := 0
		for x := max(x0-2, 3); x <= min(x0+2, e.w-4); x++ {
			m = max(m, e.gx(x, y))
		}
		if 2*m >= strength {
			k++
		}
	}
	return k >= 2
}

// coveredCols counts the columns scanned (at xs) at which the line top lies inside the frame.
func coveredCols(top line, xs []float64) int {
	k := 0
	for _, x := range xs {
		if top.at(x) >= 3 {
			k++
		}
	}
	return k
}

// medianColour is the per-channel median of colours.
func medianColour(cs [][3]int) [3]int {
	var out [3]int
	if len(cs) == 0 {
		return out
	}
	v := make([]int, len(cs))
	for c := range out {
		for i := range cs {
			v[i] = cs[i][c]
		}
		sort.Ints(v)
		out[c] = v[len(v)/2]
	}
	return out
}

// minCornerDrop is how far (pixels) below its top edge a card's side edge begins at the least:
// a card's corners are rounded, and its sides run straight only below the curve (less a little,
// for a corner so tight that the curve's end meets the line, seen every third row).
const minCornerDrop = -2

// minSideSamples and minTopSamples are the fewest row (column) scans that must agree on a side
// (the top) edge.
const minSideSamples, minTopSamples = 6, 5

// side is one straight stretch of a card's outline, as a line through two points.
type side struct {
	p, q   [2]float64
	length float64
	angle  float64 // direction in [0, π)
}

// findTableCard finds the largest card in a table-camera frame and returns its candidate poses
// with the card's long side vertical (one end up; the caller tries the other end too). The card
// may run off the frame's edge: its outline is fitted with straight sides, a side the frame hides
// is put back from the card's shape (aspect, its length over its width, from the profile, 0 for
// unknown), and when the shape leaves it open which way the card lies both ways are returned.
func findTableCard(blurred gocv.Mat, bandW int, aspect float64) ([]pose, error) {
	mask, err := cardMask(blurred)
	if err != nil {
		return nil, err
	}
	defer mask.Close()
	contours := gocv.FindContours(mask, gocv.RetrievalExternal, gocv.ChainApproxNone)
	defer contours.Close()
	fw, fh := blurred.Cols(), blurred.Rows()
	frameArea := float64(fw * fh)
	best, bestArea := -1, 0.0
	for i := 0; i < contours.Size(); i++ {
		area := gocv.ContourArea(contours.At(i))
		if area >= frameArea*0.01 && area <= frameArea*0.7 && area > bestArea {
			best, bestArea = i, area
		}
	}
	if best < 0 {
		return nil, errors.New("no card found on the table")
	}
	// A card is convex: its outline is the hull of what stands out, whatever of its drawing
	// happens to match the felt (a notch where a figure meets the border, a hole inside).
	outline, err := convexOutline(contours.At(best), fw, fh)
	if err != nil {
		return nil, err
	}
	defer outline.Close()
	sides := outlineSides(outline.At(0), fw, fh)
	if len(sides) < 2 {
		return nil, errors.New("no card outline on the table")
	}
	// Two families of sides: along the longest side, and across it.
	ref := sides[0].angle
	var along, across []side
	for _, sd := range sides {
		d := angleDiff(sd.angle, ref)
		switch {
		case d < 0.2:
			along = append(along, sd)
		case d > math.Pi/2-0.45:
			across = append(across, sd)
		}
	}
	a := distinctSides(along)
	c := distinctSides(across)
	if len(a) == 0 || len(c) == 0 {
		return nil, errors.New("only part of a card is on the table camera's view")
	}
	if aspect <= 1 {
		aspect = 1.4
	}
	var quads [][4][2]float64
	switch {
	case len(a) == 2 && len(c) == 2:
		quads = append(quads, corners(a[0], c[0], a[1], c[1]))
	case len(a) == 2 && len(c) == 1:
		quads = completeQuads(a, c[0], aspect)
	case len(a) == 1 && len(c) == 2:
		quads = completeQuads(c, a[0], aspect)
	default:
		return nil, errors.New("only a corner of a card is on the table camera's view")
	}
	var poses []pose
	for _, q := range quads {
		p, ok := quadPose(q, bandW, aspect)
		if ok {
			poses = append(poses, p)
		}
	}
	if len(poses) == 0 {
		return nil, errors.New("the shape found is not a card")
	}
	return poses, nil
}

// convexOutline redraws a contour as its convex hull, filled in a fw x fh mask, and returns the
// hull's own dense outline (the caller closes it).
func convexOutline(c gocv.PointVector, fw, fh int) (gocv.PointsVector, error) {
	hull := gocv.NewMat()
	defer hull.Close()
	gocv.ConvexHull(c, &hull, true, false)
	pts := c.ToPoints()
	var poly []image.Point
	for i := 0; i < hull.Rows(); i++ {
		k := int(hull.GetIntAt(i, 0))
		if k >= 0 && k < len(pts) {
			poly = append(poly, pts[k])
		}
	}
	if len(poly) < 3 {
		return gocv.PointsVector{}, errors.New("no card outline on the table")
	}
	mask := gocv.NewMatWithSize(fh, fw, gocv.MatTypeCV8U)
	defer mask.Close()
	pv := gocv.NewPointsVectorFromPoints([][]image.Point{poly})
	defer pv.Close()
	gocv.FillPoly(&mask, pv, color.RGBA{255, 255, 255, 0})
	out := gocv.FindContours(mask, gocv.RetrievalExternal, gocv.ChainApproxNone)
	if out.Size() == 0 {
		out.Close()
		return gocv.PointsVector{}, errors.New("no card outline on the table")
	}
	return out, nil
}

// cardMask separates what lies on the felt from the felt: the felt is the frame's median colour,
// and a pixel belongs to a card when its colour is farther from it than the felt's own colours
// are.
func cardMask(blurred gocv.Mat) (gocv.Mat, error) {
	px, err := blurred.DataPtrUint8()
	if err != nil {
		return gocv.NewMat(), errors.New("frame is not 8-bit colour")
	}
	n := blurred.Rows() * blurred.Cols()
	var hist [3][256]int
	for i := 0; i < n; i += 3 {
		for c := 0; c < 3; c++ {
			hist[c][px[i*3+c]]++
		}
	}
	var med [3]int
	for c := 0; c < 3; c++ {
		acc, half := 0, (n+2)/3/2
		for v := 0; v < 256; v++ {
			acc += hist[c][v]
			if acc >= half {
				med[c] = v
				break
			}
		}
	}
	d := make([]byte, n)
	for i := 0; i < n; i++ {
		m := 0
		for c := 0; c < 3; c++ {
			x := int(px[i*3+c]) - med[c]
			if x < 0 {
				x = -x
			}
			m = max(m, x)
		}
		d[i] = byte(m)
	}
	// The felt's own spread of distances (shading, grain) from their median and upper quartile:
	// a card stands out by several times that. (Otsu's split between two modes would cut a
	// colourful court card's figure from its white border.)
	var dh [256]int
	for _, v := range d {
		dh[v]++
	}
	pct := func(q float64) int {
		acc := 0
		for v, c := range dh {
			acc += c
			if float64(acc) >= q*float64(n) {
				return v
			}
		}
		return 255
	}
	p50, p75 := pct(0.5), pct(0.75)
	t := float64(min(max(p50+4*(p75-p50), 25), 80))
	dist, err := gocv.NewMatFromBytes(blurred.Rows(), blurred.Cols(), gocv.MatTypeCV8U, d)
	if err != nil {
		return gocv.NewMat(), err
	}
	defer dist.Close()
	mask := gocv.NewMat()
	gocv.Threshold(dist, &mask, float32(t), 255, gocv.ThresholdBinary)
	k := gocv.GetStructuringElement(gocv.MorphEllipse, image.Pt(5, 5))
	defer k.Close()
	gocv.MorphologyEx(mask, &mask, gocv.MorphOpen, k)
	gocv.MorphologyEx(mask, &mask, gocv.MorphClose, k)
	return mask, nil
}

// outlineSides splits a contour into straight sides, leaving out what runs along the frame's
// edge, longest first. Each side is a least-squares line through the contour points of its
// middle part, away from the card's rounded corners.
func outlineSides(c gocv.PointVector, fw, fh int) []side {
	all := c.ToPoints()
	peri := gocv.ArcLength(c, true)
	approx := gocv.ApproxPolyDP(c, 0.01*peri, true)
	defer approx.Close()
	pts := approx.ToPoints()
	// Where each vertex lies on the contour.
	idx := make([]int, len(pts))
	next := 0
	for i, p := range pts {
		for k := 0; k < len(all); k++ {
			j := (next + k) % len(all)
			if all[j] == p {
				idx[i], next = j, j
				break
			}
		}
	}
	onBorder := func(p image.Point) bool {
		return p.X <= 3 || p.Y <= 3 || p.X >= fw-4 || p.Y >= fh-4
	}
	var out []side
	for i := range pts {
		p, q := pts[i], pts[(i+1)%len(pts)]
		// A stretch along the frame's edge is not the card's. One from edge to edge across a
		// corner of the frame is (a card running off two sides of the view).
		if onBorder(p) && onBorder(q) && onBorder(image.Pt((p.X+q.X)/2, (p.Y+q.Y)/2)) {
			continue
		}
		l := dist(p, q)
		if l < peri*0.04 {
			continue
		}
		i0, i1 := idx[i], idx[(i+1)%len(pts)]
		if i1 < i0 {
			i1 += len(all)
		}
		n := i1 - i0
		var xs, ys []float64
		for k := i0 + n/6; k <= i1-n/6; k++ {
			pt := all[k%len(all)]
			if onBorder(pt) {
				continue
			}
			xs = append(xs, float64(pt.X))
			ys = append(ys, float64(pt.Y))
		}
		sd, ok := fitSide(xs, ys)
		if !ok {
			continue
		}
		out = append(out, sd)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].length > out[j].length })
	return out
}

// fitSide fits a line through points by total least squares and returns it as a side spanning
// the points.
func fitSide(xs, ys []float64) (side, bool) {
	n := float64(len(xs))
	if n < 5 {
		return side{}, false
	}
	var mx, my float64
	for i := range xs {
		mx += xs[i] / n
		my += ys[i] / n
	}
	var sxx, syy, sxy float64
	for i := range xs {
		dx, dy := xs[i]-mx, ys[i]-my
		sxx += dx * dx
		syy += dy * dy
		sxy += dx * dy
	}
	ang := 0.5 * math.Atan2(2*sxy, sxx-syy) // direction of largest spread
	ux, uy := math.Cos(ang), math.Sin(ang)
	lo, hi := math.Inf(1), math.Inf(-1)
	for i := range xs {
		t := (xs[i]-mx)*ux + (ys[i]-my)*uy
		lo, hi = math.Min(lo, t), math.Max(hi, t)
	}
	if ang < 0 {
		ang += math.Pi
	}
	return side{p: [2]float64{mx + lo*ux, my + lo*uy}, q: [2]float64{mx + hi*ux, my + hi*uy}, length: (hi - lo) * 1.5, angle: ang}, true
}

func angleDiff(a, b float64) float64 {
	d := math.Abs(a - b)
	if d > math.Pi/2 {
		d = math.Pi - d
	}
	return d
}

// distinctSides keeps, of roughly parallel sides, one per line (the longest), and at most the
// two farthest apart.
func distinctSides(ss []side) []side {
	var out []side
	for _, s := range ss {
		dup := false
		for _, o := range out {
			if lineDist(o, s.p) < 12 && lineDist(o, s.q) < 12 {
				dup = true
				break
			}
		}
		if !dup {
			out = append(out, s)
		}
	}
	if len(out) > 2 {
		// Keep the pair farthest apart.
		bi, bj, bd := 0, 1, -1.0
		for i := range out {
			for j := i + 1; j < len(out); j++ {
				if d := lineDist(out[i], midpoint(out[j])); d > bd {
					bi, bj, bd = i, j, d
				}
			}
		}
		out = []side{out[bi], out[bj]}
	}
	return out
}

func midpoint(s side) [2]float64 { return [2]float64{(s.p[0] + s.q[0]) / 2, (s.p[1] + s.q[1]) / 2} }

// lineDist is the distance from point x to the line through side s.
func lineDist(s side, x [2]float64) float64 {
	dx, dy := s.q[0]-s.p[0], s.q[1]-s.p[1]
	l := math.Hypot(dx, dy)
	if l == 0 {
		return math.Hypot(x[0]-s.p[0], x[1]-s.p[1])
	}
	return math.Abs(dy*(x[0]-s.p[0])-dx*(x[1]-s.p[1])) / l
}

// intersect returns where the lines through a and b cross.
func intersect(a, b side) ([2]float64, bool) {
	x1, y1, x2, y2 := a.p[0], a.p[1], a.q[0], a.q[1]
	x3, y3, x4, y4 := b.p[0], b.p[1], b.q[0], b.q[1]
	d := (x1-x2)*(y3-y4) - (y1-y2)*(x3-x4)
	if math.Abs(d) < 1e-9 {
		return [2]float64{}, false
	}
	t := ((x1-x3)*(y3-y4) - (y1-y3)*(x3-x4)) / d
	return [2]float64{x1 + t*(x2-x1), y1 + t*(y2-y1)}, true
}

// corners returns the quadrilateral bounded by four sides taken around it.
func corners(s0, s1, s2, s3 side) [4][2]float64 {
	var q [4][2]float64
	ss := [4]side{s0, s1, s2, s3}
	for i := range ss {
		q[i], _ = intersect(ss[i], ss[(i+1)%4])
	}
	return q
}

// completeQuads puts back the side the frame hides: opposite the one side seen across the two
// parallel sides, at the card's length or its width from it (both when the visible part does
// not tell which).
func completeQuads(pair []side, one side, aspect float64) [][4][2]float64 {
	sep := lineDist(pair[0], midpoint(pair[1]))
	// How far the parallel sides reach from the side seen.
	reach := 0.0
	for _, s := range pair {
		reach = math.Max(reach, math.Max(lineDist(one, s.p), lineDist(one, s.q)))
	}
	var out [][4][2]float64
	for _, d := range []float64{sep * aspect, sep / aspect} {
		if reach > d*1.08 {
			continue // the card is seen to reach farther than this
		}
		// Move the seen side by d, away from where the parallel sides reach.
		dx, dy := one.q[0]-one.p[0], one.q[1]-one.p[1]
		l := math.Hypot(dx, dy)
		nx, ny := -dy/l, dx/l
		m := midpoint(pair[0])
		if (m[0]-one.p[0])*nx+(m[1]-one.p[1])*ny < 0 {
			nx, ny = -nx, -ny
		}
		far := side{p: [2]float64{one.p[0] + nx*d, one.p[1] + ny*d}, q: [2]float64{one.q[0] + nx*d, one.q[1] + ny*d}}
		out = append(out, corners(pair[0], one, pair[1], far))
	}
	return out
}

// quadPose maps the band onto a card quadrilateral with its long side vertical.
func quadPose(q [4][2]float64, bandW int, aspect float64) (pose, bool) {
	d := func(i, j int) float64 { return math.Hypot(q[i][0]-q[j][0], q[i][1]-q[j][1]) }
	// Order the corners so that q[0]→q[1] is a short side and the quadrilateral runs clockwise
	// on screen (x right, y down), which puts the card face up.
	if d(0, 1) > d(1, 2) {
		q = [4][2]float64{q[1], q[2], q[3], q[0]}
	}
	cross := (q[1][0]-q[0][0])*(q[2][1]-q[1][1]) - (q[1][1]-q[0][1])*(q[2][0]-q[1][0])
	if cross < 0 {
		q = [4][2]float64{q[1], q[0], q[3], q[2]}
	}
	short := (d(0, 1) + d(2, 3)) / 2
	long := (d(1, 2) + d(3, 0)) / 2
	if short < 20 || long/short < 1.1 || long/short > 2 {
		return pose{}, false
	}
	length := aspect * float64(bandW)
	src := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{{X: 0, Y: 0}, {X: float32(bandW), Y: 0}, {X: float32(bandW), Y: float32(length)}, {X: 0, Y: float32(length)}})
	defer src.Close()
	dst := gocv.NewPoint2fVectorFromPoints([]gocv.Point2f{
		{X: float32(q[0][0]), Y: float32(q[0][1])}, {X: float32(q[1][0]), Y: float32(q[1][1])},
		{X: float32(q[2][0]), Y: float32(q[2][1])}, {X: float32(q[3][0]), Y: float32(q[3][1])}})
	defer dst.Close()
	m := gocv.GetPerspectiveTransform2f(src, dst)
	defer m.Close()
	var p pose
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			p.h[i][j] = m.GetDoubleAt(i, j)
		}
	}
	p.widthPx, p.fit = short, 1
	return p, true
}

func dist(a, b image.Point) float64 { return math.Hypot(float64(a.X-b.X), float64(a.Y-b.Y)) }
