package hand

import (
	"math/bits"
	"slices"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Mask is a set of cards: bit 16·suit + r, where r is 0 for the deuce … 12 for the ace and suit
// is card.Suit (spades 0 … clubs 3). Bits 13–15 of each lane are never set.
type Mask uint64

// cardBit maps every card.Card value (a byte) to its Mask bit; None and non-cards map to 0, so a
// corrupt card can never index out of range.
var cardBit = func() (t [256]Mask) {
	for _, c := range card.Deck() {
		t[c] = 1 << (16*uint(c.Suit()) + uint(value(c.Rank())-2))
	}
	return t
}()

// MaskOf returns the set of the given cards; invalid cards are ignored (use Eval to have them
// refused).
func MaskOf(cards ...card.Card) Mask {
	var m Mask
	for _, c := range cards {
		m |= cardBit[c]
	}
	return m
}

// Bit returns the Mask of one card (0 for an invalid card).
func Bit(c card.Card) Mask { return cardBit[c] }

// Len returns the number of cards in the set.
func (m Mask) Len() int { return bits.OnesCount64(uint64(m)) }

// Cards returns the cards of the set in card.Index order.
func (m Mask) Cards() []card.Card {
	out := make([]card.Card, 0, m.Len())
	for _, c := range card.Deck() {
		if m&cardBit[c] != 0 {
			out = append(out, c)
		}
	}
	return out
}

const (
	lanes   = 0x0001000100010001 // the low bit of each suit lane
	rankSet = 0x1fff             // the 13 rank bits of one lane
)

// top5 packs the five highest ranks of a 13-bit rank set as nibbles (2…14), the highest in bits
// 16–19, the way a Rank holds its tie-break ranks. straightTop gives the top card (5…14) of the
// best straight in a rank set, or 0.
var top5, straightTop = func() (t *[1 << 13]uint32, s *[1 << 13]uint8) {
	t, s = new([1 << 13]uint32), new([1 << 13]uint8)
	for m := range 1 << 13 {
		var pack uint32
		n := 0
		for r := 12; r >= 0 && n < 5; r-- {
			if m&(1<<r) != 0 {
				pack |= uint32(r+2) << (16 - 4*n)
				n++
			}
		}
		t[m] = pack
		for top := 12; top >= 3; top-- {
			want := 0x100f // the wheel: A 2 3 4 5
			if top > 3 {
				want = 0x1f << (top - 4)
			}
			if m&want == want {
				s[m] = uint8(top + 2)
				break
			}
		}
	}
	return t, s
}()

// evalBits ranks the best five cards of a set of five, six or seven cards from the four suit
// lanes with bit operations. It is the reference the perfect-hash tables are built from (see
// hash.go); EvalMask gives the same Ranks faster.
func evalBits(m Mask) Rank {
	x := uint64(m)
	// Cards per suit, by a population count of each 16-bit lane at once (SWAR); a lane holding
	// five or more cards makes a flush. With at most seven cards a flush leaves two cards for the
	// other suits, too few for four of a kind or a full house, so the flush suit alone decides.
	c := x - (x>>1)&0x5555555555555555
	c = c&0x3333333333333333 + (c>>2)&0x3333333333333333
	c = (c + c>>4) & 0x0f0f0f0f0f0f0f0f
	c = (c + c>>8) & (0xff * lanes)
	if f := (c + 11*lanes) & (0x10 * lanes); f != 0 {
		fm := uint32(x>>(bits.TrailingZeros64(f)&^15)) & rankSet
		if st := straightTop[fm]; st != 0 {
			return Rank(StraightFlush)<<20 | Rank(st)<<16
		}
		return Rank(Flush)<<20 | Rank(top5[fm])
	}
	s0, s1 := uint32(x)&rankSet, uint32(x>>16)&rankSet
	s2, s3 := uint32(x>>32)&rankSet, uint32(x>>48)&rankSet
	all := s0 | s1 | s2 | s3
	two := s0&s1 | s2&s3 | (s0|s1)&(s2|s3) // ranks held at least twice
	if two == 0 {
		if st := straightTop[all]; st != 0 {
			return Rank(Straight)<<20 | Rank(st)<<16
		}
		return Rank(HighCard)<<20 | Rank(top5[all])
	}
	three := s0&s1&(s2|s3) | s2&s3&(s0|s1) // at least three times
	if three == 0 {
		if st := straightTop[all]; st != 0 {
			return Rank(Straight)<<20 | Rank(st)<<16
		}
		p := bits.Len32(two) - 1
		rest := two &^ (1 << p)
		if rest == 0 {
			return Rank(Pair)<<20 | Rank(p+2)<<16 | Rank(top5[all&^(1<<p)]>>4)&0xfff0
		}
		q := bits.Len32(rest) - 1
		k := bits.Len32(all&^(1<<p|1<<q)) + 1
		return Rank(TwoPair)<<20 | Rank(p+2)<<16 | Rank(q+2)<<12 | Rank(k)<<8
	}
	if four := s0 & s1 & s2 & s3; four != 0 {
		q := bits.Len32(four) - 1
		k := bits.Len32(all&^(1<<q)) + 1
		return Rank(FourOfAKind)<<20 | Rank(q+2)<<16 | Rank(k)<<12
	}
	t := bits.Len32(three) - 1
	if rest := two &^ (1 << t); rest != 0 {
		return Rank(FullHouse)<<20 | Rank(t+2)<<16 | Rank(bits.Len32(rest)+1)<<12
	}
	if st := straightTop[all]; st != 0 {
		return Rank(Straight)<<20 | Rank(st)<<16
	}
	return Rank(ThreeOfAKind)<<20 | Rank(t+2)<<16 | Rank(top5[all&^(1<<t)]>>4)&0xff00
}

// Eval ranks the best five of five, six or seven distinct cards. A wrong number of cards, a card
// that is not one of the 52, or a card given twice is an error wrapping ErrCards.
func Eval(cards ...card.Card) (Rank, error) {
	m, err := check(cards, 5, 7)
	if err != nil {
		return 0, err
	}
	return EvalMask(m), nil
}

// Best returns the five of the given cards (five to seven, checked as by Eval) that make the
// hand, ordered for display (the cards that make the category first, then the kickers, higher
// ranks first), and the hand's Rank.
func Best(cards []card.Card) ([]card.Card, Rank, error) {
	r, err := Eval(cards...)
	if err != nil {
		return nil, 0, err
	}
	n := len(cards)
	var five [5]card.Card
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			for c := b + 1; c < n; c++ {
				for d := c + 1; d < n; d++ {
					for e := d + 1; e < n; e++ {
						five = [5]card.Card{cards[a], cards[b], cards[c], cards[d], cards[e]}
						if Eval5(&five) == r {
							return displayOrder(five[:], r), r, nil
						}
					}
				}
			}
		}
	}
	return nil, 0, ErrCards // unreachable: the best five are among the subsets
}

