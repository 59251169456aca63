package sim_test

import (
	"math/rand/v2"
	"strconv"
	"sync"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/blackjack"
	"github.com/sabot-tables/sabot/games/blackjack/sim"
	"github.com/sabot-tables/sabot/games/blackjack/strategy"
	"github.com/sabot-tables/sabot/shoe/card"
)

var (
	strategiesMu sync.Mutex
	strategies   = map[int]*strategy.Strategy{}
)

// strategyFor generates each variant's strategy once (it takes a tenth of a second).
func strategyFor(t *testing.T, i int, r blackjack.Rules) *strategy.Strategy {
	strategiesMu.Lock()
	defer strategiesMu.Unlock()
	if s := strategies[i]; s != nil {
		return s
	}
	s, err := strategy.Generate(r, 8)
	if err != nil {
		t.Fatal(err)
	}
	strategies[i] = s
	return s
}

// FuzzCrossCheck is the cross-check as a fuzz target: arbitrary cards, a rule set and a random
// player chosen by the input; the simulator and the engine must agree on the net and the cards
// used.
func FuzzCrossCheck(f *testing.F) {
	f.Add(uint8(0), uint64(1), []byte{7, 33, 8, 20, 40, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21})
	f.Add(uint8(9), uint64(2), []byte{0, 36, 4, 1, 2, 3, 5, 6, 44, 45, 46, 47, 48, 49, 50, 51, 30, 31})
	f.Fuzz(func(t *testing.T, vi uint8, seed uint64, b []byte) {
		v := variants[int(vi)%len(variants)]
		if len(b) > 60 {
			b = b[:60]
		}
		var cards []card.Card
		var n card.Counts
		for _, x := range b {
			c := card.FromIndex(int(x) % 52)
			if n.Add(c); n.Of(c) > 8 {
				return
			}
			cards = append(cards, c)
		}
		preset := v.preset
		if v.rounds > 0 {
			preset = "enhc"
		}
		r, _ := blackjack.Preset(preset)
		r, err := r.WithOptions(v.opts)
		if err != nil {
			t.Fatal(err)
		}
		cfg := sim.DefaultConfig(r, 8)
		cfg.Rounds = v.rounds
		cfg.Strategy = strategyFor(t, int(vi)%len(variants), r)
		if seed%3 != 0 {
			cfg.Choose = randomPlayer(rand.New(rand.NewPCG(seed, 1)))
		}
		s, err := sim.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		net, dec, used, err := s.PlayRound(cards)
		if err != nil {
			return // too few cards for the round
		}
		amount := 50 * s.Unit()
		in := games.RoundInput{Decisions: map[string][]string{"1": dec}}
		var e *blackjack.Engine
		if v.rounds > 0 {
			for k := 1; k <= v.rounds; k++ {
				in.Bets = append(in.Bets, games.Bet{Seat: 1, Spot: "round" + strconv.Itoa(k), Amount: amount})
			}
			e, err = blackjack.NewChallenge21(games.Config{Decks: 8, Options: v.opts})
		} else {
			in.Bets = []games.Bet{{Seat: 1, Spot: blackjack.SpotMain, Amount: amount}}
			e, err = blackjack.New(games.Config{Rules: v.preset, Decks: 8, Options: v.opts})
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cards[:used] {
			in.Cards = append(in.Cards, c.String())
		}
		o, err := games.PlayRound(e, 8, in)
		if err != nil {
			t.Fatalf("engine refused what the simulator played: %v\n%v %v", err, in.Cards, dec)
		}
		if o.Net() != 50*net || o.CardsUsed != used {
			t.Fatalf("%v %v: engine %d cents %d cards, simulator %d cents %d cards", in.Cards, dec, o.Net(), o.CardsUsed, 50*net, used)
		}
	})
}
