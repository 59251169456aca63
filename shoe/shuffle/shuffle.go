// Package shuffle is the host's shuffle, for the tables where the daemon decides the order (a
// random-slot shuffler takes its order from the host): a uniform random permutation drawn from
// the operating system's cryptographic generator (crypto/rand), with Fisher–Yates and an
// unbiased bounded draw (Lemire's multiply-and-reject). RULES.md §1 "Shuffle": the order is a
// secret that never leaves the daemon; nothing here logs or returns it anywhere else.
package shuffle

import (
	"crypto/rand"
	"encoding/binary"
	"math/bits"
)

// Source draws uniform 64-bit words from crypto/rand, reading in blocks.
type Source struct {
	buf [512]byte
	n   int // bytes of buf used
}

// NewSource returns a cryptographic source.
func NewSource() *Source { return &Source{n: 512} }

// Uint64 returns a uniform random 64-bit word.
func (s *Source) Uint64() uint64 {
	if s.n+8 > len(s.buf) {
		// crypto/rand.Read never fails on Linux (Go 1.24+: it panics rather than returning an
		// error if the kernel cannot give randomness, which is the only safe behaviour here).
		rand.Read(s.buf[:])
		s.n = 0
	}
	v := binary.LittleEndian.Uint64(s.buf[s.n:])
	s.n += 8
	return v
}

// Below returns a uniform integer in [0, n), n > 0, without modulo bias: Lemire's method,
// rejecting the few products whose low word falls in the biased zone.
func (s *Source) Below(n uint64) uint64 {
	hi, lo := bits.Mul64(s.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(s.Uint64(), n)
		}
	}
	return hi
}

// Permute shuffles x in place: every one of the len(x)! orders is equally likely
// (Fisher–Yates, Knuth's Algorithm P).
func Permute[T any](s *Source, x []T) {
	for i := len(x) - 1; i > 0; i-- {
		j := int(s.Below(uint64(i + 1)))
		x[i], x[j] = x[j], x[i]
	}
}