// displayOrder sorts five cards: more of a rank first, then higher ranks, then suit; the ace of
// a five-high straight goes last.
func displayOrder(cards []card.Card, r Rank) []card.Card {
	out := slices.Clone(cards)
	var count [15]int
	for _, c := range out {
		count[value(c.Rank())]++
	}
	wheel := (r.Category() == Straight || r.Category() == StraightFlush) && r.kicker(0) == 5
	val := func(c card.Card) int {
		v := value(c.Rank())
		if wheel && v == 14 {
			return 1
		}
		return v
	}
	slices.SortFunc(out, func(a, b card.Card) int {
		if d := count[value(b.Rank())] - count[value(a.Rank())]; d != 0 {
			return d
		}
		if d := val(b) - val(a); d != 0 {
			return d
		}
		return int(a.Suit()) - int(b.Suit())
	})
	return out
}

// Partial ranks an incomplete hand of one to four cards by its pairs, trips and fours alone, as
// the open cards of a stud hand are compared to choose who acts first (straights and flushes do
// not count with fewer than five cards). It checks the cards as Eval does.
func Partial(cards ...card.Card) (Rank, error) {
	m, err := check(cards, 1, 4)
	if err != nil {
		return 0, err
	}
	x := uint64(m)
	s0, s1 := uint32(x)&rankSet, uint32(x>>16)&rankSet
	s2, s3 := uint32(x>>32)&rankSet, uint32(x>>48)&rankSet
	all := s0 | s1 | s2 | s3
	two := s0&s1 | s2&s3 | (s0|s1)&(s2|s3)
	three := s0&s1&(s2|s3) | s2&s3&(s0|s1)
	four := s0 & s1 & s2 & s3
	switch {
	case four != 0:
		return Rank(FourOfAKind)<<20 | Rank(bits.Len32(four)+1)<<16, nil
	case three != 0:
		t := bits.Len32(three) - 1
		return Rank(ThreeOfAKind)<<20 | Rank(t+2)<<16 | Rank(top5[all&^(1<<t)]>>4)&0xff00, nil
	case bits.OnesCount32(two) == 2:
		p := bits.Len32(two) - 1
		q := bits.Len32(two&^(1<<p)) - 1
		return Rank(TwoPair)<<20 | Rank(p+2)<<16 | Rank(q+2)<<12, nil
	case two != 0:
		p := bits.Len32(two) - 1
		return Rank(Pair)<<20 | Rank(p+2)<<16 | Rank(top5[all&^(1<<p)]>>4)&0xfff0, nil
	}
	return Rank(HighCard)<<20 | Rank(top5[all]), nil
}
