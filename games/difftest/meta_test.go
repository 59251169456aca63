package difftest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe/card"
)

// The metamorphic properties ask the engines alone: a side bet's result depends only on the
// cards its rule names (RULES.md §2 pairs: the hand's first two cards; §3 couleur: the first card
// of the noir row; §4 perfect pairs: the box's first two cards, insurance: the dealer's; §5 pair
// plus: the seat's three cards; §7 the progressive: the seat's hand), whatever the decisions
// taken after the deal and whatever the other cards. Each property plays a round, then plays it
// again with the named cards where they were and everything else changed, and requires the side
// bets' nets unchanged.

// drive plays a round through the engine with the decisions choose takes from what the engine
// offers, and returns the outcome and the round as `sabot games round` would replay it.
func drive(in games.RoundInput, cards []string, choose func(games.Need) string) (*games.Outcome, games.RoundInput, error) {
	e, err := catalog.New(games.Config{Game: in.Game, Rules: in.Rules, Limits: in.Limits, Options: in.Options})
	if err != nil {
		return nil, in, err
	}
	if err := e.Begin(in.Bets); err != nil {
		return nil, in, err
	}
	in.Decisions = map[string][]string{}
	used := 0
	for range 10_000 {
		n := e.Need()
		switch n.Kind {
		case games.NeedDone:
			in.Cards = cards[:used]
			o, err := e.Outcome()
			return o, in, err
		case games.NeedCard:
			if used == len(cards) {
				return nil, in, fmt.Errorf("the round needs more than %d cards", len(cards))
			}
			_, err = e.Card(card.MustParse(cards[used]))
			used++
		case games.NeedBurn:
			_, err = e.Burn(card.None)
		case games.NeedDecision:
			d := choose(n)
			k := strconv.Itoa(n.Seat)
			in.Decisions[k] = append(in.Decisions[k], d)
			_, err = e.Decide(n.Seat, d)
		}
		if err != nil {
			return nil, in, err
		}
	}
	return nil, in, fmt.Errorf("the round does not end")
}

// randomly chooses among the offered decisions; an insurance or even-money question (answered
// "N" to decline) is answered by answer, so that two plays of a round can take the same ones.
func randomly(r *rand.Rand, answer func(seat int) bool) func(games.Need) string {
	return func(n games.Need) string {
		if slices.Contains(n.Options, "N") && answer != nil {
			if answer(n.Seat) {
				return n.Options[0]
			}
			return "N"
		}
		return pick(r, n.Options...)
	}
}

// permuteExcept shuffles the cards of cs at every position but keep.
func permuteExcept(r *rand.Rand, cs []string, keep ...int) []string {
	out := slices.Clone(cs)
	var free []int
	for i := range out {
		if !slices.Contains(keep, i) {
			free = append(free, i)
		}
	}
	r.Shuffle(len(free), func(i, j int) { out[free[i]], out[free[j]] = out[free[j]], out[free[i]] })
	return out
}

// nets returns the nets of the settlements on the given spots, by seat, spot and hand.
func nets(o *games.Outcome, spots ...string) map[key]int64 {
	out := map[key]int64{}
	for _, s := range o.Settlements {
		if slices.Contains(spots, s.Spot) {
			out[key{s.Seat, s.Spot, s.Hand}] = s.Net
		}
	}
	return out
}

