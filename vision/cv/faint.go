package cv

import (
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// Faint outlines. registerShoe finds a card's edges row by row and column by column, each scan
// on its own: an edge must step by minEdgeStep there. Dark plastic on dark felt steps by a few
// levels, under the felt's grain in any one scan, and is missed. Averaged along a straight line
// the grain cancels and the edge stays; faintOutline looks for a card's whole outline that way:
// two straight parallel sides about the calibrated card width apart, the card on the same side
// of the felt at both (darker or lighter), and a top edge square to them with felt above it
// where the sides end. A dealer's sleeve or hand in the window has no such outline.

// faintStep is how far apart (pixels) the two sides of a step are taken in faintOutline: past
// the blur of the frame and of the slide.
const faintStep = 3

// faintMin is the least mean step (levels of 255, channels averaged) along a faint edge, and
// faintNoise how many times the lines' own spread about zero it must be.
const (
	faintMin   = 1.5
	faintNoise = 4.0
)

// faintOutline finds a card by its outline's steps averaged along straight lines, for a frame in
// which registerShoe found none; widthPx is the calibrated card width in frame pixels. It
// returns the card's geometry as registerShoe would, both sides found, and whether a whole
// outline was found.
func faintOutline(blurred gocv.Mat, widthPx float64) (shoeGeom, bool) {
	var g shoeGeom
	w, h := blurred.Cols(), blurred.Rows()
	px, err := blurred.DataPtrUint8()
	if err != nil || len(px) < w*h*3 || w < 64 || h < 64 || widthPx <= 0 {
		return g, false
	}
	lum := make([]float32, w*h)
	for i := range lum {
		lum[i] = float32(int(px[3*i])+int(px[3*i+1])+int(px[3*i+2])) / 3
	}
	// Horizontal steps (across a side) and vertical steps (across the top).
	dx := make([]float32, w*h)
	dy := make([]float32, w*h)
	for y := faintStep; y < h-faintStep; y++ {
		for x := faintStep; x < w-faintStep; x++ {
			i := y*w + x
			dx[i] = lum[i+faintStep] - lum[i-faintStep]
			dy[i] = lum[i+faintStep*w] - lum[i-faintStep*w]
		}
	}
	// sideMean is the mean horizontal step along x = x0 + s·(y − h/2) over rows [y0, y1).
	sideMean := func(x0, s float64, y0, y1 int) (float64, int) {
		sum, n := 0.0, 0
		for y := max(y0, faintStep); y < min(y1, h-faintStep); y += 2 {
			x := int(math.Round(x0 + s*float64(y-h/2)))
			if x < faintStep || x >= w-faintStep {
				continue
			}
			sum += float64(dx[y*w+x])
			n++
		}
		if n == 0 {
			return 0, 0
		}
		return sum / float64(n), n
	}
	// The sides, in the lower half of the window, which a card in place covers.
	lo, hi := int(widthPx*widthLo), int(math.Ceil(widthPx*widthHi))
	type pair struct {
		xl, xr, s, score, sign, noise float64
	}
	var best pair
	prof := make([]float64, w)
	mags := make([]float64, 0, w)
	for s := -0.1; s <= 0.1001; s += 0.0125 {
		mags = mags[:0]
		for x0 := 0; x0 < w; x0++ {
			v, n := sideMean(float64(x0), s, h/2, h)
			if n < h/8 {
				v = 0
			}
			prof[x0] = v
			mags = append(mags, v)
		}
		// The lines' spread about their median (uneven light steps evenly): felt and a plain
		// card away from any edge.
		sort.Float64s(mags)
		med := mags[len(mags)/2]
		for i, v := range mags {
			mags[i] = math.Abs(v - med)
		}
		sort.Float64s(mags)
		noise := mags[len(mags)/2] * 1.4826
		for xl := faintStep + 1; xl < w-faintStep-1; xl++ {
			for d := lo; d <= hi && xl+d < w-faintStep-1; d++ {
				xr := xl + d
				// The card lies on the same side of the felt at both sides: the steps are
				// opposite going left to right.
				sc := min(prof[xl], -prof[xr])
				sign := 1.0
				if alt := min(-prof[xl], prof[xr]); alt > sc {
					sc, sign = alt, -1
				}
				if sc > best.score {
					best = pair{float64(xl), float64(xr), s, sc, sign, noise}
				}
			}
		}
	}
	if best.score < faintMin || best.score < faintNoise*best.noise {
		return g, false
	}
	// Each side at its own step's peak, and the slope that suits both best.
	peak := func(x0, s, sign float64) float64 {
		bx, bv := x0, -math.MaxFloat64
		for x := x0 - 4; x <= x0+4; x++ {
			if v, _ := sideMean(x, s, h/2, h); sign*v > bv {
				bx, bv = x, sign*v
			}
		}
		return bx
	}
	bestS, bestV := best.s, -math.MaxFloat64
	for s := best.s - 0.0125; s <= best.s+0.0125+1e-9; s += 0.0025 {
		xl, xr := peak(best.xl, s, best.sign), peak(best.xr, s, -best.sign)
		l, _ := sideMean(xl, s, h/2, h)
		r, _ := sideMean(xr, s, h/2, h)
		if v := best.sign * (l - r); v > bestV {
			bestS, bestV = s, v
		}
	}
	best.s = bestS
	best.xl, best.xr = peak(best.xl, bestS, best.sign), peak(best.xr, bestS, -best.sign)
	s, sign := best.s, best.sign
	// Each side steps along its whole length, not in one stretch of it: the lower half's three
	// parts each carry a good part of the mean.
	for _, x0 := range []float64{best.xl, best.xr} {
		all, _ := sideMean(x0, s, h/2, h)
		for k := 0; k < 3; k++ {
			part, _ := sideMean(x0, s, h/2+k*h/6, h/2+(k+1)*h/6)
			if part*all <= 0 || math.Abs(part) < math.Abs(all)/3 {
				return g, false
			}
		}
	}
	g.left = line{s, best.xl - s*float64(h/2)}
	g.right = line{s, best.xr - s*float64(h/2)}
	g.leftOK, g.rightOK = true, true
	g.theta = -math.Atan(s)
	slope := math.Tan(g.theta)
	// The top: the topmost line square to the sides, between them and away from the rounded
	// corners, that steps from the felt into the card as the sides do (with the same sign as
	// the left side), by half the sides' step at least.
	side := best.score
	inset := float64(w) / 12
	xc := (best.xl + best.xr) / 2
	topMean := func(y0 float64) float64 {
		sum, n := 0.0, 0
		for x := best.xl + inset; x < best.xr-inset; x += 2 {
			y := int(math.Round(y0 + slope*(x-xc)))
			xi := int(x)
			if y < faintStep || y >= h-faintStep || xi < 0 || xi >= w {
				continue
			}
			sum += float64(dy[y*w+xi])
			n++
		}
		if n < int(best.xr-best.xl)/6 {
			return 0
		}
		return sum / float64(n)
	}
	// Room above the top to see the felt there.
	const above = 10
	top := -1.0
	for y0 := above + faintStep; y0 < h/2; y0++ {
		v := sign * topMean(float64(y0))
		if v < side/2 || v < faintMin {
			continue
		}
		// The step's peak.
		for sign*topMean(float64(y0+1)) > v {
			y0++
			v = sign * topMean(float64(y0))
		}
		top = float64(y0)
		break
	}
	if top < 0 {
		return g, false
	}
	// Above the top the sides do not go on: felt lies either side of where they would run (a
	// line drawn on a card whose top is above the window has the card's sides going on past it).
	for k, x0 := range []float64{best.xl, best.xr} {
		yTop := top + slope*(x0+s*(top-float64(h/2))-xc)
		// Against the lines either side, which carry the felt's uneven light.
		up, n := sideMean(x0, s, 0, int(yTop)-4)
		base, nb := 0.0, 0
		for d := 8.0; d <= 16; d += 4 {
			for _, x := range []float64{x0 - d, x0 + d} {
				if v, m := sideMean(x, s, 0, int(yTop)-4); m > 0 {
					base += v
					nb++
				}
			}
		}
		if nb > 0 {
			base /= float64(nb)
		}
		// A side that goes on steps the same way above the top as below it.
		sideSign := sign
		if k == 1 {
			sideSign = -sign
		}
		// Too little above the top to tell is no outline either.
		if n < 3 || sideSign*(up-base) >= side/2 {
			return g, false
		}
	}
	g.top = line{slope, top - slope*xc}
	g.fit = 0.5
	return g, true
}
