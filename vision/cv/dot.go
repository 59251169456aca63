package cv

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
