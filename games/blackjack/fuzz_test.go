package blackjack

import (
	"strconv"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

var fuzzCodes = []string{"H", "S", "D", "P", "R", "I", "N", "E", "X", "h"}

// FuzzRound plays rounds built from arbitrary bytes (cards, decisions, bets, presets) through
// games.PlayRound: nothing may panic, and every settled round must be consistent.
func FuzzRound(f *testing.F) {
	f.Add([]byte{0, 1, 100, 9, 37, 5, 30, 11, 2, 1, 0, 0, 1})
	f.Add([]byte{1, 2, 7, 44, 1, 40, 8, 47, 20, 3, 0, 1, 1, 4})
	f.Add([]byte{4, 1, 3, 30, 33, 31, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 4 {
			return
		}
		games4 := append(Presets(), GameChallenge21)
		g := games4[int(b[0])%len(games4)]
		nbox := 1 + int(b[1])%3
		amount := int64(b[2]) + 1
		rest := b[3:]
		half := len(rest) / 2
		var in games.RoundInput
		for _, x := range rest[:half] {
			in.Cards = append(in.Cards, card.FromIndex(int(x)%52).String())
		}
		in.Decisions = map[string][]string{}
		for i, x := range rest[half:] {
			seat := strconv.Itoa(1 + i%nbox)
			in.Decisions[seat] = append(in.Decisions[seat], fuzzCodes[int(x)%len(fuzzCodes)])
		}
		var e *Engine
		var err error
		for s := 1; s <= nbox; s++ {
			if g == GameChallenge21 {
				for k := 1; k <= 2+int(amount)%2; k++ {
					in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: "round" + strconv.Itoa(k), Amount: amount})
				}
			} else {
				in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: SpotMain, Amount: amount})
				if amount%3 == 0 {
					in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: SpotPerfectPairs, Amount: amount})
				}
			}
		}
		if g == GameChallenge21 {
			e, err = NewChallenge21(games.Config{})
		} else {
			e, err = New(games.Config{Rules: g})
		}
		if err != nil {
			t.Fatal(err)
		}
		o, err := games.PlayRound(e, 8, in)
		if err != nil {
			return
		}
		for _, h := range o.Hands {
			if tot, _ := Score(h.Cards); tot != h.Total {
				t.Fatalf("hand %+v: total %d, cards total %d", h, h.Total, tot)
			}
		}
		for _, s := range o.Settlements {
			if s.Amount <= 0 || s.Net > 25*s.Amount || s.Net < -s.Amount {
				t.Fatalf("settlement %+v out of bounds", s)
			}
		}
		if o.CardsUsed > len(in.Cards) {
			t.Fatalf("cards_used %d of %d", o.CardsUsed, len(in.Cards))
		}
	})
}

// FuzzOptions feeds arbitrary option names and values to the options parser: it must return
// either valid rules or an error.
func FuzzOptions(f *testing.F) {
	f.Add("soft17", "hit")
	f.Add("blackjack-pays", "3:2")
	f.Add("blackjack-pays", "9223372036854775807:1")
	f.Add("max-hands", "-1")
	f.Fuzz(func(t *testing.T, k, v string) {
		r, _ := Preset("classic")
		got, err := r.WithOptions(map[string]string{k: v})
		if err == nil {
			if verr := got.Validate(); verr != nil {
				t.Fatalf("%s=%q accepted but invalid: %v", k, v, verr)
			}
		}
	})
}
