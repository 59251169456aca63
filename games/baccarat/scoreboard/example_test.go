package scoreboard_test

import (
	"fmt"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/baccarat"
	"github.com/sabot-tables/sabot/games/baccarat/scoreboard"
	"github.com/sabot-tables/sabot/shoe/card"
)

// Feeding the board from the engine: one coup's outcome at a time.
func Example() {
	e, _ := baccarat.New(games.Config{Game: "punto-banco"})
	var board scoreboard.Board
	for _, coup := range [][]string{
		{"Ks", "9h", "8d", "Jc"}, // banker natural 9
		{"3s", "6h", "3d", "Tc"}, // tie 6 to 6, a player pair
		{"4s", "2h", "5d", "3c"}, // player natural 9
	} {
		_ = e.Begin(nil)
		for _, c := range coup {
			_, _ = e.Card(card.MustParse(c))
		}
		o, _ := e.Outcome()
		c, _ := scoreboard.FromOutcome(o)
		_ = board.Add(c)
	}
	for _, cell := range board.BigRoad() {
		fmt.Printf("col %d row %d %s, ties %d\n", cell.Col, cell.Row, cell.Result, cell.Ties)
	}
	fmt.Printf("%+v\n", board.Counts())
	// Output:
	// col 0 row 0 banker, ties 1
	// col 1 row 0 player, ties 0
	// {Banker:1 Player:1 Tie:1 PlayerPair:1 BankerPair:0 Natural:2}
}
