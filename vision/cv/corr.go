package cv

// Fast correlation of one frame window against many templates: the frame's sums depend only on
// the shift, the template's only on the template, so each extra template costs one dot product.

// winStats are the sums over a window of some planes: Σv, Σv² and the number of values.
type winStats struct {
	s, ss float64
	n     int
}

// planeRange returns the planes ncc uses for a selection (colour: 0-2; bright: 3).
func planeRange(planes int) (int, int) {
	if planes == bright {
		return 3, 4
	}
	return 0, 3
}

// stride is the sampling step over a window: every pixel of a small window, every other pixel
// (in both directions) of a large one, whose shapes are large enough to survive it.
func stride(win rect) int {
	if win.area() > 1200 {
		return 2
	}
	return 1
}

// statsAt sums planes of f over win shifted by (dx, dy), sampled at stride(win). The window must
// lie inside f.
func statsAt(f *feat, planes int, win rect, dx, dy int) winStats {
	var st winStats
	c0, c1 := planeRange(planes)
	k := stride(win)
	for c := c0; c < c1; c++ {
		p := f.c[c]
		for y := win.y0; y < win.y1; y += k {
			row := p[(y+dy)*f.w+win.x0+dx : (y+dy)*f.w+win.x1+dx]
			var s, ss float32
			for i := 0; i < len(row); i += k {
				v := row[i]
				s += v
				ss += v * v
			}
			st.s += float64(s)
			st.ss += float64(ss)
			st.n += (len(row) + k - 1) / k
		}
	}
	return st
}

// planeStats sums template planes (w wide) over win.
func planeStats(t [][]float32, w, planes int, win rect) winStats {
	f := feat{w: w, h: win.y1, valid: win.y1}
	copy(f.c[:], t)
	return statsAt(&f, planes, win, 0, 0)
}

// dotAt is Σ f(x+dx, y+dy)·t(x, y) over win, sampled at stride(win).
func dotAt(f *feat, t [][]float32, tw, planes int, win rect, dx, dy int) float64 {
	var d float64
	c0, c1 := planeRange(planes)
	k := stride(win)
	for c := c0; c < c1; c++ {
		p, q := f.c[c], t[c]
		for y := win.y0; y < win.y1; y += k {
			a := p[(y+dy)*f.w+win.x0+dx : (y+dy)*f.w+win.x1+dx]
			b := q[y*tw+win.x0 : y*tw+win.x1]
			b = b[:len(a)]
			d += float64(dot32(a, b, k))
		}
	}
	return d
}

// dot32 is Σ a[i]·b[i] over every k-th i (len(b) >= len(a)), in four running sums: the sums do
// not wait on one another, which makes the loop about twice as fast. At stride 1 on a processor
// with AVX2 and FMA it takes eight products at a time (dot_amd64.s).
func dot32(a, b []float32, k int) float32 {
	if k == 1 {
		if s, ok := dotVec(a, b); ok {
			return s
		}
	}
	var s0, s1, s2, s3 float32
	n := len(a)
	b = b[:n]
	i := 0
	if k == 1 {
		for ; i+4 <= n; i += 4 {
			s0 += a[i] * b[i]
			s1 += a[i+1] * b[i+1]
			s2 += a[i+2] * b[i+2]
			s3 += a[i+3] * b[i+3]
		}
	} else {
		for ; i+4*k <= n; i += 4 * k {
			s0 += a[i] * b[i]
			s1 += a[i+k] * b[i+k]
			s2 += a[i+2*k] * b[i+2*k]
			s3 += a[i+3*k] * b[i+3*k]
		}
	}
	for ; i < n; i += k {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// dotRev32 is Σ a[n-1-i]·b[i] (len(a) == len(b) == n), in four running sums.
func dotRev32(a, b []float32) float32 {
	if s, ok := dotRevVec(a, b); ok {
		return s
	}
	var s0, s1, s2, s3 float32
	n := len(b)
	a = a[:n]
	i := 0
	for ; i+4 <= n; i += 4 {
		j := n - 1 - i
		s0 += a[j] * b[i]
		s1 += a[j-1] * b[i+1]
		s2 += a[j-2] * b[i+2]
		s3 += a[j-3] * b[i+3]
	}
	for ; i < n; i++ {
		s0 += a[n-1-i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// corrOf is the correlation from the two windows' sums and their dot product.
func corrOf(a, b winStats, dot float64) float64 {
	return corr(a.s, b.s, a.ss, b.ss, dot, a.n)
}

// shiftInside reports whether win shifted by (dx, dy) lies inside a w x h plane.
func shiftInside(win rect, dx, dy, w, h int) bool {
	return win.x0+dx >= 0 && win.y0+dy >= 0 && win.x1+dx <= w && win.y1+dy <= h
}
