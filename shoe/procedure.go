package shoe

import (
	"fmt"
	"strconv"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Family is a game family: each has its own shoe procedure (RULES.md §1's table).
type Family uint8

// The families of RULES.md §1.
const (
	Baccarat  Family = iota + 1 // punto banco, baccarat, chemin de fer
	Trente                      // trente et quarante
	Blackjack                   // blackjack, challenge 21
	Poker                       // the poker games: one deck, shuffled before every round
)

func (f Family) String() string {
	switch f {
	case Baccarat:
		return "baccarat"
	case Trente:
		return "trente"
	case Blackjack:
		return "blackjack"
	case Poker:
		return "poker"
	}
	return fmt.Sprintf("Family(%d)", uint8(f))
}

// ParseFamily reads a family name as games/catalog writes it.
func ParseFamily(s string) (Family, error) {
	for _, f := range []Family{Baccarat, Trente, Blackjack, Poker} {
		if f.String() == s {
			return f, nil
		}
	}
	return 0, fmt.Errorf("shoe: unknown game family %q", s)
}

// BurnRule says how many cards are burned at the start of a shoe.
type BurnRule uint8

// The burn rules of RULES.md §1.
const (
	BurnNone       BurnRule = iota // poker: no burn at the start
	BurnFixed                      // a fixed number, face down
	BurnFirstValue                 // baccarat: the first card face up, then as many as its value
)

// Procedure is one row of RULES.md §1: how a shoe of this game is prepared and ended.
type Procedure struct {
	Family Family
	Decks  int
	// CutMinEnd: the player's cut must leave at least this many cards at each end.
	CutMinEnd int
	// BehindMin and BehindMax bound the cards placed behind the stop card (both 0: no stop card);
	// BehindDefault is where the dealer puts it by default.
	BehindMin, BehindMax, BehindDefault int
	Burn                                BurnRule
	BurnCount                           int // BurnFixed: how many
	// Continuous: a continuous shuffling machine feeds the shoe (blackjack): no cut, no stop
	// card, no burn, and every round's cards go back into the machine when it ends.
	Continuous bool
}

// Total is the number of cards in the shoe.
func (p Procedure) Total() int { return p.Decks * 52 }

// ProcedureFor returns RULES.md §1's procedure for a family with the given number of decks
// (0 for the family's default).
func ProcedureFor(f Family, decks int) (Procedure, error) {
	var p Procedure
	switch f {
	case Baccarat:
		// RULES.md §1: 8 decks (6 allowed); the stop card exactly 6 cards from the back (seed
		// 000: "tomar 6 cartas de la parte posterior ... colocar sobre esas 6 cartas la carta
		// de corte"); the cut leaves at least 52 cards at each end; the first card is turned
		// up and as many cards as its value are burned.
		p = Procedure{Family: f, Decks: 8, CutMinEnd: 52, BehindMin: 6, BehindMax: 6, Burn: BurnFirstValue}
		if decks != 0 && decks != 6 && decks != 8 {
			return p, fmt.Errorf("shoe: baccarat is dealt from 8 or 6 decks, not %d (RULES.md §1)", decks)
		}
	case Trente:
		// RULES.md §1: 6 decks (6–8); no less than one deck and no more than half the cards
		// behind the stop card; 5 cards burned (seed 000). The seed puts no bound on the cut:
		// Sabot takes the baccarat family's 52 cards at each end (RULES.md §1).
		p = Procedure{Family: f, Decks: 6, CutMinEnd: 52, BehindMin: 52, Burn: BurnFixed, BurnCount: 5}
		if decks != 0 && (decks < 6 || decks > 8) {
			return p, fmt.Errorf("shoe: trente et quarante is dealt from 6 to 8 decks, not %d (RULES.md §1)", decks)
		}
	case Blackjack:
		// RULES.md §1: 6 decks (6–8); the stop card by penetration, 1.5 decks behind it by
		// default (accepted from one deck to half the shoe); the cut leaves at least 10 cards
		// at either end; 1 card burned.
		p = Procedure{Family: f, Decks: 6, CutMinEnd: 10, BehindMin: 52, BehindDefault: 78, Burn: BurnFixed, BurnCount: 1}
		if decks != 0 && (decks < 6 || decks > 8) {
			return p, fmt.Errorf("shoe: blackjack is dealt from 6 to 8 decks, not %d (RULES.md §1)", decks)
		}
	case Poker:
		// RULES.md §1: one deck, shuffled before every round; no stop card.
		p = Procedure{Family: f, Decks: 1, Burn: BurnNone}
		if decks != 0 && decks != 1 {
			return p, fmt.Errorf("shoe: poker is dealt from one deck, not %d (RULES.md §1)", decks)
		}
	default:
		return p, fmt.Errorf("shoe: unknown game family %v", f)
	}
	if decks != 0 {
		p.Decks = decks
	}
	if p.BehindMax == 0 && p.BehindMin > 0 {
		p.BehindMax = p.Total() / 2
	}
	if p.BehindDefault == 0 {
		p.BehindDefault = p.BehindMin
	}
	return p, nil
}

// burnCount returns how many cards to burn after the first card (BurnFirstValue) or in all.
func (p Procedure) burnCount(first card.Card) int {
	switch p.Burn {
	case BurnFirstValue:
		// RULES.md §1: "as many cards as its baccarat value are burned face down (A=1 … 9=9,
		// ten and court = 10)".
		return first.PipValue()
	case BurnFixed:
		return p.BurnCount
	}
	return 0
}

// WithBurn returns the procedure with its start-of-shoe burn set (RULES.md §1: the burn is
// configurable): "first-card" (the baccarat rule: the first card up, then as many as its value)
// or a number of cards burned face down (0: none).
func (p Procedure) WithBurn(spec string) (Procedure, error) {
	if spec == "first-card" {
		p.Burn, p.BurnCount = BurnFirstValue, 0
		return p, nil
	}
	n, err := strconv.Atoi(spec)
	if err != nil || n < 0 || n > 10 {
		return p, fmt.Errorf("shoe: burn %q: \"first-card\" or a number of cards from 0 to 10", spec)
	}
	if p.BehindMax == 0 {
		return p, fmt.Errorf("shoe: burn %q: %s decks are shuffled before every round and burn nothing at the start (RULES.md §1)", spec, p.Family)
	}
	p.Burn, p.BurnCount = BurnFixed, n
	return p, nil
}

// WithStopCard returns the procedure with the house's stop card position (cards behind it,
// RULES.md §1: blackjack's penetration is configurable), which must lie within the rule's bounds.
func (p Procedure) WithStopCard(behind int) (Procedure, error) {
	if behind < p.BehindMin || behind > p.BehindMax {
		return p, fmt.Errorf("shoe: stop card %d cards from the back: %s allows %d to %d (RULES.md §1)", behind, p.Family, p.BehindMin, p.BehindMax)
	}
	p.BehindDefault = behind
	return p, nil
}

// WithContinuous returns the procedure of a table whose shoe a continuous shuffling machine
// feeds: the discards go back into the machine after every round, so there is no cut, no stop
// card and no burn, and the shoe ends only when the dealer ends it to count the cards (RULES.md
// §1 "Continuous shufflers"). Only the blackjack family deals from one.
func (p Procedure) WithContinuous() (Procedure, error) {
	if p.Family != Blackjack {
		return p, fmt.Errorf("shoe: a continuous shuffler deals blackjack only, not %s (RULES.md §1)", p.Family)
	}
	p.Continuous = true
	p.CutMinEnd, p.BehindMin, p.BehindMax, p.BehindDefault = 0, 0, 0, 0
	p.Burn, p.BurnCount = BurnNone, 0
	return p, nil
}
