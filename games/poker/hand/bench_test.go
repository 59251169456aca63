package hand

import (
	"math/rand/v2"
	"testing"

	"github.com/sabot-tables/sabot/shoe/card"
)

// randomSeven returns n random seven-card hands, each dealt from a fresh shuffled deck, so that
// the benchmark sees hands in random order rather than in enumeration order (which flatters
// lookup tables).
func randomSeven(n int) [][7]card.Card {
	rng := rand.New(rand.NewPCG(2026, 8))
	hands := make([][7]card.Card, n)
	d := card.Deck()
	for i := range hands {
		// A partial Fisher–Yates shuffle draws seven distinct cards.
		for j := range 7 {
			k := j + rng.IntN(len(d)-j)
			d[j], d[k] = d[k], d[j]
		}
		copy(hands[i][:], d[:7])
	}
	return hands
}

var sink Rank

// BenchmarkEval7Random ranks pre-generated random seven-card hands (card.Card in, Rank out, the
// conversion to the packed Mask included) and reports hands/s. The target: at least 20
// million per second on one core, and five times github.com/paulhankin/poker.
func BenchmarkEval7Random(b *testing.B) {
	hands := randomSeven(1 << 20)
	b.ResetTimer()
	var acc Rank
	i := 0
	for b.Loop() {
		acc ^= Eval7(&hands[i&(len(hands)-1)])
		i++
	}
	sink = acc
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "hands/s")
}

// BenchmarkEval5Random ranks pre-generated random five-card hands.
func BenchmarkEval5Random(b *testing.B) {
	sevens := randomSeven(1 << 20)
	hands := make([][5]card.Card, len(sevens))
	for i := range sevens {
		copy(hands[i][:], sevens[i][:5])
	}
	b.ResetTimer()
	var acc Rank
	i := 0
	for b.Loop() {
		acc ^= Eval5(&hands[i&(len(hands)-1)])
		i++
	}
	sink = acc
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "hands/s")
}

// BenchmarkEvalOmahaRandom ranks random 2+3 hands (four hole cards, five community cards: sixty
// five-card choices each).
func BenchmarkEvalOmahaRandom(b *testing.B) {
	sevens := randomSeven(1 << 16)
	extra := randomSeven(1 << 16)
	type deal struct{ hole, board []card.Card }
	deals := make([]deal, len(sevens))
	for i := range sevens {
		// Nine distinct cards: the seven, then two of the other hand's cards that differ.
		cs := append([]card.Card(nil), sevens[i][:]...)
		m := MaskOf(cs...)
		for _, c := range extra[i] {
			if len(cs) == 9 {
				break
			}
			if m&Bit(c) == 0 {
				cs = append(cs, c)
				m |= Bit(c)
			}
		}
		deals[i] = deal{cs[:4], cs[4:]}
	}
	b.ResetTimer()
	var acc Rank
	i := 0
	for b.Loop() {
		d := deals[i&(len(deals)-1)]
		acc ^= omaha(d.hole, d.board)
		i++
	}
	sink = acc
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "hands/s")
}

// BenchmarkEverySevenCardHand enumerates all 133,784,560 seven-card hands once per iteration and
// reports hands/s (enumeration order, masks built incrementally).
func BenchmarkEverySevenCardHand(b *testing.B) {
	for b.Loop() {
		if _, n := everySeven(); n != 133784560 {
			b.Fatal(n)
		}
	}
	b.ReportMetric(133784560*float64(b.N)/b.Elapsed().Seconds(), "hands/s")
}
