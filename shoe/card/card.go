// Package card is the playing-card type every other Sabot package uses: ranks, suits, the
// two-character notation of RULES.md §0, and deck compositions. It is a leaf: it imports nothing
// else from the module.
package card

import (
	"errors"
	"fmt"
	"strings"
)

// Rank is a card's rank, Ace = 1 through King = 13. The zero value is not a rank.
type Rank uint8

// The thirteen ranks, in the order RULES.md §0 writes them.
const (
	Ace Rank = 1 + iota
	Two
	Three
	Four
	Five
	Six
	Seven
	Eight
	Nine
	Ten
	Jack
	Queen
	King
)

const rankChars = "A23456789TJQK"

// Valid reports whether r is one of the thirteen ranks.
func (r Rank) Valid() bool { return r >= Ace && r <= King }

// String returns the rank's one-character form: A 2 … 9 T J Q K.
func (r Rank) String() string {
	if !r.Valid() {
		return "?"
	}
	return rankChars[r-1 : r]
}

// Suit is a card's suit. The zero value is spades; use Valid on a Card to tell a real card.
type Suit uint8

// The four suits, in the order RULES.md §0 writes them.
const (
	Spades Suit = iota
	Hearts
	Diamonds
	Clubs
)

const suitChars = "shdc"

// Valid reports whether s is one of the four suits.
func (s Suit) Valid() bool { return s <= Clubs }

// String returns the suit's one-character form: s h d c.
func (s Suit) String() string {
	if !s.Valid() {
		return "?"
	}
	return suitChars[s : s+1]
}

// Red reports whether the suit is hearts or diamonds.
func (s Suit) Red() bool { return s == Hearts || s == Diamonds }

// Symbol returns the suit's Unicode symbol, for people.
func (s Suit) Symbol() string {
	switch s {
	case Spades:
		return "♠"
	case Hearts:
		return "♥"
	case Diamonds:
		return "♦"
	case Clubs:
		return "♣"
	}
	return "?"
}

// Card is one playing card. The zero value is no card (None); valid cards are 1…52, so a Card
// fits in a byte and indexes arrays through Index.
type Card uint8

// None is the zero Card: no card.
const None Card = 0

// New returns the card of rank r and suit s, or None if either is invalid.
func New(r Rank, s Suit) Card {
	if !r.Valid() || !s.Valid() {
		return None
	}
	return Card(uint8(r-1)*4 + uint8(s) + 1)
}

// FromIndex returns the card whose Index is i (0…51), or None.
func FromIndex(i int) Card {
	if i < 0 || i >= 52 {
		return None
	}
	return Card(i + 1)
}

// Valid reports whether c is one of the 52 cards.
func (c Card) Valid() bool { return c >= 1 && c <= 52 }

// Index returns 0…51 for a valid card (rank-major: As, Ah, Ad, Ac, 2s, …), or -1.
func (c Card) Index() int {
	if !c.Valid() {
		return -1
	}
	return int(c) - 1
}

// Rank returns the card's rank, or 0 for an invalid card.
func (c Card) Rank() Rank {
	if !c.Valid() {
		return 0
	}
	return Rank((c-1)/4 + 1)
}

// Suit returns the card's suit; meaningless for an invalid card.
func (c Card) Suit() Suit { return Suit((c - 1) % 4) }

// String returns the two-character form of RULES.md §0 ("As", "Td"), or "??" for None.
func (c Card) String() string {
	if !c.Valid() {
		return "??"
	}
	return c.Rank().String() + c.Suit().String()
}

// Pretty returns the card for people: rank and suit symbol, with "10" for the ten ("10♥").
func (c Card) Pretty() string {
	if !c.Valid() {
		return "??"
	}
	r := c.Rank().String()
	if c.Rank() == Ten {
		r = "10"
	}
	return r + c.Suit().Symbol()
}

// ErrSyntax is wrapped by every Parse error.
var ErrSyntax = errors.New("card: invalid card")

