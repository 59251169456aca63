package scoreboard

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sabot-tables/sabot/games"
)

// Rows is the height of the bead plate and the big road: six, as on every baccarat scoreboard.
const Rows = 6

// Coup is what the scoreboard records of one coup.
type Coup struct {
	Result      string `json:"result"` // "player", "banker" or "tie"
	PlayerTotal int    `json:"player_total"`
	BankerTotal int    `json:"banker_total"`
	PlayerPair  bool   `json:"player_pair,omitempty"`
	BankerPair  bool   `json:"banker_pair,omitempty"`
	Natural     bool   `json:"natural,omitempty"` // a hand had a two-card 8 or 9
}

// ErrCoup is wrapped by every error about a coup the scoreboard cannot record.
var ErrCoup = errors.New("scoreboard: coup")

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
	return c, c.check()
}

func (c Coup) check() error {
	switch c.Result {
	case "player", "banker", "tie":
	default:
		return fmt.Errorf("%w: result %q (want player, banker or tie)", ErrCoup, c.Result)
	}
	if c.PlayerTotal < 0 || c.PlayerTotal > 9 || c.BankerTotal < 0 || c.BankerTotal > 9 {
		return fmt.Errorf("%w: totals %d and %d (a baccarat total is 0–9)", ErrCoup, c.PlayerTotal, c.BankerTotal)
	}
	return nil
}

// Bead is one coup on the bead plate: column by column, top to bottom.
type Bead struct {
	Coup
	Col int `json:"col"`
	Row int `json:"row"`
}

// Cell is one mark on the big road: a banker or player win, with the ties that followed it.
type Cell struct {
	Col        int    `json:"col"`
	Row        int    `json:"row"`
	Result     string `json:"result"`         // "banker" or "player"
	Ties       int    `json:"ties,omitempty"` // ties after this win (before the shoe's first win: on it)
	PlayerPair bool   `json:"player_pair,omitempty"`
	BankerPair bool   `json:"banker_pair,omitempty"`
	Natural    bool   `json:"natural,omitempty"`
	Streak     int    `json:"streak"` // the streak (0 first) the cell belongs to
	Length     int    `json:"length"` // its place in the streak, 1 first
	Coup       int    `json:"coup"`   // the coup's number in the shoe, 1 first
}

// Board is one shoe's scoreboard. The zero value is an empty board ready for use.
type Board struct {
	coups []Coup
	beads []Bead
	road  []Cell
	taken map[[2]int]bool
	// leading counts the ties before the shoe's first banker or player win.
	leading int
	// streakCol is the column where the current streak started.
	streakCol int
}

// Add records a completed coup.
func (b *Board) Add(c Coup) error {
	if err := c.check(); err != nil {
		return err
	}
	n := len(b.coups)
	b.coups = append(b.coups, c)
	b.beads = append(b.beads, Bead{Coup: c, Col: n / Rows, Row: n % Rows})
	if c.Result == "tie" {
		if len(b.road) == 0 {
			b.leading++
		} else {
			b.road[len(b.road)-1].Ties++
		}
		return nil
	}
	if b.taken == nil {
		b.taken = map[[2]int]bool{}
	}
	cell := Cell{Result: c.Result, PlayerPair: c.PlayerPair, BankerPair: c.BankerPair, Natural: c.Natural, Coup: n + 1}
	switch {
	case len(b.road) == 0:
		cell.Ties, b.leading = b.leading, 0
		cell.Length = 1
	case b.road[len(b.road)-1].Result != c.Result:
		// A new streak starts at the top of the column after the last streak's first.
		// If a dragon tail already holds the top of that column, the next free one.
		last := b.road[len(b.road)-1]
		b.streakCol++
		for b.taken[[2]int{b.streakCol, 0}] {
			b.streakCol++
		}
		cell.Col, cell.Streak, cell.Length = b.streakCol, last.Streak+1, 1
	default:
		// The streak goes on: down while the cell below is free and on the board, else
		// right along its row (the "dragon tail").
		last := b.road[len(b.road)-1]
		cell.Streak, cell.Length = last.Streak, last.Length+1
		if last.Row+1 < Rows && !b.taken[[2]int{last.Col, last.Row + 1}] && last.Col == b.streakCol {
			cell.Col, cell.Row = last.Col, last.Row+1
		} else {
			cell.Col, cell.Row = last.Col+1, last.Row
		}
	}
	b.taken[[2]int{cell.Col, cell.Row}] = true
	b.road = append(b.road, cell)
	return nil
}

// Coups returns how many coups the board holds.
func (b *Board) Coups() int { return len(b.coups) }

// BeadPlate returns the bead plate.
func (b *Board) BeadPlate() []Bead { return append([]Bead(nil), b.beads...) }

// BigRoad returns the big road's cells in the order they were marked.
func (b *Board) BigRoad() []Cell { return append([]Cell(nil), b.road...) }

// Reset clears the board for a new shoe.
func (b *Board) Reset() { *b = Board{} }

// Counts are the shoe's totals by result and side bet.
type Counts struct {
	Banker     int `json:"banker"`
	Player     int `json:"player"`
	Tie        int `json:"tie"`
	PlayerPair int `json:"player_pair"`
	BankerPair int `json:"banker_pair"`
	Natural    int `json:"natural"`
}

// Counts returns the shoe's totals.
func (b *Board) Counts() Counts {
	var c Counts
	for _, x := range b.coups {
		switch x.Result {
		case "banker":
			c.Banker++
		case "player":
			c.Player++
		default:
			c.Tie++
		}
		if x.PlayerPair {
			c.PlayerPair++
		}
		if x.BankerPair {
			c.BankerPair++
		}
		if x.Natural {
			c.Natural++
		}
	}
	return c
}

// View is the board as published: what MarshalJSON writes.
type View struct {
	Rows        int    `json:"rows"`
	Coups       int    `json:"coups"`
	Counts      Counts `json:"counts"`
	LeadingTies int    `json:"leading_ties,omitempty"` // ties so far with no win yet
	BeadPlate   []Bead `json:"bead_plate"`
	BigRoad     []Cell `json:"big_road"`
}

// View returns the board as published.
func (b *Board) View() View {
	v := View{Rows: Rows, Coups: len(b.coups), Counts: b.Counts(), LeadingTies: b.leading, BeadPlate: b.BeadPlate(), BigRoad: b.BigRoad()}
	if v.BeadPlate == nil {
		v.BeadPlate = []Bead{}
	}
	if v.BigRoad == nil {
		v.BigRoad = []Cell{}
	}
	return v
}

// MarshalJSON writes the View.
func (b *Board) MarshalJSON() ([]byte, error) {
	type view View // no MarshalJSON
	return json.Marshal(view(b.View()))
}
