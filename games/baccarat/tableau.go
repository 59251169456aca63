package baccarat

import (
	"fmt"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Variant is one game of the family (RULES.md §2).
type Variant uint8

// The three games of the family.
const (
	PuntoBanco  Variant = iota // `punto-banco`: fixed tableau, tie bet 8:1
	Baccarat                   // `baccarat`: no tie bet, a tie voids the coup (seed 000)
	CheminDeFer                // `chemin-de-fer`: punter's and banker's options, a player bank
)

// String returns the RULES.md game id.
func (v Variant) String() string {
	switch v {
	case PuntoBanco:
		return "punto-banco"
	case Baccarat:
		return "baccarat"
	case CheminDeFer:
		return "chemin-de-fer"
	}
	return fmt.Sprintf("Variant(%d)", uint8(v))
}

// ParseVariant returns the variant of a RULES.md game id.
func ParseVariant(game string) (Variant, error) {
	for _, v := range []Variant{PuntoBanco, Baccarat, CheminDeFer} {
		if v.String() == game {
			return v, nil
		}
	}
	return 0, fmt.Errorf("baccarat: unknown game %q (known: punto-banco, baccarat, chemin-de-fer)", game)
}

// Action is what the tableau tells a hand to do.
type Action uint8

// The tableau's three answers.
const (
	Stand  Action = iota
	Draw          // the hand must draw a third card
	Option        // chemin de fer: the hand's holder chooses ("draw" or "stand")
)

func (a Action) String() string {
	switch a {
	case Stand:
		return "stand"
	case Draw:
		return "draw"
	case Option:
		return "option"
	}
	return fmt.Sprintf("Action(%d)", uint8(a))
}

// Total is a hand's total: the sum of its cards' baccarat values (A = 1, 2–9 pip, ten and court
// cards 0), modulo 10 (RULES.md §2; seed 003 "reste 10").
func Total(cards []card.Card) int {
	t := 0
	for _, c := range cards {
		t += c.BaccaratValue()
	}
	return t % 10
}

// Natural reports whether a two-card total is a natural: 8 or 9 (RULES.md §2 rule 1).
func Natural(total int) bool { return total >= 8 }

// PlayerAction is the tableau for the player (punter) hand with two-card total pt, when neither
// hand has a natural. RULES.md §2 rule 2: 0–5 draws, 6–7 stands. Chemin de fer: 0–4 draw, 5 is
// the punter's option, 6–7 stand (RULES.md §2 table; gamemath.md §1.5).
func PlayerAction(v Variant, pt int) Action {
	switch {
	case v == CheminDeFer && pt == 5:
		return Option
	case pt <= 5:
		return Draw
	}
	return Stand
}

// BankerAction is the tableau for the banker hand with two-card total bt, when neither hand has a
// natural. p3 is the baccarat value of the player's third card, or -1 when the player stood.
//
// RULES.md §2 rule 3: the player stood, the banker draws on 0–5 and stands on 6–7. Rule 4 (seed
// 003 "Regla para la tercera carta"): b ≤ 2 draws; 3 draws unless p = 8; 4 draws on p 2–7; 5 on
// p 4–7; 6 on p 6–7; 7 stands. Chemin de fer makes 3 against a 9 and 5 against a 4 the banker's
// option (RULES.md §2 table).
func BankerAction(v Variant, bt, p3 int) Action {
	if p3 < 0 {
		if bt <= 5 {
			return Draw
		}
		return Stand
	}
	if v == CheminDeFer && (bt == 3 && p3 == 9 || bt == 5 && p3 == 4) {
		return Option
	}
	draw := false
	switch bt {
	case 0, 1, 2:
		draw = true
	case 3:
		draw = p3 != 8
	case 4:
		draw = p3 >= 2 && p3 <= 7
	case 5:
		draw = p3 >= 4 && p3 <= 7
	case 6:
		draw = p3 == 6 || p3 == 7
	}
	if draw {
		return Draw
	}
	return Stand
}
