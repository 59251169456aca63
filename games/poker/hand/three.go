package hand

import (
	"fmt"
	"math/bits"

	"github.com/sabot-tables/sabot/shoe/card"
)

// ThreeRank is the strength of a three-card hand in three card poker (RULES.md §5): straight
// flush, three of a kind, straight, flush, pair, high card, in that order (a straight beats a
// flush with three cards); A-2-3 is the lowest straight and A-K-Q the highest. Higher is better,
// equal is an exact tie; the zero value is no hand. Bits 16–19 hold the order of the category and
// the nibbles below it the tie-break ranks (2…14).
type ThreeRank uint32

// the order of the three-card categories.
var threeOrder = [...]Category{HighCard, Pair, Flush, Straight, ThreeOfAKind, StraightFlush}

func threeRank(c Category, k ...int) ThreeRank {
	var o int
	for i, x := range threeOrder {
		if x == c {
			o = i + 1
		}
	}
	r := ThreeRank(o) << 16
	for i, v := range k {
		r |= ThreeRank(v) << (12 - 4*i)
	}
	return r
}

// Category returns the hand's category (HighCard, Pair, Flush, Straight, ThreeOfAKind or
// StraightFlush).
func (r ThreeRank) Category() Category {
	o := int(r >> 16)
	if o < 1 || o > len(threeOrder) {
		return NoHand
	}
	return threeOrder[o-1]
}

// Kickers returns the tie-break ranks, most significant first (a straight gives its top card:
// 3 for A-2-3).
func (r ThreeRank) Kickers() []card.Rank {
	var out []card.Rank
	for i := range 3 {
		k := int(r>>(12-4*i)) & 0xf
		if k == 0 {
			break
		}
		out = append(out, fromValue(k))
	}
	return out
}

// String describes the hand: "pair Q Q 4", "straight 3 high".
func (r ThreeRank) String() string {
	c := r.Category()
	k := r.Kickers()
	switch c {
	case NoHand:
		return "no hand"
	case Straight, StraightFlush:
		return fmt.Sprintf("%s %s high", c, k[0])
	case ThreeOfAKind:
		return fmt.Sprintf("%s %s %s %s", c, k[0], k[0], k[0])
	case Pair:
		return fmt.Sprintf("%s %s %s %s", c, k[0], k[0], k[1])
	}
	return fmt.Sprintf("%s %s %s %s", c, k[0], k[1], k[2])
}

// MarshalText writes String's form.
func (r ThreeRank) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// Eval3 ranks three distinct cards as a three card poker hand. A wrong number of cards, a card
// that is not one of the 52, or a card given twice is an error wrapping ErrCards.
func Eval3(cards ...card.Card) (ThreeRank, error) {
	m, err := check(cards, 3, 3)
	if err != nil {
		return 0, err
	}
	return EvalThreeMask(m), nil
}

// EvalThreeMask ranks a set of exactly three cards without checking it.
func EvalThreeMask(m Mask) ThreeRank {
	x := uint64(m)
	s0, s1 := uint32(x)&rankSet, uint32(x>>16)&rankSet
	s2, s3 := uint32(x>>32)&rankSet, uint32(x>>48)&rankSet
	all := s0 | s1 | s2 | s3
	flush := s0 == all || s1 == all || s2 == all || s3 == all
	switch bits.OnesCount32(all) {
	case 1:
		return threeRank(ThreeOfAKind, bits.Len32(all)+1)
	case 2:
		two := s0&s1 | s2&s3 | (s0|s1)&(s2|s3)
		return threeRank(Pair, bits.Len32(two)+1, bits.Len32(all&^two)+1)
	}
	top := 0
	switch {
	case all == 0x1003: // A 2 3
		top = 3
	case all>>(bits.TrailingZeros32(all)) == 7:
		top = bits.Len32(all) + 1
	}
	k := top5[all]
	k1, k2, k3 := int(k>>16)&0xf, int(k>>12)&0xf, int(k>>8)&0xf
	switch {
	case top != 0 && flush:
		return threeRank(StraightFlush, top)
	case top != 0:
		return threeRank(Straight, top)
	case flush:
		return threeRank(Flush, k1, k2, k3)
	}
	return threeRank(HighCard, k1, k2, k3)
}
