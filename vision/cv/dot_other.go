//go:build !amd64

package cv

const (
	useAVX  = false
	useHalf = false
)

func partSums8(w, wt, x *float32, width, rows, tstride, xstride int, out *[2]float64) {
	panic("cv: partSums8 without AVX2")
}

func partSumsHalf8(w, wt *uint16, x *float32, width, rows, tstride, xstride int, out *[2]float64) {
	panic("cv: partSumsHalf8 without F16C")
}