func sameNets(a, b map[key]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// metaRounds is how many rounds each property plays per game.
func metaRounds() int {
	n := roundsPer() / 10
	if testing.Short() {
		n /= 10
	}
	return max(n, 100)
}

// check plays base and then each variation of it, and requires the nets on spots to be the same;
// it reports at most three rounds that break the property.
type checker struct {
	t      *testing.T
	bad    int
	rounds int
}

func (c *checker) same(what string, spots []string, a, b *games.Outcome, ina, inb games.RoundInput) {
	c.t.Helper()
	c.rounds++
	na, nb := nets(a, spots...), nets(b, spots...)
	if sameNets(na, nb) {
		return
	}
	c.bad++
	if c.bad <= 3 {
		c.t.Errorf("%s: the side bets' nets change from %v to %v\n  %s\n  %s", what, na, nb, replay(ina), replay(inb))
	}
}

func (c *checker) must(err error, in games.RoundInput) bool {
	c.t.Helper()
	if err != nil {
		c.t.Errorf("%v\n  %s", err, replay(in))
		return false
	}
	return true
}

// TestSideBetsBlackjack: perfect pairs depends on the box's first two cards only, and insurance
// (where the dealer has a hole card) on the dealer's two cards only (RULES.md §4).
func TestSideBetsBlackjack(t *testing.T) {
	for _, preset := range []string{"classic", "real21", "retiro", "enhc"} {
		t.Run(preset, func(t *testing.T) {
			t.Parallel()
			r := newRand("meta " + preset)
			c := &checker{t: t}
			hole := bjPresets[preset].hole
			for range metaRounds() {
				in := games.RoundInput{Game: "blackjack", Rules: preset}
				nb := 1 + r.IntN(7)
				ss := seats(r, nb, 7)
				for _, s := range ss {
					in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: "main", Amount: amount(r, 1, 10_000)},
						games.Bet{Seat: s, Spot: "perfect-pairs", Amount: amount(r, 1, 1_000)})
				}
				cards := shuffled(r, 6)
				bjStack(r, cards, nb, hole)
				takes := map[int]bool{}
				for _, s := range ss {
					takes[s] = r.IntN(2) == 0
				}
				answer := func(seat int) bool { return takes[seat] }
				// The deal: box i's cards at i and nb+1+i, the dealer's at nb and 2nb+1.
				var boxCards, deal []int
				for i := range nb {
					boxCards = append(boxCards, i, nb+1+i)
				}
				deal = append(slices.Clone(boxCards), nb)
				if hole {
					deal = append(deal, 2*nb+1)
				}
				a, ina, err := drive(in, cards, randomly(r, answer))
				if !c.must(err, ina) {
					continue
				}
				// Other decisions and other cards after the boxes' first two: perfect pairs stays.
				b, inb, err := drive(in, permuteExcept(r, cards, boxCards...), randomly(r, answer))
				if c.must(err, inb) {
					c.same("perfect pairs after other cards and decisions", []string{"perfect-pairs"}, a, b, ina, inb)
				}
				// The same deal, other cards after it and other playing decisions: insurance too,
				// where the hole card is dealt with the deal.
				spots := []string{"perfect-pairs"}
				if hole {
					spots = append(spots, "insurance")
				}
				b, inb, err = drive(in, permuteExcept(r, cards, deal...), randomly(r, answer))
				if c.must(err, inb) {
					c.same("side bets after the same deal, other cards and decisions", spots, a, b, ina, inb)
				}
			}
			t.Logf("%s: %d replays, %d change a side bet", preset, c.rounds, c.bad)
		})
	}
}

// TestSideBetsBaccarat: a pair bet depends on its hand's first two cards only, either pair and
// the perfect pair on the first four cards of the coup (RULES.md §2); in baccarat, where a tie
// voids every bet, only when neither coup is a tie.
func TestSideBetsBaccarat(t *testing.T) {
	for _, id := range []string{"punto-banco", "baccarat"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			r := newRand("meta " + id)
			c := &checker{t: t}
			for range metaRounds() {
				in := games.RoundInput{Game: id, Options: map[string]string{"side-bets": "either-pair,perfect-pair"}}
				for _, s := range seats(r, 1+r.IntN(5), 9) {
					in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: "player-pair", Amount: amount(r, 1, 10_000)},
						games.Bet{Seat: s, Spot: "banker-pair", Amount: amount(r, 1, 10_000)},
						games.Bet{Seat: s, Spot: "either-pair", Amount: amount(r, 1, 10_000)},
						games.Bet{Seat: s, Spot: "perfect-pair", Amount: amount(r, 1, 10_000)})
				}
				cards := shuffled(r, 8)
				// A pair of one rank, or of one card (a perfect pair), now and then.
				suits := []string{"h", "s", cards[0][1:]}
				if r.IntN(2) == 0 {
					plant(r, cards, []int{0, 2}, []string{cards[0], cards[0][:1] + suits[r.IntN(3)]})
				}
				suits[2] = cards[1][1:]
				if r.IntN(2) == 0 {
					plant(r, cards, []int{1, 3}, []string{cards[1], cards[1][:1] + suits[r.IntN(3)]})
				}
				a, ina, err := drive(in, cards, nil)
				if !c.must(err, ina) {
					continue
				}
				for _, hand := range []struct {
					spot string
					keep []int
				}{{"player-pair", []int{0, 2}}, {"banker-pair", []int{1, 3}}, {"either-pair", []int{0, 1, 2, 3}}, {"perfect-pair", []int{0, 1, 2, 3}}} {
					b, inb, err := drive(in, permuteExcept(r, cards, hand.keep...), nil)
					if !c.must(err, inb) || id == "baccarat" && (a.Result == "tie" || b.Result == "tie") {
						continue
					}
					c.same(hand.spot+" after other cards", []string{hand.spot}, a, b, ina, inb)
				}
			}
			t.Logf("%s: %d replays, %d change a side bet", id, c.rounds, c.bad)
		})
	}
}

