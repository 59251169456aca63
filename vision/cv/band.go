package cv

import (
	"image"
	"image/color"
	"math"

	"gocv.io/x/gocv"
)

// Band geometry: the card's width spans bandW pixels, and a band covers the top bandH rows of the
// card face, which is what a shoe's reader window shows of it.
const (
	bandW = 128
	bandH = 128
)

// warpBand resamples the card's top band out of the frame into dst (bandW x bandH, 8-bit BGR) and
// returns the rows [top, bottom) that lie inside the frame. Rows outside are filled by repeating
// the frame's border and must not be compared.
func warpBand(frame gocv.Mat, p *pose, w, h int, dst *gocv.Mat) (top, bottom int) {
	m := gocv.NewMatWithSize(3, 3, gocv.MatTypeCV64F)
	defer m.Close()
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			m.SetDoubleAt(i, j, p.h[i][j])
		}
	}
	gocv.WarpPerspectiveWithParams(frame, dst, m, image.Pt(w, h), gocv.InterpolationLinear|gocv.WarpInverseMap, gocv.BorderReplicate, color.RGBA{})
	fw, fh := float64(frame.Cols()-1), float64(frame.Rows()-1)
	inside := func(u, v float64) bool {
		x, y := p.apply(u, v)
		return x >= 0 && y >= 0 && x <= fw && y <= fh
	}
	// A row counts when its middle and both ends, a little in from the card's edges, are inside.
	in := func(v int) bool {
		fv := float64(v)
		return inside(float64(w)*0.04, fv) && inside(float64(w)*0.96, fv) && inside(float64(w)/2, fv)
	}
	top = 0
	for top < h && !in(top) {
		top++
	}
	bottom = top
	for bottom < h && in(bottom) {
		bottom++
	}
	return top, bottom
}

// indexScale is how many times finer than the band the index area is resampled.
const indexScale = 2

// areaPadX and areaPadY are the margins (band pixels) of the index area around the windows:
// room for the shift searches, deeper along the card, where a design whose two ends are not
// drawn alike places its other end's index further from the card's top.
const areaPadX, areaPadY = 6, 10

// indexArea is the part of the band the index patch covers: the rank and suit windows with a
// margin for the shift search.
func indexArea(rankWin, suitWin rect) rect {
	a := rankWin
	if suitWin.area() > 0 {
		a = rect{min(a.x0, suitWin.x0), min(a.y0, suitWin.y0), max(a.x1, suitWin.x1), max(a.y1, suitWin.y1)}
	}
	return rect{max(0, a.x0-areaPadX), max(0, a.y0-areaPadY), min(bandW, a.x1+areaPadX), min(bandH, a.y1+areaPadY)}
}

// warpIndex resamples the band's area at indexScale times its resolution from the frame into dst.
func warpIndex(frame gocv.Mat, p *pose, area rect, dst *gocv.Mat) {
	k := 1.0 / indexScale
	// patch (x, y) -> band (x0 + x·k, y0 + y·k) -> frame by p.
	var q pose
	for i := 0; i < 3; i++ {
		q.h[i][0] = p.h[i][0] * k
		q.h[i][1] = p.h[i][1] * k
		q.h[i][2] = p.h[i][0]*float64(area.x0) + p.h[i][1]*float64(area.y0) + p.h[i][2]
	}
	warpBand(frame, &q, (area.x1-area.x0)*indexScale, (area.y1-area.y0)*indexScale, dst)
}

// feat is a band as features: three float planes (the colour channels, each divided by the
// card's background level in that channel so that white balance and exposure drop out), and how
// many rows are valid.
type feat struct {
	w, h       int
	top, valid int // rows [top, valid) are inside the frame
	// c holds the three colour planes, then a brightness plane: the darkest of the three, so
	// that red and black ink look alike.
	c [4][]float32
	// bg is each colour channel's background level (0…255) that its plane was divided by.
	bg [3]float32
	// rowS and rowSS are each row's sum and sum of squares over the three colour planes, so
	// that whole-row correlations need only their dot products.
	rowS, rowSS []float64
}

// rowSums fills rowS and rowSS.
func (f *feat) rowSums() {
	f.rowS = make([]float64, f.h)
	f.rowSS = make([]float64, f.h)
	for c := 0; c < 3; c++ {
		p := f.c[c]
		for y := 0; y < f.h; y++ {
			var s, ss float32
			for _, v := range p[y*f.w : (y+1)*f.w] {
				s += v
				ss += v * v
			}
			f.rowS[y] += float64(s)
			f.rowSS[y] += float64(ss)
		}
	}
}

