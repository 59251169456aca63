package cv

import (
	"errors"
	"image"
	"math"
	"slices"
	"sort"

	"gocv.io/x/gocv"
)

// A table camera, or a technician's photograph, shows a whole card anywhere in the frame, at any
// rotation, with some perspective, on a dark felt or a light table, under uneven light. The card's
// outline is found from edges: the colour gradient's strong points (Canny, its thresholds taken
// from the frame's own gradients), closed into outlines; the outline that is most like a card
// (four straight sides, a card's proportions, the largest) gives four lines, each fitted to the
// edge points along one side, and their corners (where the lines cross: a card's corners are
// rounded) map the card onto card coordinates.

// tableFinder holds the Mats of the table outline search; it is reused between frames.
type tableFinder struct {
	blur, gx, gy, m, mag, bin gocv.Mat
	magPx                     []float32
	blurPx                    []uint8
	stack                     []int32
	w, h                      int
}

func newTableFinder() *tableFinder {
	return &tableFinder{blur: gocv.NewMat(), gx: gocv.NewMat(), gy: gocv.NewMat(), m: gocv.NewMat(), mag: gocv.NewMat(), bin: gocv.NewMat()}
}

func (t *tableFinder) Close() {
	for _, m := range []*gocv.Mat{&t.blur, &t.gx, &t.gy, &t.m, &t.mag, &t.bin} {
		m.Close()
	}
}

// tableOutline is what the search found, for the trace.
type tableOutline struct {
	corners    [4]point
	candidates int     // outlines of a card's shape looked at
	thr        float32 // the gradient taken as an edge
	fit        float64 // the share of each side's edge points off its line
	whole      bool    // the card's four corners are in the frame
}

// Card outline acceptance: a card covers at least minCardArea of the frame, its sides' ratio
// is within [minAspect, maxAspect], and its outline fills at least minFill of the four-sided shape.
// An outline of more than maxCardArea is the frame's own sides.
const (
	minCardArea = 0.01
	maxCardArea = 0.9
	cornerSlack = 0.06 // of the card's width: about its corners' radius
	minAspect   = 1.15
	maxAspect   = 1.85
	minFill     = 0.85
)

// gradient fills t.mag with the largest of the three channels' gradient magnitudes: a white card
// on a light grey table differs little in brightness, more in colour, and its edge tells it apart.
func (t *tableFinder) gradient(frame gocv.Mat) error {
	gocv.GaussianBlur(frame, &t.blur, image.Pt(0, 0), 1.2, 1.2, gocv.BorderReplicate)
	chans := gocv.Split(t.blur)
	defer func() {
		for _, c := range chans {
			c.Close()
		}
	}()
	for i, c := range chans {
		gocv.Sobel(c, &t.gx, gocv.MatTypeCV32F, 1, 0, 3, 0.125, 0, gocv.BorderReplicate)
		gocv.Sobel(c, &t.gy, gocv.MatTypeCV32F, 0, 1, 3, 0.125, 0, gocv.BorderReplicate)
		if i == 0 {
			gocv.Magnitude(t.gx, t.gy, &t.mag)
		} else {
			gocv.Magnitude(t.gx, t.gy, &t.m)
			gocv.Max(t.mag, t.m, &t.mag)
		}
	}
	var err error
	t.magPx, err = t.mag.DataPtrFloat32()
	if err != nil {
		return err
	}
	t.blurPx, err = t.blur.DataPtrUint8()
	t.w, t.h = frame.Cols(), frame.Rows()
	return err
}

