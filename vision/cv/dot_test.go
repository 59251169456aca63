package cv

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestPartSums: the part sums (AVX2 where the processor has it) agree with a float64 sum of
// the same products, for the parts' widths and strides and a few others, to float32's
// precision; and the Go sums with the assembly's.
func TestPartSums(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sh := range []struct{ width, rows, tstride, xstride int }{
		{cornerW, cornerH, cornerW, fineW}, {faceScale, 45, faceScale, fineW / faceK},
		{8, 1, 8, 8}, {16, 3, 24, 40}, {48, 70, 48, 136}, {7, 5, 7, 9}, {13, 2, 20, 13},
	} {
		w := make([]float32, (sh.rows-1)*sh.tstride+sh.width)
		wt := make([]float32, len(w))
		x := make([]float32, (sh.rows-1)*sh.xstride+sh.width)
		for i := range w {
			w[i] = 0.5 + rng.Float32()*100
			wt[i] = w[i] * rng.Float32()
		}
		for i := range x {
			x[i] = rng.Float32()
		}
		var ea, eb float64
		for y := range sh.rows {
			for i := range sh.width {
				v := float64(x[y*sh.xstride+i])
				ea += float64(w[y*sh.tstride+i]) * v * v
				eb += float64(wt[y*sh.tstride+i]) * v
			}
		}
		a, b := partSums(w, wt, x, sh.width, sh.rows, sh.tstride, sh.xstride)
		ga, gb := partSumsGo(w, wt, x, sh.width, sh.rows, sh.tstride, sh.xstride)
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"Σw·x²", a, ea}, {"Σwt·x", b, eb}, {"Go Σw·x²", ga, ea}, {"Go Σwt·x", gb, eb}} {
			if math.Abs(c.got-c.want) > 1e-6*c.want {
				t.Errorf("%+v: %s = %v, want %v", sh, c.name, c.got, c.want)
			}
		}
	}
	if a, b := partSums(nil, nil, nil, 48, 0, 48, 136); a != 0 || b != 0 {
		t.Errorf("no rows: %v %v", a, b)
	}
}

// TestHalf: every binary16 survives float32 and back; a float32 rounds to the nearest binary16
// (within half a unit of its last place), ties to even.
func TestHalf(t *testing.T) {
	for h := range 1 << 16 {
		if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
			continue // NaN
		}
		if got := toHalf(fromHalf(uint16(h))); got != uint16(h) {
			t.Fatalf("%#04x → %v → %#04x", h, fromHalf(uint16(h)), got)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100000 {
		v := float32(math.Ldexp(rng.Float64()*2-1, rng.IntN(40)-24))
		got := fromHalf(toHalf(v))
		ulp := math.Ldexp(1, max(-24, int(math.Floor(math.Log2(math.Abs(float64(v)))))-10))
		if d := math.Abs(float64(got - v)); d > ulp/2 {
			t.Fatalf("%v rounds to %v (%v off, ulp %v)", v, got, d, ulp)
		}
	}
	for _, c := range []struct {
		v    float32
		want uint16
	}{{1, 0x3c00}, {-2, 0xc000}, {65504, 0x7bff}, {1 + 1.0/2048, 0x3c00}, {1 + 3.0/2048, 0x3c02}, {0x1p-24, 0x0001}, {0x1p-25, 0}} {
		if got := toHalf(c.v); got != c.want {
			t.Errorf("toHalf(%v) = %#04x, want %#04x", c.v, got, c.want)
		}
	}
}

// TestPartSumsHalf: the binary16 part sums (F16C where the processor has it) agree with a
// float64 sum of the same products, and with the Go sums.
func TestPartSumsHalf(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, sh := range []struct{ width, rows, tstride, xstride int }{
		{cornerW, cornerH, cornerW, fineW}, {faceScale, 45, faceScale, fineW / faceK}, {8, 1, 8, 8}, {7, 5, 7, 9},
	} {
		n := (sh.rows-1)*sh.tstride + sh.width
		w, wt := make([]uint16, n), make([]uint16, n)
		x := make([]float32, (sh.rows-1)*sh.xstride+sh.width)
		for i := range w {
			w[i] = toHalf(0.5 + rng.Float32()*1000)
			wt[i] = toHalf(fromHalf(w[i]) * (rng.Float32() - 0.5))
		}
		for i := range x {
			x[i] = rng.Float32() - 0.5
		}
		var ea, eb, ga, gb float64
		for y := range sh.rows {
			for i := range sh.width {
				v := float64(x[y*sh.xstride+i])
				ea += float64(fromHalf(w[y*sh.tstride+i])) * v * v
				eb += float64(fromHalf(wt[y*sh.tstride+i])) * v
			}
		}
		a, b := partSumsHalf(w, wt, x, sh.width, sh.rows, sh.tstride, sh.xstride)
		if useHalf && sh.width%8 == 0 {
			ga, gb = partSumsHalf(w, wt, x, sh.width-1, sh.rows, sh.tstride, sh.xstride) // Go: width not a multiple of 8
			for y := range sh.rows {
				i := y*sh.tstride + sh.width - 1
				v := float64(x[y*sh.xstride+sh.width-1])
				ga += float64(fromHalf(w[i])) * v * v
				gb += float64(fromHalf(wt[i])) * v
			}
		} else {
			ga, gb = a, b
		}
		for _, c := range []struct {
			name      string
			got, want float64
		}{{"Σw·x²", a, ea}, {"Σwt·x", b, eb}, {"Go Σw·x²", ga, ea}, {"Go Σwt·x", gb, eb}} {
			if math.Abs(c.got-c.want) > 1e-5*max(1, math.Abs(c.want)) {
				t.Errorf("%+v: %s = %v, want %v", sh, c.name, c.got, c.want)
			}
		}
	}
}
