package scoreboard

import (
	"fmt"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/baccarat/roads"
)

// Rows is the height of every road.
const Rows = roads.Rows

// The roads' types, under the names the scoreboard has always used.
type (
	Coup   = roads.Coup
	Board  = roads.Roads
	View   = roads.View
	Bead   = roads.Bead
	Cell   = roads.Cell
	Counts = roads.Counts
)

// ErrCoup is wrapped by every error about a coup the scoreboard cannot record.
var ErrCoup = roads.ErrCoup

// FromOutcome reads a coup from a completed baccarat-family outcome: its result and its
// "player" and "banker" hands.
func FromOutcome(o *games.Outcome) (Coup, error) {
	if o == nil {
		return Coup{}, fmt.Errorf("%w: no outcome", ErrCoup)
	}
	c := Coup{Result: o.Result}
	var seen int
	for _, h := range o.Hands {
		if len(h.Cards) < 2 {
			return Coup{}, fmt.Errorf("%w: %s hand has %d cards", ErrCoup, h.Name, len(h.Cards))
		}
		pair := h.Cards[0].Rank() == h.Cards[1].Rank()
		two := (h.Cards[0].BaccaratValue() + h.Cards[1].BaccaratValue()) % 10
		switch h.Name {
		case "player":
			c.PlayerTotal, c.PlayerPair = h.Total, pair
		case "banker":
			c.BankerTotal, c.BankerPair = h.Total, pair
		default:
			continue
		}
		seen++
		c.Natural = c.Natural || two >= 8
	}
	if seen != 2 {
		return Coup{}, fmt.Errorf("%w: a %s outcome without a player and a banker hand", ErrCoup, o.Game)
	}
	return c, c.Check()
}