// findTable finds the card in a table frame (8-bit BGR).
func (t *tableFinder) findTable(frame gocv.Mat) (pose, tableOutline, error) {
	var out tableOutline
	if err := t.gradient(frame); err != nil {
		return pose{}, out, err
	}
	w, h := t.w, t.h
	// The threshold from the frame's own gradients: the felt's texture is most of the frame,
	// the card's outline and ink a small part of it.
	sample := make([]float32, 0, len(t.magPx)/16+1)
	for i := 0; i < len(t.magPx); i += 16 {
		sample = append(sample, t.magPx[i])
	}
	slices.Sort(sample)
	base := max(4*sample[len(sample)/2], sample[len(sample)*85/100], minGradient)
	// The felt's texture or a light table's shading can close the card's outline into a larger
	// shape at the frame's own threshold: the card's edge is the frame's strongest step, so
	// the outline is looked for again at steeper thresholds until one is a card's.
	var first error
	for _, k := range thresholdLadder {
		p, o, err := t.outlineAt(base*k, w, h)
		if err == nil {
			return p, o, nil
		}
		if first == nil {
			first, out = err, o
		}
	}
	return pose{}, out, first
}

// thresholdLadder: the edge thresholds tried, as multiples of the frame's own.
var thresholdLadder = [...]float32{1, 2, 4}

// hysteresis is the edge's low threshold as a share of its high one (as in Canny's detector): a
// white card on a light table has stretches of edge fainter than the table's grain, and a point
// over the low threshold is an edge when it joins a point over the high one.
const hysteresis = 0.5

// alongSide: the pixels either side along a card's side over which its edge's gradient is
// averaged (refine).
const alongSide = 2

// edges fills t.bin with the edge points at threshold thr: the gradient's points over
// hysteresis×thr that are joined (8-connected) to a point over thr.
func (t *tableFinder) edges(thr float32) error {
	gocv.Threshold(t.mag, &t.m, thr*hysteresis, 255, gocv.ThresholdBinary)
	t.m.ConvertTo(&t.bin, gocv.MatTypeCV8U)
	bin, err := t.bin.DataPtrUint8()
	if err != nil {
		return err
	}
	// Flood from the strong points through the weak ones (marked 1 when reached).
	w, h := t.w, t.h
	st := t.stack[:0]
	for i, m := range t.magPx {
		if m > thr && bin[i] == 255 {
			bin[i] = 1
			st = append(st, int32(i))
			for len(st) > 0 {
				p := int(st[len(st)-1])
				st = st[:len(st)-1]
				x, y := p%w, p/w
				for dy := -1; dy <= 1; dy++ {
					for dx := -1; dx <= 1; dx++ {
						if nx, ny := x+dx, y+dy; nx >= 0 && ny >= 0 && nx < w && ny < h && bin[ny*w+nx] == 255 {
							bin[ny*w+nx] = 1
							st = append(st, int32(ny*w+nx))
						}
					}
				}
			}
		}
	}
	t.stack = st
	for i, b := range bin {
		if b == 1 {
			bin[i] = 255
		} else {
			bin[i] = 0
		}
	}
	return nil
}

