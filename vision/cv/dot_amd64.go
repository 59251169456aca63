package cv

import "golang.org/x/sys/cpu"

// useAVX says whether the part sums run eight values at a time (dot_amd64.s); useHalf whether
// they read binary16 templates too (F16C).
var (
	useAVX  = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	useHalf = useAVX && cpu.X86.HasF16C
)

// partSums8 is partSums with AVX2 and FMA; width is a multiple of 8, rows at least 1.
//
//go:noescape
func partSums8(w, wt, x *float32, width, rows, tstride, xstride int, out *[2]float64)

// partSumsHalf8 is partSumsHalf with AVX2, FMA and F16C; width is a multiple of 8, rows at
// least 1.
//
//go:noescape
func partSumsHalf8(w, wt *uint16, x *float32, width, rows, tstride, xstride int, out *[2]float64)
