package certify

import "math"

// ChiSquareSF returns P(X ≥ x) for a chi-square variable with df degrees of freedom: the
// regularized upper incomplete gamma function Q(df/2, x/2).
func ChiSquareSF(x float64, df int) float64 {
	if x <= 0 || df <= 0 {
		return 1
	}
	return gammaQ(float64(df)/2, x/2)
}

// NormalSF2 returns the two-sided tail P(|Z| ≥ |z|) of a standard normal variable.
func NormalSF2(z float64) float64 { return math.Erfc(math.Abs(z) / math.Sqrt2) }

// gammaQ is Q(a, x) by the series of P for x < a+1 and Lentz's continued fraction otherwise
// (Numerical Recipes §6.2).
func gammaQ(a, x float64) float64 {
	lg, _ := math.Lgamma(a)
	front := math.Exp(-x + a*math.Log(x) - lg)
	if x < a+1 {
		sum, del, ap := 1/a, 1/a, a
		for range 100000 {
			ap++
			del *= x / ap
			sum += del
			if math.Abs(del) < math.Abs(sum)*1e-15 {
				break
			}
		}
		return max(0, 1-sum*front)
	}
	const tiny = 1e-300
	b := x + 1 - a
	c := 1 / tiny
	d := 1 / b
	h := d
	for i := 1; i < 100000; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-15 {
			break
		}
	}
	return min(1, front*h)
}
