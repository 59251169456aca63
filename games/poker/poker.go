package poker

import (
	"fmt"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/poker/hand"
	"github.com/sabot-tables/sabot/shoe/card"
)

// The game ids of RULES.md §5–§6.
const (
	CaribbeanStud  = "caribbean-stud"
	DrawPoker      = "draw-poker"
	ThreeCardPoker = "three-card-poker"
	GoPoker        = "go-poker"
	Holdem         = "holdem"
	Omaha23        = "omaha-2-3"
	FiveCardStud   = "five-card-stud"
	SevenCardStud  = "seven-card-stud"
)

// HouseGames and CircleGames list the game ids each engine plays.
var (
	HouseGames  = []string{CaribbeanStud, DrawPoker, ThreeCardPoker, GoPoker}
	CircleGames = []string{Holdem, Omaha23, FiveCardStud, SevenCardStud}
)

// The spots of RULES.md §8 for poker, and the circle games' stack and pot.
const (
	SpotAnte        = "ante"
	SpotBet         = "bet"  // Caribbean stud and draw poker: 2 × ante, placed by the "bet" decision
	SpotPlay        = "play" // three card poker: = ante, placed by the "play" decision
	SpotPairPlus    = "pair-plus"
	SpotProgressive = "progressive"
	// SpotStack is, in a circle game, the chips a seat brings to the round: the most it can put
	// in the pots. Every seat that plays a circle game has one.
	SpotStack = "stack"
	// SpotPot is the circle games' settlement: Amount is what the seat put in the pots, Net what
	// it took out less that.
	SpotPot = "pot"
)

// The places cards go to.
var (
	placeDealer = games.Place{Name: "dealer"}
	placeBoard  = games.Place{Name: "board"}
)

func placeBox(seat int) games.Place { return games.Place{Name: "box", Seat: seat} }

// dealt tracks the round's cards: which have been seen (one deck: RULES.md §1 "poker family |
// 1") and the index of the next, burns included (games.Step.Reveal counts that way).
type dealt struct {
	seen hand.Mask
	n    int
}

// take records card c, refusing a non-card and a card already dealt this round.
func (d *dealt) take(game string, c card.Card) (int, error) {
	if !c.Valid() {
		return 0, &games.RuleError{Game: game, What: fmt.Sprintf("card %d", uint8(c)), Rule: "not one of the 52 cards"}
	}
	if d.seen&hand.Bit(c) != 0 {
		return 0, &games.RuleError{Game: game, What: c.String(), Rule: "already dealt this round (one deck, shuffled before every round: RULES.md §1)"}
	}
	d.seen |= hand.Bit(c)
	d.n++
	return d.n - 1, nil
}

// burn records a burn; c may be card.None where the burn was not read.
func (d *dealt) burn(game string, c card.Card) error {
	if c == card.None {
		d.n++
		return nil
	}
	_, err := d.take(game, c)
	return err
}

// notReady is Outcome's error before the round is complete.
func notReady(game string, n games.Need) error {
	return fmt.Errorf("poker: %s: the round is not complete: waiting for %s", game, n)
}
