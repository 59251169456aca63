package shuffle

import (
	"testing"
)

// Below must be uniform: a chi-square over 7 buckets (a bound that does not divide 2^64) stays
// below the 99.9% critical value of 6 degrees of freedom (22.46).
func TestBelowUniform(t *testing.T) {
	s := NewSource()
	const n, draws = 7, 700000
	var c [n]int
	for range draws {
		v := s.Below(n)
		if v >= n {
			t.Fatalf("Below(%d) = %d", n, v)
		}
		c[v]++
	}
	exp := float64(draws) / n
	chi := 0.0
	for _, k := range c {
		d := float64(k) - exp
		chi += d * d / exp
	}
	if chi > 22.46 {
		t.Fatalf("chi-square %.2f over %v", chi, c)
	}
}

func TestPermuteIsAPermutation(t *testing.T) {
	s := NewSource()
	x := make([]int, 416)
	for i := range x {
		x[i] = i
	}
	Permute(s, x)
	seen := make([]bool, len(x))
	moved := 0
	for i, v := range x {
		if seen[v] {
			t.Fatalf("%d twice", v)
		}
		seen[v] = true
		if v != i {
			moved++
		}
	}
	if moved < 400 { // P(more than 16 fixed points of 416) is astronomically small
		t.Fatalf("only %d of 416 cards moved", moved)
	}
}

func BenchmarkPermute416(b *testing.B) {
	s := NewSource()
	x := make([]int, 416)
	for i := 0; i < b.N; i++ {
		Permute(s, x)
	}
}
