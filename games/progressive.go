package games

import "github.com/sabot-tables/sabot/shoe/card"

// Claimer is an engine whose progressive side bet (RULES.md §7) a floor's controller pays at a
// live table: the engine settles the round without it, and Claims says what the controller
// needs to pay it. The round contract (`sabot games round`) pays it in the engine instead, from
// the pool's value given as an option.
type Claimer interface {
	// Claims returns, once the round is done, each progressive bet with the seat's final hand;
	// nil when the engine pays the progressive itself or the round has no progressive bet.
	Claims() []Claim
}

// Claim is one progressive bet and the hand it holds at the end of the round: the five cards the
// prize is judged on (after draw poker's exchange; Go poker's with the two community cards),
// their category, and whether the seat folded (no prize) or its hand is void (the bet returned).
type Claim struct {
	Seat     int
	Amount   int64
	Cards    []card.Card
	Category string
	Folded   bool
	Void     bool
}