// nccRows is ncc over whole rows [y0, y1) of the colour planes, unshifted, from the row sums.
func nccRows(a, b *feat, y0, y1 int) float64 { return nccRowsShift(a, b, y0, y1, 0) }

// nccRowsShift is nccRows with b's rows d below a's: a's rows [y0, y1) against b's [y0+d, y1+d).
func nccRowsShift(a, b *feat, y0, y1, d int) float64 {
	y0, y1 = max(y0, a.top, b.top-d), min(y1, a.valid, b.valid-d)
	var sa, sb, saa, sbb, sab float64
	for y := y0; y < y1; y++ {
		yb := y + d
		sa += a.rowS[y]
		saa += a.rowSS[y]
		sb += b.rowS[yb]
		sbb += b.rowSS[yb]
		for c := 0; c < 3; c++ {
			sab += float64(dot32(a.c[c][y*a.w:(y+1)*a.w], b.c[c][yb*b.w:(yb+1)*b.w], 1))
		}
	}
	return corr(sa, sb, saa, sbb, sab, 3*a.w*max(0, y1-y0))
}

// Plane selections for ncc.
const (
	colour = 0 // planes 0-2
	bright = 3 // plane 3
)

// newFeat converts an 8-bit BGR band into features at full resolution (scale 1) or halved
// (scale 2, averaging 2x2 blocks).
//
// A whole band (edges set) has its rim blanked (see blankRim) before the high-pass filter. The
// brightness plane is made only when bright is set.
func newFeat(band gocv.Mat, top, valid, scale, hp int, edges, bright bool) feat {
	px, _ := band.DataPtrUint8()
	bw, bh := band.Cols(), band.Rows()
	f := feat{w: bw / scale, h: bh / scale, top: (top + scale - 1) / scale, valid: valid / scale}
	n := f.w * f.h
	for c := 0; c < 3; c++ {
		f.c[c] = make([]float32, n)
	}
	inv := 1 / float32(scale*scale)
	for y := 0; y < f.h; y++ {
		for x := 0; x < f.w; x++ {
			for c := 0; c < 3; c++ {
				var s float32
				for dy := 0; dy < scale; dy++ {
					for dx := 0; dx < scale; dx++ {
						s += float32(px[((y*scale+dy)*bw+x*scale+dx)*3+c])
					}
				}
				f.c[c][y*f.w+x] = s * inv
			}
		}
	}
	// Background level per channel: the 90th percentile over the valid rows, from a histogram.
	lo, hi := f.top*f.w, min(max(f.valid, f.top+1)*f.w, n)
	for c := 0; c < 3; c++ {
		var hist [256]int
		for _, v := range f.c[c][lo:hi] {
			hist[min(255, int(v))]++
		}
		bg := float32(255)
		acc, want := 0, (hi-lo)*9/10
		for v := 0; v < 256; v++ {
			acc += hist[v]
			if acc > want {
				bg = float32(v) + 0.5
				break
			}
		}
		if bg < 16 {
			bg = 16
		}
		f.bg[c] = bg
		k := 1 / bg
		for i := range f.c[c] {
			f.c[c][i] *= k
		}
	}
	if edges {
		blankRim(&f)
	}
	if bright {
		f.c[3] = make([]float32, n)
		for i := range f.c[3] {
			f.c[3][i] = min(f.c[0][i], f.c[1][i], f.c[2][i])
		}
	}
	if hp > 0 {
		for c := range f.c {
			if f.c[c] != nil {
				highPass(f.c[c], f.w, f.h, hp)
			}
		}
	}
	f.rowSums()
	return f
}

// cornerRadius is the rounded corner left out of band comparisons, and rimWidth the strip along
// the card's sides and top, as shares of the card's width.
const cornerRadius, rimWidth = 0.08, 0.025