// outlineAt looks for the card's outline among the edge points at threshold thr.
func (t *tableFinder) outlineAt(thr float32, w, h int) (pose, tableOutline, error) {
	out := tableOutline{thr: thr}
	if err := t.edges(thr); err != nil {
		return pose{}, out, err
	}
	k := gocv.GetStructuringElement(gocv.MorphRect, image.Pt(3, 3))
	defer k.Close()
	gocv.Dilate(t.bin, &t.bin, k)
	contours := gocv.FindContours(t.bin, gocv.RetrievalExternal, gocv.ChainApproxSimple)
	defer contours.Close()
	type cand struct {
		rect gocv.RotatedRect
		area float64
		hull []image.Point
	}
	var cands []cand
	fa := float64(w * h)
	for i := range contours.Size() {
		c := contours.At(i)
		r := gocv.MinAreaRect(c)
		rw, rh := float64(r.Width), float64(r.Height)
		if rw < rh {
			rw, rh = rh, rw
		}
		area := rw * rh
		if area < minCardArea*fa || area > maxCardArea*fa || rh < 8 || len(r.Points) != 4 {
			continue
		}
		if asp := rw / rh; asp < minAspect || asp > maxAspect {
			continue
		}
		// The fill is the outline's convex hull's: an outline broken where the card's corner
		// touches the frame's side, or its edge fades into a light table, still spans the card.
		hull := convexHull(c.ToPoints())
		if polygonArea(hull)/area < minFill {
			continue
		}
		cands = append(cands, cand{r, area, hull})
	}
	out.candidates = len(cands)
	if len(cands) == 0 {
		return pose{}, out, errors.Join(errNoCard, errors.New("no outline of a card's shape"))
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i].area > cands[j].area })
	// The card's corners: the outline's points nearest the corners of the rectangle round it.
	// (A card seen in perspective is not a rectangle, and the rectangle round it turns away
	// from its sides.)
	var rc [4]point
	for i, p := range cands[0].rect.Points {
		rp, bd := point{float64(p.X), float64(p.Y)}, math.Inf(1)
		for _, h := range cands[0].hull {
			if hp := (point{float64(h.X), float64(h.Y)}); hp.dist(rp) < bd {
				rc[i], bd = hp, hp.dist(rp)
			}
		}
	}
	q, fit, ok := t.refine(rc, min(minGradient, thr*hysteresis))
	if !ok {
		return pose{}, out, errors.Join(errNoCard, errors.New("the outline's sides are not straight"))
	}
	out.fit = fit
	q = orderCorners(q)
	out.corners = q
	// A corner may be off the frame by a little: a card's corners are rounded, and its index
	// stands in from them. A card cut by the frame's edge is read from what the frame shows of
	// it (the description keeps the rows wholly in the frame) when one of its ends, an index,
	// is in; calibration wants the whole card.
	slack := cornerSlack * min(q[0].dist(q[1]), q[1].dist(q[2]))
	in := func(c point) bool {
		return c.x >= -slack && c.y >= -slack && c.x <= float64(w)+slack && c.y <= float64(h)+slack
	}
	out.whole = in(q[0]) && in(q[1]) && in(q[2]) && in(q[3])
	if !(in(q[0]) && in(q[1])) && !(in(q[2]) && in(q[3])) {
		return pose{}, out, errors.Join(errNoCard, errors.New("neither end of the card is wholly in the frame"))
	}
	p, ok := quadPose(q)
	if !ok {
		return pose{}, out, errors.Join(errNoCard, errors.New("the outline is not a card's shape"))
	}
	return p, out, nil
}

// convexHull is the points' convex hull (Andrew's monotone chain), counter-clockwise.
func convexHull(pts []image.Point) []image.Point {
	if len(pts) < 3 {
		return pts
	}
	ps := slices.Clone(pts)
	slices.SortFunc(ps, func(a, b image.Point) int {
		if a.X != b.X {
			return a.X - b.X
		}
		return a.Y - b.Y
	})
	cross := func(o, a, b image.Point) int { return (a.X-o.X)*(b.Y-o.Y) - (a.Y-o.Y)*(b.X-o.X) }
	hull := make([]image.Point, 0, 2*len(ps))
	for _, p := range ps {
		for len(hull) >= 2 && cross(hull[len(hull)-2], hull[len(hull)-1], p) <= 0 {
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, p)
	}
	lower := len(hull) + 1
	for i := len(ps) - 2; i >= 0; i-- {
		p := ps[i]
		for len(hull) >= lower && cross(hull[len(hull)-2], hull[len(hull)-1], p) <= 0 {
			hull = hull[:len(hull)-1]
		}
		hull = append(hull, p)
	}
	return hull[:len(hull)-1]
}

// polygonArea is the area of the polygon with vertices pts (the shoelace formula).
func polygonArea(hull []image.Point) float64 {
	if len(hull) < 3 {
		return 0
	}
	a := 0
	for i := range hull {
		j := (i + 1) % len(hull)
		a += hull[i].X*hull[j].Y - hull[j].X*hull[i].Y
	}
	return math.Abs(float64(a)) / 2
}

