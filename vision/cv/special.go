package cv

import (
	"math"
	"sort"

	"gocv.io/x/gocv"
)

// edgeStats measures how much structure a blurred frame holds: the share of pixels whose colour
// step (as registerShoe measures it) reaches step, sampling every other pixel.
func edgeStats(blurred gocv.Mat, step int) (share float64, p999 int) {
	w, h := blurred.Cols(), blurred.Rows()
	px, err := blurred.DataPtrUint8()
	if err != nil {
		return 0, 0
	}
	e := edgeScan{w: w, h: h, px: px}
	var hist [256]int
	n, k := 0, 0
	for y := 3; y < h-3; y += 2 {
		for x := 3; x < w-3; x += 2 {
			g := max(e.gx(x, y), e.gy(x, y))
			hist[g]++
			n++
			if g >= step {
				k++
			}
		}
	}
	acc := 0
	for v := 255; v >= 0; v-- {
		acc += hist[v]
		if acc*1000 >= n {
			p999 = v
			break
		}
	}
	return float64(k) / float64(max(n, 1)), p999
}

// inkShare is the share of pixels in r (of a fine band) that stand out from their surroundings
// (from the mean over a 13x13 neighbourhood, by more than inkContrast of the background level in
// some channel): how much is drawn there. Smooth shading from uneven light does not count. A cut
// card's top is blank; a card's holds its index.
func inkShare(f *feat, r rect) float64 {
	r.y0 = max(r.y0, f.top)
	r.y1 = min(r.y1, f.valid)
	if r.area() == 0 {
		return 0
	}
	// A pixel is ink when it stands out by 15% of the brightest channel's background level, and
	// by at least 12 levels of 255, so that sensor noise on a dark card is not ink.
	maxBG := max(f.bg[0], f.bg[1], f.bg[2])
	level := max(0.15*maxBG, 12)
	ink := make([]bool, r.area())
	rw, rh := r.x1-r.x0, r.y1-r.y0
	sub := make([]float32, rw*rh)
	low := make([]float32, rw*rh)
	tmp := make([]float32, rw*rh)
	for c := 0; c < 3; c++ {
		for y := 0; y < rh; y++ {
			copy(sub[y*rw:(y+1)*rw], f.c[c][(r.y0+y)*f.w+r.x0:(r.y0+y)*f.w+r.x1])
		}
		boxH(sub, tmp, rw, rh, 6)
		boxV(tmp, low, rw, rh, 6)
		th := level / f.bg[c]
		for i, v := range sub {
			if d := v - low[i]; d > th || d < -th {
				ink[i] = true
			}
		}
	}
	n := 0
	for _, b := range ink {
		if b {
			n++
		}
	}
	return float64(n) / float64(len(ink))
}

