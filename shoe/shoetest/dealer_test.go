package shoetest_test

import (
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/baccarat"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/shoetest"
	"github.com/sabot-tables/sabot/tablebus"
)

// TestDealerWithinLimits: the simulated dealer of an EZ table with side-bet minimums above the
// bettors' small unit (the scoreboard test's table) places only bets the engine takes: a bet
// the table refuses leaves the round unopened.
func TestDealerWithinLimits(t *testing.T) {
	limits := []games.Limit{{Spot: "player", Min: 500, Max: 2000000}, {Spot: "banker", Min: 500, Max: 2000000},
		{Spot: "tie", Min: 500, Max: 100000}, {Spot: "dragon-7", Min: 500, Max: 10000}, {Spot: "panda-8", Min: 500, Max: 10000}}
	eng, err := baccarat.New(games.Config{Game: "punto-banco", Limits: limits, Options: map[string]string{baccarat.OptPayTable: "ez"}})
	if err != nil {
		t.Fatal(err)
	}
	d := shoetest.NewDealer("punto-banco", shoe.Procedure{}, 20)
	d.Bettors = shoetest.SideBettors(d.Bettors, eng.SideSpots(), 100)
	d.Limits = eng.Limits()
	sides, raised := 0, 0
	for coup := range 2000 {
		a, err := d.Next(tablebus.Event{Type: tablebus.Guide, State: shoe.Between.String()})
		if err != nil || a.Kind != shoetest.Bets {
			t.Fatalf("coup %d: %v %v", coup, a.Kind, err)
		}
		for _, b := range a.Bets {
			if b.Spot == "dragon-7" || b.Spot == "panda-8" {
				sides++
				if b.Amount == 500 {
					raised++
				}
			}
		}
		if err := eng.Begin(a.Bets); err != nil {
			t.Fatalf("coup %d: bets %v refused: %v", coup, a.Bets, err)
		}
	}
	if sides < 500 || raised < sides/2 {
		t.Errorf("%d side bets, %d raised to the table's minimum", sides, raised)
	}
}
