package cv

import "math"

// Half precision (IEEE 754 binary16) copies of the templates the screening pass reads
// (model.fit): every class is compared with the frame once, at the middle blur and no shift,
// and those comparisons stream the whole model through memory each frame; at half the bytes they
// take half the time. Eleven bits of mantissa (a part in 2000) change a distance by far less
// than a frame's noise, and the candidates kept are compared again at full precision.

// toHalf rounds v (finite, |v| < 65504) to the nearest binary16, ties to even.
func toHalf(v float32) uint16 {
	b := math.Float32bits(v)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xff) - 127 + 15
	man := b & 0x7fffff
	switch {
	case exp >= 31:
		return sign | 0x7c00 // too large: infinity (callers scale to stay under 65504)
	case exp <= 0:
		// Subnormal (or zero): the implicit bit shifted in, rounded to even.
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint(14 - exp)
		h := man >> shift
		rem := man & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | man>>13
	rem := man & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++ // may carry into the exponent: still the right rounding
	}
	return sign | uint16(h)
}

// fromHalf is the float32 value of a binary16.
func fromHalf(h uint16) float32 {
	sign := uint32(h&0x8000) << 16
	exp := uint32(h >> 10 & 0x1f)
	man := uint32(h & 0x3ff)
	switch {
	case exp == 0x1f:
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case exp == 0:
		v := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			v = -v
		}
		return v
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | man<<13)
}

// halfScale is the power of two that brings the largest of v to at most 2^14 (well inside
// binary16's range, its rounding relative whatever the magnitude).
func halfScale(v [3][]float32) float32 {
	var most float32
	for _, p := range v {
		for _, x := range p {
			most = max(most, abs32(x))
		}
	}
	if most == 0 {
		return 1
	}
	_, e := math.Frexp(float64(most))
	return float32(math.Ldexp(1, 14-e))
}

// halves is v·scale in binary16, a plane per channel.
func halves(v [3][]float32, scale float32) [3][]uint16 {
	var out [3][]uint16
	for c, p := range v {
		out[c] = make([]uint16, len(p))
		for i, x := range p {
			out[c][i] = toHalf(x * scale)
		}
	}
	return out
}
