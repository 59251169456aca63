package cv

import "golang.org/x/sys/cpu"

// useAVX says whether the dot products run eight at a time (dot_amd64.s).
var useAVX = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func dot8(a, b *float32, n int) float32

//go:noescape
func dotRev8(a, b *float32, n int) float32

// dotVec is Σ a[i]·b[i] over len(a) (len(b) >= len(a)) with AVX2; ok is false without it.
func dotVec(a, b []float32) (float32, bool) {
	n := len(a)
	if !useAVX || n < 8 {
		return 0, false
	}
	b = b[:n]
	m := n &^ 7
	s := dot8(&a[0], &b[0], m)
	for i := m; i < n; i++ {
		s += a[i] * b[i]
	}
	return s, true
}

// dotRevVec is Σ a[n-1-i]·b[i] (len(a) >= len(b) == n) with AVX2; ok is false without it.
func dotRevVec(a, b []float32) (float32, bool) {
	n := len(b)
	if !useAVX || n < 8 {
		return 0, false
	}
	a = a[:n]
	m := n &^ 7
	// The first m of b against a's last m, turned; then b's tail against a's head.
	s := dotRev8(&a[n-m], &b[0], m)
	for i := m; i < n; i++ {
		s += a[n-1-i] * b[i]
	}
	return s, true
}