// TestCouleurTrente: couleur and inverse depend on the colour of the noir row's first card
// (RULES.md §3): that card changed for one of the same value and the other colour leaves the rows'
// totals, rouge and noir as they were and swaps couleur's and inverse's nets.
func TestCouleurTrente(t *testing.T) {
	r := newRand("meta trente")
	c := &checker{t: t}
	for range metaRounds() {
		in := games.RoundInput{Game: "trente-et-quarante"}
		if r.IntN(2) == 0 {
			in.Options = map[string]string{"tie31": "prison"}
		}
		for _, s := range seats(r, 1+r.IntN(5), 9) {
			for _, sp := range []string{"rouge", "noir", "couleur", "inverse"} {
				in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: sp, Amount: amount(r, 1, 10_000)})
			}
		}
		cards := shuffled(r, 6)
		a, ina, err := drive(in, cards, nil)
		if !c.must(err, ina) {
			continue
		}
		// A card of the first card's value and the other colour, from the cards the coup left.
		first := parse(cards[0])
		j := slices.IndexFunc(cards[len(ina.Cards):], func(s string) bool {
			x := parse(s)
			return trValue(x) == trValue(first) && x.red() != first.red()
		})
		if j < 0 {
			continue
		}
		j += len(ina.Cards)
		flipped := slices.Clone(cards)
		flipped[0], flipped[j] = flipped[j], flipped[0]
		b, inb, err := drive(in, flipped, nil)
		if !c.must(err, inb) {
			continue
		}
		c.same("rouge and noir after the first card's colour changes", []string{"rouge", "noir"}, a, b, ina, inb)
		// Decided, a colour chance that won now loses and one that lost now wins (every chance
		// pays 1:1); a refait leaves them as they were.
		flip := &games.Outcome{}
		for _, s := range a.Settlements {
			if (s.Spot == "couleur" || s.Spot == "inverse") && (a.Result == "noir" || a.Result == "rouge") {
				s.Net = -s.Net
			}
			flip.Settlements = append(flip.Settlements, s)
		}
		c.same("couleur and inverse after the first card's colour changes", []string{"couleur", "inverse"}, flip, b, ina, inb)
	}
	t.Logf("%d replays, %d break the property", c.rounds, c.bad)
}

// TestSideBetsPoker: pair plus depends on the seat's three cards only, whether the seat plays or
// folds (RULES.md §5 "stands even if the player folds"); the progressive on the seat's five
// (Go poker: its three and the two community cards; RULES.md §7), whatever the dealer and the
// other seats hold.
func TestSideBetsPoker(t *testing.T) {
	for _, id := range []string{"three-card-poker", "caribbean-stud", "draw-poker", "go-poker"} {
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			r := newRand("meta " + id)
			c := &checker{t: t}
			three, goPoker := id == "three-card-poker", id == "go-poker"
			each := 5
			if three || goPoker {
				each = 3
			}
			for range metaRounds() {
				in := games.RoundInput{Game: id}
				ss := seats(r, 1+r.IntN(6), 7)
				focus := pick(r, ss...) // the one progressive bet: percentage prizes share the pool
				if !three {
					in.Options = map[string]string{"progressive-pool": strconv.FormatInt(1e6+r.Int64N(1e8), 10)}
				}
				for _, s := range ss {
					in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: "ante", Amount: amount(r, 1, 10_000)})
					switch {
					case three:
						in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: "pair-plus", Amount: amount(r, 1, 10_000)})
					case s == focus:
						in.Bets = append(in.Bets, games.Bet{Seat: s, Spot: "progressive", Amount: amount(r, 1, 10_000)})
					}
				}
				nh := len(ss) + 1
				if goPoker {
					nh = len(ss)
				}
				// RULES.md §5: one card at a time round the table, the dealer last.
				keep := []int{}
				for i, s := range ss {
					if three || s == focus {
						for k := range each {
							keep = append(keep, k*nh+i)
						}
					}
				}
				if goPoker {
					keep = append(keep, each*nh, each*nh+1)
				}
				cards := shuffled(r, 1)
				var layout [][]int
				for k := 0; k+each <= len(keep); k += each {
					layout = append(layout, keep[k:k+each])
				}
				pokerHands(r, cards, layout)
				// Three card poker: each play of the round folds or plays at random. The others
				// bet and keep their five cards, so that the hand the progressive reads is the
				// one dealt (a folded hand wins no prize).
				choose := func(n games.Need) string {
					if three {
						return pick(r, n.Options...)
					}
					return n.Options[0] // "bet", then "exchange:" (keep all five)
				}
				a, ina, err := drive(in, cards, choose)
				if !c.must(err, ina) {
					continue
				}
				b, inb, err := drive(in, permuteExcept(r, cards, keep...), choose)
				if c.must(err, inb) {
					c.same("pair plus and the progressive after other cards and decisions", []string{"pair-plus", "progressive"}, a, b, ina, inb)
				}
			}
			t.Logf("%s: %d replays, %d change a side bet", id, c.rounds, c.bad)
		})
	}
}