// minGradient is the weakest gradient (8-bit levels a pixel) taken as an edge: under it is
// sensor noise.
const minGradient = 6

// outerStep: a step across a side, averaged along it, outside the steepest one found there is
// the card's edge when it is at least this share of that one's, outerGap pixels out at the
// least (a step's own width after the gradient's smoothing), and paper lies between (refine). A
// white card's edge on a light table steps about a quarter as steeply as a red print inside it;
// the felt's grain, averaged along a side, stays under a fifth of a card's step.
const (
	outerStep = 0.2
	outerGap  = 3.0
)

// lum is the blurred frame's brightness at p (the sum of its channels), 0 outside the frame.
func (t *tableFinder) lum(p point) float64 {
	x, y := int(math.Round(p.x)), int(math.Round(p.y))
	if x < 0 || y < 0 || x >= t.w || y >= t.h {
		return 0
	}
	i := (y*t.w + x) * 3
	return float64(t.blurPx[i]) + float64(t.blurPx[i+1]) + float64(t.blurPx[i+2])
}

// refine fits a line to each side of the quadrilateral q: along the side's middle (away from the
// rounded corners), the steepest point of the gradient across it (where it is over floor), to a
// fraction of a pixel; then the outermost step outside that line with paper between (a printed
// border's inner edge is not the card's).
func (t *tableFinder) refine(q [4]point, floor float32) ([4]point, float64, bool) {
	w, h := t.w, t.h
	mag := func(p point) float64 {
		x, y := int(math.Round(p.x)), int(math.Round(p.y))
		if x < 0 || y < 0 || x >= w || y >= h {
			return 0
		}
		return float64(t.magPx[y*w+x])
	}
	// The gradient across the side, averaged over a few pixels along it: the side is straight
	// and the table's grain is not, so the side's step stands out of a faint edge's noise.
	var u point
	across := func(p point) float64 {
		m := 0.0
		for j := -alongSide; j <= alongSide; j++ {
			m += mag(p.add(u.mul(float64(j))))
		}
		return m / (2*alongSide + 1)
	}
	var lines [4]line
	var off float64
	centre := lerp(lerp(q[0], q[1], 0.5), lerp(q[2], q[3], 0.5), 0.5)
	for s := range 4 {
		a, b := q[s], q[(s+1)%4]
		d := b.sub(a)
		n := d.len()
		if n < 8 {
			return q, 0, false
		}
		u = d.mul(1 / n)
		nor := u.perp()
		// Across the side outwards, away from the card's middle.
		if nor.x*(a.x+b.x-2*centre.x)+nor.y*(a.y+b.y-2*centre.y) < 0 {
			nor = nor.mul(-1)
		}
		vertical := math.Abs(d.y) > math.Abs(d.x)
		band := max(4, n*0.05)
		// peak is the steepest point across the side at c within [lo, hi] outwards, to a
		// fraction of a pixel (the vertex of the parabola through it and its neighbours).
		peak := func(c point, lo, hi float64) (float64, float64) {
			bo, bm := 0.0, 0.0
			for o := lo; o <= hi; o += 0.5 {
				if m := across(c.add(nor.mul(o))); m > bm {
					bo, bm = o, m
				}
			}
			m0, m2 := across(c.add(nor.mul(bo-1))), across(c.add(nor.mul(bo+1)))
			if den := m0 - 2*bm + m2; den < 0 {
				bo += 0.5 * (m0 - m2) / den
			}
			return bo, bm
		}
		// fit fits the side's line to each sample's steepest point within [lo, hi] of
		// base(t) (across the side, outwards).
		fit := func(base func(float64) float64, lo, hi float64) (line, int) {
			var ts, cs []float64
			for k := 0.12; k <= 0.88; k += 2 / n {
				t0 := k * n
				c := a.add(u.mul(t0)).add(nor.mul(base(t0)))
				bo, bm := peak(c, lo, hi)
				if bm < float64(floor) {
					continue
				}
				ts, cs = append(ts, t0), append(cs, base(t0)+bo)
			}
			if len(ts) < 6 {
				return line{}, len(ts)
			}
			return fitLine(ts, cs, 1.5, 0.2, max(6, len(ts)/2)), len(ts)
		}
		l, nts := fit(func(float64) float64 { return 0 }, -band, band)
		if l.n == 0 {
			return q, 0, false
		}
		// The card's edge is the outermost step of its outline: a bordered design's print just
		// inside it (a red border on white) may step as steeply, the felt outside it does not.
		// Averaged along the side, a step outside the line found is looked for.
		alongLine := func(f func(point) float64, o float64) float64 {
			m, k := 0.0, 0
			for t0 := l.t0; t0 <= l.t1; t0 += 2 {
				m += f(a.add(u.mul(t0)).add(nor.mul(l.at(t0) + o)))
				k++
			}
			return m / float64(max(k, 1))
		}
		step := func(o float64) float64 { return alongLine(across, o) }
		s0 := step(0)
		for o := band; o >= outerGap; o -= 0.5 {
			so := step(o)
			if so < outerStep*s0 || so < float64(floor) || so < step(o-0.5) || so < step(o+0.5) {
				continue
			}
			// Between the two steps is the card's margin when it is paper: lighter than the
			// print inside it and the table outside it. An outline drawn round the card (darker),
			// a shadow, the card's thickness seen at a slant or the edge's own blur are not.
			if mid := alongLine(t.lum, o/2); mid <= alongLine(t.lum, o+outerGap) || mid <= alongLine(t.lum, -outerGap) {
				break
			}
			{
				if lo, no := fit(l.at, o-outerGap/2, o+outerGap/2); lo.n > 0 {
					l, nts = lo, no
				}
				break
			}
		}
		// Back to the frame: the line through two of its points.
		p0 := a.add(u.mul(l.t0)).add(nor.mul(l.at(l.t0)))
		p1 := a.add(u.mul(l.t1)).add(nor.mul(l.at(l.t1)))
		lines[s] = lineThrough(p0, p1, vertical, l.n)
		off += float64(nts-l.n) / float64(nts)
	}
	var out [4]point
	for s := range 4 {
		p, ok := intersect(lines[(s+3)%4], lines[s])
		if !ok {
			return q, 0, false
		}
		out[s] = p
	}
	return out, off / 4, true
}