// blankRim paints the band's rim, its two rounded top corners and a thin strip along its sides
// and top, with the card's background: the card's outline shows the felt there, a pixel more or
// less, on every card alike, and it would make any two look alike.
func blankRim(f *feat) {
	r := cornerRadius * float64(f.w)
	n := int(math.Ceil(r))
	m := int(math.Ceil(rimWidth * float64(f.w)))
	for y := 0; y < f.h; y++ {
		for x := 0; x < f.w/2; x++ {
			out := x < m || y < m
			if !out && x < n && y < n {
				dx, dy := r-float64(x)-0.5, r-float64(y)-0.5
				out = dx*dx+dy*dy > r*r
			}
			if !out {
				if x >= n {
					break
				}
				continue
			}
			for c := 0; c < 3; c++ {
				f.c[c][y*f.w+x] = 1
				f.c[c][y*f.w+f.w-1-x] = 1
			}
		}
	}
}

// highPass subtracts a local mean (two passes of a box filter of radius r, close to a Gaussian)
// from a plane: what is left is the card's drawing, without the slow shading of uneven light.
//
// The local mean is smooth, so it is computed on the plane shrunk by d (block means, d = r/4)
// and interpolated back: the same shading removed at a sixteenth of the cost.
func highPass(p []float32, w, h, r int) {
	d := max(1, r/4)
	sw, sh := (w+d-1)/d, (h+d-1)/d
	low := make([]float32, sw*sh)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			low[(y/d)*sw+x/d] += p[y*w+x]
		}
	}
	for y := 0; y < sh; y++ {
		for x := 0; x < sw; x++ {
			bh, bw := min(d, h-y*d), min(d, w-x*d)
			low[y*sw+x] /= float32(bh * bw)
		}
	}
	tmp := make([]float32, len(low))
	rs := max(1, r/d)
	for pass := 0; pass < 2; pass++ {
		boxH(low, tmp, sw, sh, rs)
		boxV(tmp, low, sw, sh, rs)
	}
	if d == 1 {
		for i := range p {
			p[i] -= low[i]
		}
		return
	}
	// Bilinear, block centres at (i+0.5)·d: each row of blocks is first interpolated across,
	// then each frame row between two of them.
	xa, xb := make([]int, w), make([]int, w)
	tx := make([]float32, w)
	for x := 0; x < w; x++ {
		fx := (float32(x)+0.5)/float32(d) - 0.5
		x0 := int(math.Floor(float64(fx)))
		tx[x] = fx - float32(x0)
		xa[x], xb[x] = clamp(x0, sw), clamp(x0+1, sw)
	}
	rows := make([]float32, sh*w)
	for y := 0; y < sh; y++ {
		lr, out := low[y*sw:(y+1)*sw], rows[y*w:(y+1)*w]
		for x := range out {
			out[x] = lr[xa[x]] + (lr[xb[x]]-lr[xa[x]])*tx[x]
		}
	}
	for y := 0; y < h; y++ {
		fy := (float32(y)+0.5)/float32(d) - 0.5
		y0 := int(math.Floor(float64(fy)))
		ty := fy - float32(y0)
		ra, rb := rows[clamp(y0, sh)*w:][:w], rows[clamp(y0+1, sh)*w:][:w]
		pr := p[y*w : (y+1)*w]
		for x := range pr {
			pr[x] -= ra[x] + (rb[x]-ra[x])*ty
		}
	}
}

func boxH(src, dst []float32, w, h, r int) {
	for y := 0; y < h; y++ {
		row := src[y*w : y*w+w]
		out := dst[y*w : y*w+w]
		var s float32
		for x := -r; x <= r; x++ {
			s += row[clamp(x, w)]
		}
		k := 1 / float32(2*r+1)
		for x := 0; x < w; x++ {
			out[x] = s * k
			s += row[clamp(x+r+1, w)] - row[clamp(x-r, w)]
		}
	}
}

func boxV(src, dst []float32, w, h, r int) {
	k := 1 / float32(2*r+1)
	for x := 0; x < w; x++ {
		var s float32
		for y := -r; y <= r; y++ {
			s += src[clamp(y, h)*w+x]
		}
		for y := 0; y < h; y++ {
			dst[y*w+x] = s * k
			s += src[clamp(y+r+1, h)*w+x] - src[clamp(y-r, h)*w+x]
		}
	}
}

func clamp(i, n int) int {
	if i < 0 {
		return 0
	}
	if i >= n {
		return n - 1
	}
	return i
}

// rect is [x0, x1) x [y0, y1) in a band's pixels.
type rect struct{ x0, y0, x1, y1 int }

func (r rect) area() int { return max(0, r.x1-r.x0) * max(0, r.y1-r.y0) }

