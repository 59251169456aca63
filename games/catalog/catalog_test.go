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