// lineThrough is the line through p and q, parametrized by y when vertical.
func lineThrough(p, q point, vertical bool, n int) line {
	if vertical {
		a := (q.x - p.x) / (q.y - p.y)
		return line{a: a, b: p.x - a*p.y, vertical: true, n: n, t0: min(p.y, q.y), t1: max(p.y, q.y)}
	}
	a := (q.y - p.y) / (q.x - p.x)
	return line{a: a, b: p.y - a*p.x, n: n, t0: min(p.x, q.x), t1: max(p.x, q.x)}
}

// orderCorners puts a card's corners in the order top-left, top-right, bottom-right,
// bottom-left with the top a short side, going round clockwise (in image coordinates).
func orderCorners(q [4]point) [4]point {
	// Clockwise in image coordinates (y down): the signed area is positive.
	area := 0.0
	for i := range 4 {
		area += q[i].cross(q[(i+1)%4])
	}
	if area < 0 {
		q[1], q[3] = q[3], q[1]
	}
	// Start at a corner whose next side is short.
	start := 0
	if q[0].dist(q[1]) > q[1].dist(q[2]) {
		start = 1
	}
	var o [4]point
	for i := range 4 {
		o[i] = q[(start+i)%4]
	}
	// Of the two short sides, the one nearer the top of the frame is the top.
	if mid(o[2], o[3]).y < mid(o[0], o[1]).y {
		o = [4]point{o[2], o[3], o[0], o[1]}
	}
	return o
}
