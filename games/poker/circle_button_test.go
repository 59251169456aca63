package poker_test

import (
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/games/poker"
)

// At a live table the engine is used round after round: the button moves one seat to the left
// (the next seat playing) every round, wrapping round the table.
func TestButtonMoves(t *testing.T) {
	e, err := catalog.New(games.Config{Game: "holdem"})
	if err != nil {
		t.Fatal(err)
	}
	c := e.(*poker.Circle)
	bets := []games.Bet{{Seat: 2, Spot: "stack", Amount: 10000}, {Seat: 4, Spot: "stack", Amount: 10000}, {Seat: 7, Spot: "stack", Amount: 10000}}
	var got []int
	for range 5 {
		if err := c.Begin(bets); err != nil {
			t.Fatal(err)
		}
		got = append(got, c.Button())
	}
	want := []int{7, 2, 4, 7, 2}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("buttons %v, want %v", got, want)
		}
	}
}
