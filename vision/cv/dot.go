package cv

// partSums is a part's two sums against a frame, Σ w·x² and Σ wt·x over rows × width values:
// w and wt hold rows tstride values apart, x (the frame) xstride apart. Each row is summed in
// float32 and added to float64 totals: the distance is a small difference of these large sums
// (fitPart), so they keep a row's precision, not a part's. With AVX2 and FMA it takes eight
// values at a time in one call per part (dot_amd64.s); width is then a multiple of 8.
func partSums(w, wt, x []float32, width, rows, tstride, xstride int) (sxx, sxt float64) {
	if rows <= 0 || width <= 0 {
		return 0, 0
	}
	// The last row's end, checked here once: the assembly reads what these bounds allow.
	_ = w[(rows-1)*tstride+width-1]
	_ = wt[(rows-1)*tstride+width-1]
	_ = x[(rows-1)*xstride+width-1]
	if useAVX && width%8 == 0 {
		var out [2]float64
		partSums8(&w[0], &wt[0], &x[0], width, rows, tstride, xstride, &out)
		return out[0], out[1]
	}
	return partSumsGo(w, wt, x, width, rows, tstride, xstride)
}

// partSumsGo is partSums in Go, four running sums a row.
func partSumsGo(w, wt, x []float32, width, rows, tstride, xstride int) (sxx, sxt float64) {
	for y := range rows {
		wr, tr, xr := w[y*tstride:][:width], wt[y*tstride:][:width], x[y*xstride:][:width]
		var a0, a1, b0, b1 float32
		i := 0
		for ; i+2 <= width; i += 2 {
			a0 += wr[i] * (xr[i] * xr[i])
			a1 += wr[i+1] * (xr[i+1] * xr[i+1])
			b0 += tr[i] * xr[i]
			b1 += tr[i+1] * xr[i+1]
		}
		for ; i < width; i++ {
			a0 += wr[i] * (xr[i] * xr[i])
			b0 += tr[i] * xr[i]
		}
		sxx += float64(a0 + a1)
		sxt += float64(b0 + b1)
	}
	return sxx, sxt
}

// partSumsHalf is partSums with w and wt in binary16 (half.go), unscaled by the caller.
func partSumsHalf(w, wt []uint16, x []float32, width, rows, tstride, xstride int) (sxx, sxt float64) {
	if rows <= 0 || width <= 0 {
		return 0, 0
	}
	_ = w[(rows-1)*tstride+width-1]
	_ = wt[(rows-1)*tstride+width-1]
	_ = x[(rows-1)*xstride+width-1]
	if useHalf && width%8 == 0 {
		var out [2]float64
		partSumsHalf8(&w[0], &wt[0], &x[0], width, rows, tstride, xstride, &out)
		return out[0], out[1]
	}
	for y := range rows {
		wr, tr, xr := w[y*tstride:][:width], wt[y*tstride:][:width], x[y*xstride:][:width]
		var a, b float32
		for i, v := range xr {
			a += fromHalf(wr[i]) * (v * v)
			b += fromHalf(tr[i]) * v
		}
		sxx += float64(a)
		sxt += float64(b)
	}
	return sxx, sxt
}