// quickMedian returns the median of v, reordering it.
func quickMedian(v []float32) float32 {
	k := len(v) / 2
	lo, hi := 0, len(v)-1
	for lo < hi {
		p := v[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for v[i] < p {
				i++
			}
			for v[j] > p {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}

// cornerInk is the larger inkShare of the band's two top corners, inside the card's edges: every
// card has its index in one of them, a cut card has nothing in either.
func cornerInk(f *feat) float64 {
	const m, s = 6, bandW * 40 / 100
	return max(inkShare(f, rect{m, m, s, s}), inkShare(f, rect{bandW - s, m, bandW - m, s}))
}

// upperInk is the inkShare of the band's upper part, inside its rim, down to upper rows: where a
// cut card carries nothing (its word, if any, is printed lower, near its middle) and nearly every
// card, whichever end is seen, shows pips or a figure.
func upperInk(f *feat, upper int) float64 {
	const m = 6
	return inkShare(f, rect{m, m, f.w - m, min(upper, f.h)})
}

// straightEdge measures the strongest straight edge in a blurred frame: for near-vertical lines
// (tilted up to 6°) the mean horizontal colour step along the lower two thirds of the frame, and
// for near-horizontal lines the mean vertical step along the middle of the frame's width; it
// returns the largest, in levels. Felt and noise average out along a line; a card's edge, however
// faint (a dark cut card on dark felt), does not.
func straightEdge(blurred gocv.Mat) float64 {
	w, h := blurred.Cols(), blurred.Rows()
	px, err := blurred.DataPtrUint8()
	if err != nil {
		return 0
	}
	// Signed steps summed over the channels, on a grid of every other pixel.
	step := func(x0, y0, x1, y1 int) float64 {
		a, b := (y0*w+x0)*3, (y1*w+x1)*3
		return float64(int(px[b])+int(px[b+1])+int(px[b+2])-int(px[a])-int(px[a+1])-int(px[a+2])) / 3
	}
	best := 0.0
	for s := -0.1; s <= 0.1001; s += 0.025 {
		// Vertical lines x = x0 + s·(y − h/2).
		for x0 := 4; x0 < w-4; x0 += 2 {
			sum, n := 0.0, 0
			for y := h / 3; y < h-2; y += 2 {
				x := x0 + int(s*float64(y-h/2))
				if x < 2 || x >= w-2 {
					continue
				}
				sum += step(x-2, y, x+2, y)
				n++
			}
			if n > h/4 {
				best = max(best, abs(sum/float64(n)))
			}
		}
		// Horizontal lines y = y0 + s·(x − w/2).
		for y0 := 4; y0 < h/2; y0 += 2 {
			sum, n := 0.0, 0
			for x := w / 4; x < w*3/4; x += 2 {
				y := y0 + int(s*float64(x-w/2))
				if y < 2 || y >= h-2 {
					continue
				}
				sum += step(x, y-2, x, y+2)
				n++
			}
			if n > w/6 {
				best = max(best, abs(sum/float64(n)))
			}
		}
	}
	return best
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

// smoothCentre compares the grain of the middle of a reader frame with that of its edges: the
// median over 8x8 blocks of brightness spread over brightness, centre over edges. An empty window
// shows felt everywhere (about 1); a card, however dark, is smoother than felt where it covers
// the window (well under 1).
func smoothCentre(blurred gocv.Mat) float64 {
	w, h := blurred.Cols(), blurred.Rows()
	px, err := blurred.DataPtrUint8()
	if err != nil {
		return 1
	}
	const bs = 8
	var centre, edge []float64
	for by := 0; by+bs <= h; by += bs {
		for bx := 0; bx+bs <= w; bx += bs {
			var s, ss float64
			for y := by; y < by+bs; y++ {
				for x := bx; x < bx+bs; x++ {
					i := (y*w + x) * 3
					v := float64(px[i]) + float64(px[i+1]) + float64(px[i+2])
					s += v
					ss += v * v
				}
			}
			n := float64(bs * bs)
			mean := s / n
			sd := math.Sqrt(max(0, ss/n-mean*mean))
			rel := sd / max(mean, 6)
			cx, cy := float64(bx+bs/2)/float64(w), float64(by+bs/2)/float64(h)
			switch {
			case cx > 0.3 && cx < 0.6 && cy > 0.45 && cy < 0.95:
				centre = append(centre, rel)
			case cy < 0.12 || cx < 0.08 || cx > 0.92:
				edge = append(edge, rel)
			}
		}
	}
	if len(centre) == 0 || len(edge) == 0 {
		return 1
	}
	sort.Float64s(centre)
	sort.Float64s(edge)
	return centre[len(centre)/2] / max(edge[len(edge)/2], 1e-6)
}

// colourHist is a band's colour distribution: hue (12 bins) by saturation (4) by value (4), over
// the rows [top, valid), normalized to sum to 1. Unlike the band's pixels it does not change
// when a card back is seen from its other end.
type colourHist [12 * 4 * 4]float32

func newColourHist(band gocv.Mat, top, valid int) colourHist {
	var h colourHist
	hsv := gocv.NewMat()
	defer hsv.Close()
	gocv.CvtColor(band, &hsv, gocv.ColorBGRToHSV)
	px, err := hsv.DataPtrUint8()
	if err != nil {
		return h
	}
	w := hsv.Cols()
	n := 0
	for y := top; y < valid; y++ {
		for x := 4; x < w-4; x++ {
			i := (y*w + x) * 3
			hb := int(px[i]) * 12 / 180 // OpenCV hue is 0…179
			sb := int(px[i+1]) * 4 / 256
			vb := int(px[i+2]) * 4 / 256
			h[(min(hb, 11)*4+sb)*4+vb]++
			n++
		}
	}
	if n > 0 {
		for i := range h {
			h[i] /= float32(n)
		}
	}
	return h
}

// intersect is the histogram intersection of two colour distributions, 0…1.
func (h *colourHist) intersect(o *colourHist) float64 {
	s := float32(0)
	for i := range h {
		s += min(h[i], o[i])
	}
	return float64(s)
}

// rimContrast measures the rim of a card in an 8-bit BGR band: per channel, the mean level of a
// strip just inside the card's sides (2 to 5% of its width) less that of a strip further in (10
// to 20%), over a share of the level. A card, face or back, is printed on card stock that often
// shows as a rim of its own colour; a cut card is one plastic to its edge.
func rimContrast(band gocv.Mat, top, valid int) [3]float64 {
	var out [3]float64
	px, err := band.DataPtrUint8()
	if err != nil {
		return out
	}
	w := band.Cols()
	y0 := max(top, w/8)
	if valid-y0 < 8 {
		return out
	}
	var rimS, inS [3]float64
	var rn, in float64
	add := func(x, y int, acc *[3]float64) {
		i := (y*w + x) * 3
		for c := 0; c < 3; c++ {
			acc[c] += float64(px[i+c])
		}
	}
	for y := y0; y < valid; y += 2 {
		for x := w * 2 / 100; x < w*5/100; x++ {
			add(x, y, &rimS)
			add(w-1-x, y, &rimS)
			rn += 2
		}
		for x := w * 10 / 100; x < w*20/100; x++ {
			add(x, y, &inS)
			add(w-1-x, y, &inS)
			in += 2
		}
	}
	for c := 0; c < 3; c++ {
		a, b := rimS[c]/rn, inS[c]/in
		out[c] = (a - b) / max(a, b, 16)
	}
	return out
}

// rimLike reports whether a frame's rim (see rimContrast) is that of a template whose rim stands
// out: every channel in which the template's rim differs from its inside by a fifth of the level
// differs the same way in the frame, by at least a third as much (blur and a pixel's error in
// the card's edges thin a rim).
func rimLike(frame, t [3]float64) (standsOut, like bool) {
	like = true
	for c := 0; c < 3; c++ {
		if math.Abs(t[c]) < 0.2 {
			continue
		}
		standsOut = true
		if frame[c]*t[c] <= 0 || math.Abs(frame[c]) < math.Abs(t[c])/3 {
			like = false
		}
	}
	return standsOut, like
}

// chromaOf is the mean colour of an 8-bit BGR band's rows [top, valid), inside its rim, as
// shares of the sum of the three channels.
func chromaOf(band gocv.Mat, top, valid int) [3]float64 {
	out := [3]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}
	px, err := band.DataPtrUint8()
	if err != nil {
		return out
	}
	w := band.Cols()
	var sum [3]float64
	for y := max(top, w/16); y < valid; y += 2 {
		for x := w / 16; x < w-w/16; x += 2 {
			i := (y*w + x) * 3
			for c := 0; c < 3; c++ {
				sum[c] += float64(px[i+c])
			}
		}
	}
	if t := sum[0] + sum[1] + sum[2]; t > 0 {
		for c := range out {
			out[c] = sum[c] / t
		}
	}
	return out
}

// chromaDist is how far apart two colours are as shares of their sum (see chromaOf): the
// largest difference of a channel's share.
func chromaDist(a, b [3]float64) float64 {
	return max(math.Abs(a[0]-b[0]), math.Abs(a[1]-b[1]), math.Abs(a[2]-b[2]))
}