// Parse reads a card in the notation of RULES.md §0: a rank A 2 3 4 5 6 7 8 9 T J Q K (or "10")
// followed by a suit s h d c; upper-case suits are accepted too. Output always uses String's form.
func Parse(s string) (Card, error) {
	var rs, ss string
	switch len(s) {
	case 2:
		rs, ss = s[:1], s[1:]
	case 3:
		rs, ss = s[:2], s[2:]
		if rs != "10" {
			return None, fmt.Errorf("%w %q", ErrSyntax, s)
		}
		rs = "T"
	default:
		return None, fmt.Errorf("%w %q", ErrSyntax, s)
	}
	ri := strings.IndexByte(rankChars, rs[0])
	si := strings.IndexByte(suitChars, ss[0]|0x20) // ASCII lower-case
	if ri < 0 || si < 0 || ss[0] < 'A' {
		return None, fmt.Errorf("%w %q", ErrSyntax, s)
	}
	return New(Rank(ri+1), Suit(si)), nil
}

// MustParse is Parse for constants in tests and tables; it panics on a bad card.
func MustParse(s string) Card {
	c, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return c
}

// ParseList reads cards separated by spaces or commas ("As Kd,10h").
func ParseList(s string) ([]Card, error) {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '\n' })
	out := make([]Card, 0, len(f))
	for _, w := range f {
		c, err := Parse(w)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// MarshalText writes the two-character form; None is an error.
func (c Card) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("%w: no card", ErrSyntax)
	}
	return []byte(c.String()), nil
}

// UnmarshalText reads a card with Parse.
func (c *Card) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// BaccaratValue is the card's value in the baccarat family (RULES.md §2): A = 1, 2–9 pip,
// ten and court cards 0. The burn count at the start of a baccarat shoe uses PipValue instead
// (RULES.md §1: ten and court = 10).
func (c Card) BaccaratValue() int {
	r := c.Rank()
	if r >= Ten {
		return 0
	}
	return int(r)
}

// PipValue is the card's value with the ten and courts worth 10 and the ace 1: the value used by
// trente et quarante (RULES.md §3), blackjack's hard count (§4) and the baccarat-family burn
// (§1: "A=1 … 9=9, ten and court = 10").
func (c Card) PipValue() int {
	r := c.Rank()
	if r >= Ten {
		return 10
	}
	return int(r)
}

// Deck returns the 52 cards in Index order.
func Deck() []Card {
	d := make([]Card, 52)
	for i := range d {
		d[i] = Card(i + 1)
	}
	return d
}

// Named returns the cards a text names, in order, once per mention: every word that is a card
// in the notation of RULES.md §0 ("Kd", "10h", "KD") or in Pretty's form ("K♦", "10♥", and the
// white suits ♤♡♢♧). A word is bounded by the text's ends or by anything but an ASCII letter or
// digit. It is how Sabot checks that words carry no card identity (a void's reason, the feed's
// free text): a card's identity travels only in a card field.
func Named(s string) []Card {
	alnum := func(b byte) bool { return b >= '0' && b <= '9' || b >= 'A' && b <= 'Z' || b >= 'a' && b <= 'z' }
	var out []Card
	for i := 0; i < len(s); i++ {
		if i > 0 && alnum(s[i-1]) {
			continue
		}
		j, r := i, -1
		switch {
		case strings.HasPrefix(s[i:], "10"):
			j, r = i+2, int(Ten)
		default:
			if k := strings.IndexByte(rankChars, s[i]); k >= 0 {
				j, r = i+1, k+1
			}
		}
		if r < 0 || j >= len(s) {
			continue
		}
		suit, n := -1, 0
		if k := strings.IndexByte(suitChars, s[j]|0x20); k >= 0 && s[j] >= 'A' {
			suit, n = k, 1
		} else {
			for k, sym := range suitSymbols {
				for _, x := range sym {
					if strings.HasPrefix(s[j:], x) {
						suit, n = k, len(x)
					}
				}
			}
		}
		if suit < 0 || j+n < len(s) && alnum(s[j+n]) {
			continue
		}
		out = append(out, New(Rank(r), Suit(suit)))
	}
	return out
}

// suitSymbols are the suits' symbols, black and white, in Suit order.
var suitSymbols = [4][2]string{{"♠", "♤"}, {"♥", "♡"}, {"♦", "♢"}, {"♣", "♧"}}
