package trente

import (
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

// FuzzCoup deals arbitrary bytes as cards and checks the engine against a direct reading of
// RULES.md §3: rows filled in order to 31 or more, the lower total winning, and each chance's
// net. Nothing may panic.
func FuzzCoup(f *testing.F) {
	f.Add([]byte{48, 45, 32, 17, 38, 51, 30, 12}, false)
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20}, true)
	f.Fuzz(func(t *testing.T, data []byte, prison bool) {
		opts := map[string]string{}
		if prison {
			opts[OptTie31] = "prison"
		}
		e, err := New(games.Config{Game: Game, Options: opts})
		if err != nil {
			t.Fatal(err)
		}
		bets := []games.Bet{{Seat: 1, Spot: Rouge, Amount: 1001}, {Seat: 1, Spot: Noir, Amount: 1001},
			{Seat: 1, Spot: Couleur, Amount: 1001}, {Seat: 1, Spot: Inverse, Amount: 1001}}
		if err := e.Begin(bets); err != nil {
			t.Fatal(err)
		}
		var noir, rouge []card.Card
		for _, d := range data {
			c := card.Card(d%52 + 1)
			_, err := e.Card(c)
			switch {
			case RowTotal(noir) < 31:
				noir = append(noir, c)
			case RowTotal(rouge) < 31:
				rouge = append(rouge, c)
			default:
				if err == nil {
					t.Fatalf("card %s accepted after the coup", c)
				}
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		o, err := e.Outcome()
		nt, rt := RowTotal(noir), RowTotal(rouge)
		if rt < 31 {
			if err == nil {
				t.Fatal("outcome of an incomplete coup")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if nt > 40 || rt > 40 || o.Hands[0].Total != nt || o.Hands[1].Total != rt {
			t.Fatalf("totals %d %d, engine %d %d", nt, rt, o.Hands[0].Total, o.Hands[1].Total)
		}
		firstRed := noir[0].Suit() == card.Hearts || noir[0].Suit() == card.Diamonds
		want := map[string]int64{}
		switch {
		case nt == rt && nt == 31 && prison:
			want = map[string]int64{Rouge: -1001, Noir: -1001, Couleur: -1001, Inverse: -1001}
		case nt == rt && nt == 31:
			want = map[string]int64{Rouge: -500, Noir: -500, Couleur: -500, Inverse: -500}
		case nt == rt:
			want = map[string]int64{Rouge: 0, Noir: 0, Couleur: 0, Inverse: 0}
		default:
			redWins := rt < nt
			sign := func(b bool) int64 {
				if b {
					return 1001
				}
				return -1001
			}
			want[Rouge], want[Noir] = sign(redWins), sign(!redWins)
			want[Couleur], want[Inverse] = sign(firstRed == redWins), sign(firstRed != redWins)
		}
		for _, s := range o.Settlements {
			if s.Net != want[s.Spot] {
				t.Errorf("%s: %d, want %d (noir %v %d, rouge %v %d)", s.Spot, s.Net, want[s.Spot], noir, nt, rouge, rt)
			}
		}
	})
}
