package cv

import (
	"errors"
	"image"
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
	if n > 40 {
		step = n / 40
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
	errNoLeftEdge  = errors.New("no card edge on the left")
	errNoRightEdge = errors.New("no card edge on the right")
	errNoTopEdge   = errors.New("no card top edge")
	errCardSize    = errors.New("card too small or too large for this camera")
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

// shoeGeom is what registerShoe found.
type shoeGeom struct {
	pose
	left, right, top line
	rightOK          bool
	inliers          [3]int // left, right, top
	samples          [3]int
}

// registerShoe finds the card in a reader-window frame: its left, right and top edges (the card
// enters the window top first, either end, with a small rotation), and from them the card's
// top-left corner, its rotation and its width. minStep is the smallest colour step (0…255) that
// counts as an edge. bandW is the band's width in pixels.
func registerShoe(blurred gocv.Mat, minStep int, bandW int, knownWidthPx float64) (shoeGeom, error) {
	var g shoeGeom
	w, h := blurred.Cols(), blurred.Rows()
	px, err := blurred.DataPtrUint8()
	if err != nil || len(px) < w*h*3 || w < 32 || h < 32 {
		return g, errors.New("frame is not 8-bit colour")
	}
	e := edgeScan{w: w, h: h, px: px, row: make([]int, max(w, h))}
	var lt, lc, rt, rc []float64
	// Left and right edges: scan rows in the lower two thirds, where a card in the window is
	// surely present, from the outside in; the first strong step is the card's edge.
	for y := h / 3; y < h-2; y += 3 {
		mx := 0
		for x := 2; x < w-2; x++ {
			e.row[x] = e.gx(x, y)
			mx = max(mx, e.row[x])
		}
		th := max(minStep, mx*3/10)
		for x := 2; x < w/2; x++ {
			if e.row[x] >= th {
				for x+1 < w-2 && e.row[x+1] > e.row[x] {
					x++
				}
				lt, lc = append(lt, float64(y)), append(lc, float64(x))
				break
			}
		}
		for x := w - 3; x > w/2; x-- {
			if e.row[x] >= th {
				for x-1 > 2 && e.row[x-1] > e.row[x] {
					x--
				}
				rt, rc = append(rt, float64(y)), append(rc, float64(x))
				break
			}
		}
	}
	const maxSlope = 0.15 // about 8.5°
	g.samples = [3]int{len(lt), len(rt), 0}
	g.left, g.inliers[0] = fitLine(lt, lc, 1.5, maxSlope)
	if g.inliers[0] < max(6, len(lt)/3) {
		return g, errNoLeftEdge
	}
	g.right, g.inliers[1] = fitLine(rt, rc, 1.5, maxSlope)
	g.rightOK = g.inliers[1] >= max(6, len(rt)/3)
	// Top edge: scan columns between the side edges, away from the rounded corners.
	mid := float64(h) / 2
	x0 := int(g.left.at(mid)) + w/12
	x1 := w - 3
	if g.rightOK {
		x1 = int(g.right.at(mid)) - w/12
	} else if knownWidthPx > 0 {
		x1 = min(x1, int(g.left.at(mid)+knownWidthPx)-w/12)
	}
	var tt, tc []float64
	for x := max(x0, 2); x < min(x1, w-2); x += 3 {
		mx := 0
		for y := 2; y < h-2; y++ {
			e.row[y] = e.gy(x, y)
			mx = max(mx, e.row[y])
		}
		th := max(minStep, mx*3/10)
		for y := 2; y < h/2; y++ {
			if e.row[y] >= th {
				for y+1 < h-2 && e.row[y+1] > e.row[y] {
					y++
				}
				tt, tc = append(tt, float64(x)), append(tc, float64(y))
				break
			}
		}
	}
	g.samples[2] = len(tt)
	g.top, g.inliers[2] = fitLine(tt, tc, 1.5, maxSlope)
	if g.inliers[2] < max(5, len(tt)/3) {
		return g, errNoTopEdge
	}
	// Corner: x = left.a·y + left.b and y = top.a·x + top.b.
	cy := (g.top.a*g.left.b + g.top.b) / (1 - g.top.a*g.left.a)
	cx := g.left.at(cy)
	thTop := math.Atan(g.top.a)
	thLeft := -math.Atan(g.left.a)
	theta := (thTop + thLeft) / 2
	var width float64
	if g.rightOK {
		theta = (thTop + thLeft - math.Atan(g.right.a)) / 3
		y := cy + 0.5*float64(h-int(cy))
		width = (g.right.at(y) - g.left.at(y)) * math.Cos(theta)
	} else if knownWidthPx > 0 {
		width = knownWidthPx
	} else {
		return g, errNoRightEdge
	}
	if width < float64(w)/5 || width > float64(w)*1.2 {
		return g, errCardSize
	}
	s := width / float64(bandW)
	c, sn := math.Cos(theta), math.Sin(theta)
	g.h = [3][3]float64{{s * c, -s * sn, cx}, {s * sn, s * c, cy}, {0, 0, 1}}
	g.widthPx = width
	fits := []float64{float64(g.inliers[0]) / float64(len(lt)), float64(g.inliers[2]) / float64(len(tt))}
	if g.rightOK {
		fits = append(fits, float64(g.inliers[1])/float64(len(rt)))
	}
	sort.Float64s(fits)
	g.fit = fits[0]
	return g, nil
}

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
	sides := outlineSides(contours.At(best), fw, fh)
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
		if onBorder(p) && onBorder(q) {
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
