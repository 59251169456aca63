package catalog

import (
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
)

func TestPlayRoundBadInput(t *testing.T) {
	base := func() games.RoundInput {
		return games.RoundInput{Game: "blackjack", Cards: []string{"Td", "9s", "6h", "7c", "5d", "8s"},
			Bets: []games.Bet{{Seat: 1, Spot: "main", Amount: 100}}}
	}
	for _, tc := range []struct {
		name string
		edit func(*games.RoundInput)
		want string
	}{
		{"unknown game", func(in *games.RoundInput) { in.Game = "bingo" }, `unknown game "bingo"`},
		{"same seat twice", func(in *games.RoundInput) {
			in.Decisions = map[string][]string{"1": {"S"}, "01": {"H"}}
		}, `"01" and "1" are the same seat 1`},
		{"negative decks", func(in *games.RoundInput) { in.Decks = -1 }, "-1 decks"},
		{"three decks", func(in *games.RoundInput) { in.Decks = 3 }, "3 decks"},
		{"not a seat", func(in *games.RoundInput) { in.Decisions = map[string][]string{"x": {"S"}} }, `"x" is not a seat number`},
		{"bad card", func(in *games.RoundInput) { in.Cards[2] = "1h" }, "card 3"},
		{"too many of a card", func(in *games.RoundInput) {
			in.Cards = []string{"Td", "Td", "Td", "Td", "Td", "Td", "Td"}
		}, "Td appears 7 times, more than a 6-deck shoe holds"},
		{"too few cards", func(in *games.RoundInput) { in.Cards = in.Cards[:2] }, "too few cards"},
		// Leftover decisions are reported for the lowest seat first, always.
		{"leftovers in seat order", func(in *games.RoundInput) {
			in.Bets = append(in.Bets, games.Bet{Seat: 2, Spot: "main", Amount: 100})
			in.Cards = []string{"Ts", "Td", "9h", "Kc", "Qd", "Th", "8s"}
			in.Decisions = map[string][]string{"1": {"S", "H"}, "2": {"S", "H"}}
		}, "seat 1: decision \"H\" was never asked for"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 5 { // map order must not change the answer
				in := base()
				tc.edit(&in)
				_, err := PlayRound(in)
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("%v, want %q", err, tc.want)
				}
			}
		})
	}
}

// TestLayout: every game tells its spots, and takes new limits between rounds: a bet outside
// them is refused from the next round, a limit on a spot the game has not is refused whole.
func TestLayout(t *testing.T) {
	for _, game := range Games() {
		t.Run(game, func(t *testing.T) {
			eng, err := New(games.Config{Game: game})
			if err != nil {
				t.Fatal(err)
			}
			l, ok := eng.(games.Layout)
			if !ok {
				t.Fatalf("%s is not a games.Layout", game)
			}
			spots := l.Spots()
			if len(spots) == 0 {
				t.Fatal("no spots")
			}
			first := spots[0]
			if err := l.SetLimits([]games.Limit{{Spot: first, Min: 500, Max: 1000}, {Spot: "no-such-spot", Min: 1, Max: 2}}); err == nil ||
				!strings.Contains(err.Error(), "no-such-spot: not a spot of the layout") {
				t.Fatalf("a limit on an unknown spot: %v", err)
			}
			if len(l.Limits()) != 0 {
				t.Fatalf("a refused set changed the limits: %v", l.Limits())
			}
			if err := l.SetLimits([]games.Limit{{Spot: first, Min: 500, Max: 1000}}); err != nil {
				t.Fatal(err)
			}
			if got := l.Limits(); len(got) != 1 || got[0] != (games.Limit{Spot: first, Min: 500, Max: 1000}) {
				t.Fatalf("limits %v", got)
			}
			bets := []games.Bet{{Seat: 1, Spot: first, Amount: 1500}}
			if first == "stack" {
				bets = []games.Bet{{Seat: 1, Spot: first, Amount: 1500}, {Seat: 2, Spot: first, Amount: 700}}
			}
			if err := eng.Begin(bets); err == nil || !strings.Contains(err.Error(), "outside the table's "+first+" limit 500–1000") {
				t.Fatalf("a bet over the new limit: %v", err)
			}
		})
	}
}
