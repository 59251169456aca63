package sim_test

import (
	"flag"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/blackjack"
	"github.com/sabot-tables/sabot/games/blackjack/sim"
	"github.com/sabot-tables/sabot/games/blackjack/strategy"
	"github.com/sabot-tables/sabot/shoe/card"
)

var crossRounds = flag.Int("cross.rounds", 4000, "random rounds per rule set and player in TestCrossCheck")

// variants are the rule sets cross-checked: the four presets, and options that reach the rest of
// the rule table (resplit and hit split aces, the original bet only without a peek, 6:5, H17
// with a hole card, no doubling, split once by rank).
var variants = []struct {
	preset string
	opts   map[string]string
	rounds int // Challenge 21 round bets
}{
	{"classic", nil, 0},
	{"real21", nil, 0},
	{"retiro", nil, 0},
	{"enhc", nil, 0},
	{"enhc", map[string]string{"resplit-aces": "yes", "hit-split-aces": "yes", "dealer-blackjack-takes": "original"}, 0},
	{"classic", map[string]string{"blackjack-pays": "6:5", "soft17": "hit", "max-hands": "4", "surrender": "none"}, 0},
	{"retiro", map[string]string{"double": "none", "split": "rank", "max-hands": "2", "blackjack-at-once": "yes"}, 0},
	{"real21", map[string]string{"hole-card": "yes", "peek": "yes", "double-after-split": "yes", "even-money": "no", "insurance": "yes"}, 0},
	{"challenge21", nil, 2},
	{"challenge21", nil, 3},
	{"challenge21", map[string]string{"dealer-blackjack-takes": "original", "even-money": "no"}, 3},
}

// randomPlayer takes any allowed action, favouring hits so that long hands and the seven-card
// prize occur.
func randomPlayer(rnd *rand.Rand) func(int, bool, int, int, strategy.Allowed) strategy.Action {
	acts := []strategy.Action{strategy.Hit, strategy.Hit, strategy.Hit, strategy.Stand, strategy.Double, strategy.Split, strategy.Split, strategy.Surrender}
	return func(t int, soft bool, pair, up int, allowed strategy.Allowed) strategy.Action {
		for {
			if a := acts[rnd.IntN(len(acts))]; allowed.Has(a) {
				return a
			}
		}
	}
}

// TestCrossCheck plays random rounds through the simulator and the engine (through
// games.PlayRound, the RULES.md §8 contract) with the same cards and the same decisions, and
// requires the same net to the cent and the same cards used.
func TestCrossCheck(t *testing.T) {
	for vi, v := range variants {
		for _, player := range []string{"basic", "random"} {
			name := v.preset
			if v.rounds > 0 {
				name += strconv.Itoa(v.rounds)
			}
			for _, k := range slices.Sorted(maps.Keys(v.opts)) {
				name += "," + k + "=" + v.opts[k]
			}
			t.Run(name+"/"+player, func(t *testing.T) {
				preset := v.preset
				if v.rounds > 0 {
					preset = "enhc"
				}
				r, err := blackjack.Preset(preset)
				if err != nil {
					t.Fatal(err)
				}
				if r, err = r.WithOptions(v.opts); err != nil {
					t.Fatal(err)
				}
				rnd := rand.New(rand.NewPCG(uint64(vi), 7))
				cfg := sim.DefaultConfig(r, 8)
				cfg.Rounds = v.rounds
				if player == "random" {
					cfg.Choose = randomPlayer(rnd)
				}
				s, err := sim.New(cfg)
				if err != nil {
					t.Fatal(err)
				}
				unitCents := 50 * s.Unit() // every payout of the sim's units is whole in cents
				shoe := make([]card.Card, 0, 8*52)
				for range 8 {
					shoe = append(shoe, card.Deck()...)
				}
				pos := len(shoe)
				seen := map[string]int{}
				for range *crossRounds {
					if pos > len(shoe)-60 {
						rnd.Shuffle(len(shoe), func(i, j int) { shoe[i], shoe[j] = shoe[j], shoe[i] })
						pos = 0
					}
					cards := shoe[pos : pos+60]
					net, dec, used, err := s.PlayRound(cards)
					if err != nil {
						t.Fatal(err)
					}
					pos += used
					in := games.RoundInput{Game: blackjack.GameBlackjack, Rules: v.preset, Options: v.opts,
						Bets:      []games.Bet{{Seat: 1, Spot: blackjack.SpotMain, Amount: unitCents}},
						Decisions: map[string][]string{"1": dec}}
					if v.rounds > 0 {
						in.Game, in.Rules, in.Bets = blackjack.GameChallenge21, "", nil
						for k := 1; k <= v.rounds; k++ {
							in.Bets = append(in.Bets, games.Bet{Seat: 1, Spot: "round" + strconv.Itoa(k), Amount: unitCents})
						}
					}
					for _, c := range cards[:used] {
						in.Cards = append(in.Cards, c.String())
					}
					var e *blackjack.Engine
					if v.rounds > 0 {
						e, err = blackjack.NewChallenge21(games.Config{Decks: 8, Options: v.opts})
					} else {
						e, err = blackjack.New(games.Config{Game: blackjack.GameBlackjack, Rules: v.preset, Decks: 8, Options: v.opts})
					}
					if err != nil {
						t.Fatal(err)
					}
					o, err := games.PlayRound(e, 8, in)
					if err != nil {
						t.Fatalf("engine: %v\ncards %v decisions %v", err, in.Cards, dec)
					}
					if o.Net() != net*50 || o.CardsUsed != used {
						t.Fatalf("cards %v decisions %v:\nengine net %d cents, %d cards; simulator %d cents, %d cards\n%+v",
							in.Cards, dec, o.Net(), o.CardsUsed, net*50, used, o)
					}
					for _, h := range o.Hands {
						seen[h.Outcome]++
					}
					if len(o.Hands) > 1 {
						seen["split"]++
					}
				}
				t.Logf("hand outcomes met: %v", seen)
			})
		}
	}
}