// ncc is the normalized cross-correlation of a and b over r, all three channels together, with
// a read at (x+dx, y+dy). Pixels that fall outside a are skipped. It returns 0 when either side
// is flat (nothing to correlate).
func ncc(a, b *feat, planes int, r rect, dx, dy int) float64 {
	return nccPlanes(a, b.c[:], planes, b.w, r, dx, dy)
}

// nccPlanes is ncc against bare planes (w wide), such as a mean template.
func nccPlanes(a *feat, b [][]float32, planes, bw int, r rect, dx, dy int) float64 {
	var sa, sb, saa, sbb, sab float64
	n := 0
	c0, c1 := 0, 3
	if planes == bright {
		c0, c1 = 3, 4
	}
	for c := c0; c < c1; c++ {
		pa, pb := a.c[c], b[c]
		for y := r.y0; y < r.y1; y++ {
			ya := y + dy
			if ya < a.top || ya >= a.valid {
				continue
			}
			x0, x1 := max(r.x0, -dx), min(r.x1, a.w-dx)
			ra := pa[ya*a.w : ya*a.w+a.w]
			rb := pb[y*bw : y*bw+bw]
			var s1, s2, s11, s22, s12 float32
			for x := x0; x < x1; x++ {
				va, vb := ra[x+dx], rb[x]
				s1 += va
				s2 += vb
				s11 += va * va
				s22 += vb * vb
				s12 += va * vb
			}
			sa += float64(s1)
			sb += float64(s2)
			saa += float64(s11)
			sbb += float64(s22)
			sab += float64(s12)
			n += max(0, x1-x0)
		}
	}
	return corr(sa, sb, saa, sbb, sab, n)
}

// nccRot is ncc with a turned end for end: b's (x, y) is compared with a's (w-1-x, length-1-y),
// the same physical spot of a card seen from its other end.
func nccRot(a, b *feat, r rect, length int) float64 {
	if r.x0 == 0 && r.x1 == b.w && a.w == b.w && a.rowS != nil && b.rowS != nil {
		return nccRotRows(a, b, r.y0, r.y1, length)
	}
	var sa, sb, saa, sbb, sab float64
	n := 0
	for c := 0; c < 3; c++ {
		pa, pb := a.c[c], b.c[c]
		for y := r.y0; y < r.y1; y++ {
			ya := length - 1 - y
			if ya < a.top || ya >= a.valid {
				continue
			}
			ra := pa[ya*a.w : ya*a.w+a.w]
			rb := pb[y*b.w : y*b.w+b.w]
			var s1, s2, s11, s22, s12 float32
			for x := r.x0; x < r.x1; x++ {
				va, vb := ra[a.w-1-x], rb[x]
				s1 += va
				s2 += vb
				s11 += va * va
				s22 += vb * vb
				s12 += va * vb
			}
			sa += float64(s1)
			sb += float64(s2)
			saa += float64(s11)
			sbb += float64(s22)
			sab += float64(s12)
			n += r.x1 - r.x0
		}
	}
	return corr(sa, sb, saa, sbb, sab, n)
}

// nccRotRows is nccRot over whole rows, from the row sums.
func nccRotRows(a, b *feat, y0, y1, length int) float64 {
	var sa, sb, saa, sbb, sab float64
	n := 0
	w := a.w
	for y := y0; y < y1; y++ {
		ya := length - 1 - y
		if ya < a.top || ya >= a.valid {
			continue
		}
		sa += a.rowS[ya]
		saa += a.rowSS[ya]
		sb += b.rowS[y]
		sbb += b.rowSS[y]
		for c := 0; c < 3; c++ {
			sab += float64(dotRev32(a.c[c][ya*w:(ya+1)*w], b.c[c][y*w:(y+1)*w]))
		}
		n += 3 * w
	}
	return corr(sa, sb, saa, sbb, sab, n)
}

func corr(sa, sb, saa, sbb, sab float64, n int) float64 {
	if n < 16 {
		return 0
	}
	fn := float64(n)
	va := saa - sa*sa/fn
	vb := sbb - sb*sb/fn
	// A flat region (variance under 0.0004 per pixel, about 2% of the background level) has
	// nothing to correlate.
	if va < 4e-4*fn || vb < 4e-4*fn {
		return 0
	}
	return (sab - sa*sb/fn) / math.Sqrt(va*vb)
}
