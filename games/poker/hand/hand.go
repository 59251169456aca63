package hand

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Category is the kind of a poker hand, from high card to royal flush.
type Category uint8

// The categories, weakest first. RoyalFlush is the ace-high StraightFlush; it is a category of its
// own because pay tables pay it apart (RULES.md §5, §7).
const (
	NoHand Category = iota
	HighCard
	Pair
	TwoPair
	ThreeOfAKind
	Straight
	Flush
	FullHouse
	FourOfAKind
	StraightFlush
	RoyalFlush
)

var categoryNames = [...]string{
	NoHand:        "no hand",
	HighCard:      "high card",
	Pair:          "pair",
	TwoPair:       "two pair",
	ThreeOfAKind:  "three of a kind",
	Straight:      "straight",
	Flush:         "flush",
	FullHouse:     "full house",
	FourOfAKind:   "four of a kind",
	StraightFlush: "straight flush",
	RoyalFlush:    "royal flush",
}

// Categories lists every category of a five-card hand, weakest first.
var Categories = []Category{HighCard, Pair, TwoPair, ThreeOfAKind, Straight, Flush, FullHouse, FourOfAKind, StraightFlush, RoyalFlush}

// String returns the category's name: "high card", "pair", …, "royal flush".
func (c Category) String() string {
	if int(c) < len(categoryNames) {
		return categoryNames[c]
	}
	return fmt.Sprintf("Category(%d)", uint8(c))
}

// MarshalText writes the category's name.
func (c Category) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a category name (ParseCategory).
func (c *Category) UnmarshalText(b []byte) error {
	v, err := ParseCategory(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// ParseCategory reads a category name as String writes it ("full house"); "-" and "_" may stand
// for the spaces ("full-house").
func ParseCategory(s string) (Category, error) {
	n := strings.NewReplacer("-", " ", "_", " ").Replace(strings.ToLower(strings.TrimSpace(s)))
	for c, name := range categoryNames {
		if c != int(NoHand) && name == n {
			return Category(c), nil
		}
	}
	return NoHand, fmt.Errorf("hand: unknown category %q", s)
}

// Rank is the strength of a hand: a higher Rank is a better hand; equal Ranks tie exactly. The
// zero Rank is no hand. Bits 20–23 hold the category (HighCard … StraightFlush) and the five
// nibbles below it the card ranks that break ties, most significant first, 2 … 14 (ace high;
// the five-high straight counts its top card as 5).
type Rank uint32

// rank builds a Rank from a category and up to five tie-break ranks (2…14).
func rank(c Category, k ...int) Rank {
	r := Rank(c) << 20
	for i, v := range k {
		r |= Rank(v) << (16 - 4*i)
	}
	return r
}

// Category returns the hand's category; an ace-high straight flush is RoyalFlush.
func (r Rank) Category() Category {
	c := Category(r >> 20)
	if c == StraightFlush && r.kicker(0) == 14 {
		return RoyalFlush
	}
	if c > StraightFlush {
		return NoHand
	}
	return c
}

// kicker returns the i-th tie-break rank (0 the most significant), 2…14, or 0.
func (r Rank) kicker(i int) int { return int(r>>(16-4*i)) & 0xf }

// Kickers returns the ranks that break ties within the category, most significant first, as
// card ranks (card.Ace for 14): e.g. a full house of kings over sevens gives [K 7].
func (r Rank) Kickers() []card.Rank {
	var out []card.Rank
	for i := range 5 {
		k := r.kicker(i)
		if k == 0 {
			break
		}
		out = append(out, fromValue(k))
	}
	return out
}

// fromValue converts 2…14 (ace high) to a card.Rank.
func fromValue(v int) card.Rank {
	if v == 14 {
		return card.Ace
	}
	return card.Rank(v)
}

// value converts a card.Rank to 2…14 (ace high).
func value(r card.Rank) int {
	if r == card.Ace {
		return 14
	}
	return int(r)
}

// String describes the hand: "full house K K K 7 7", "pair 8 8 A J 4", "straight 5 high".
func (r Rank) String() string {
	c := r.Category()
	if c == NoHand {
		return "no hand"
	}
	k := r.Kickers()
	if len(k) == 0 {
		return c.String()
	}
	if c == Straight || c == StraightFlush || c == RoyalFlush {
		return fmt.Sprintf("%s %s high", c, k[0])
	}
	var groups []int // how many cards each tie-break rank stands for
	switch c {
	case FourOfAKind:
		groups = []int{4}
	case FullHouse:
		groups = []int{3, 2}
	case ThreeOfAKind:
		groups = []int{3}
	case TwoPair:
		groups = []int{2, 2}
	case Pair:
		groups = []int{2}
	}
	parts := []string{c.String()}
	for i, rk := range k {
		n := 1
		if i < len(groups) {
			n = groups[i]
		}
		for range n {
			parts = append(parts, rk.String())
		}
	}
	return strings.Join(parts, " ")
}

// MarshalText writes String's form.
func (r Rank) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// ErrCards is wrapped by every error about the cards given to an evaluator: a wrong number of
// cards, a card that is not one of the 52, a card given twice.
var ErrCards = errors.New("hand: bad cards")

// check validates n cards, wanting between min and max of them, all distinct, and returns their
// Mask.
func check(cards []card.Card, min, max int) (Mask, error) {
	if len(cards) < min || len(cards) > max {
		if min == max {
			return 0, fmt.Errorf("%w: %d cards, want %d", ErrCards, len(cards), min)
		}
		return 0, fmt.Errorf("%w: %d cards, want %d to %d", ErrCards, len(cards), min, max)
	}
	var m Mask
	for i, c := range cards {
		if !c.Valid() {
			return 0, fmt.Errorf("%w: card %d is not a card", ErrCards, i+1)
		}
		b := cardBit[c]
		if m&b != 0 {
			return 0, fmt.Errorf("%w: %s appears twice", ErrCards, c)
		}
		m |= b
	}
	return m, nil
}
