package cv

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDot32 checks the unrolled dot products against the plain sums, for every length and stride
// that leaves a tail, and for the lengths of a band's rows and more (eight at a time with AVX2).
func TestDot32(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	lengths := []int{64, 127, 128, 129, 200, 255, 256, 384, 1000}
	for n := 0; n <= 37; n++ {
		lengths = append(lengths, n)
	}
	for _, n := range lengths {
		a, b := make([]float32, n), make([]float32, n+3)
		for i := range a {
			a[i] = rng.Float32()*2 - 1
		}
		for i := range b {
			b[i] = rng.Float32()*2 - 1
		}
		for _, k := range []int{1, 2, 3} {
			var want float64
			for i := 0; i < n; i += k {
				want += float64(a[i]) * float64(b[i])
			}
			if got := float64(dot32(a, b, k)); math.Abs(got-want) > 1e-4*math.Max(1, math.Sqrt(float64(n))) {
				t.Errorf("dot32 n=%d k=%d: %v, want %v", n, k, got, want)
			}
		}
		var want float64
		for i := 0; i < n; i++ {
			want += float64(a[n-1-i]) * float64(b[i])
		}
		if got := float64(dotRev32(a, b[:n])); math.Abs(got-want) > 1e-4*math.Max(1, math.Sqrt(float64(n))) {
			t.Errorf("dotRev32 n=%d: %v, want %v", n, got, want)
		}
	}
}
