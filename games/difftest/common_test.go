package difftest

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
)

var (
	long   = flag.Bool("long", false, "play ten times as many random rounds")
	rounds = flag.Int("rounds", 0, "random rounds per game and preset (0: the default, 20000, or 200000 with -long)")
	seed   = flag.Uint64("seed", 0, "the random seed (0: a fixed one, so that a failure replays)")
)

// roundsPer is how many random rounds each game and preset plays.
func roundsPer() int {
	switch {
	case *rounds > 0:
		return *rounds
	case *long:
		return 200_000
	}
	return 20_000
}

func newRand(salt string) *rand.Rand {
	s := *seed
	if s == 0 {
		s = 16 // issue 16
	}
	var h uint64 = 14695981039346656037
	for i := 0; i < len(salt); i++ {
		h = (h ^ uint64(salt[i])) * 1099511628211
	}
	return rand.New(rand.NewPCG(s, h))
}

// ---- cards, read by the reference from their two characters (RULES.md §0) ----

// crd is a card as the reference knows it: rank 1 (ace) … 13 (king), suit one of "shdc".
type crd struct {
	rank int
	suit byte
}

const rankChars = "A23456789TJQK"

func parse(s string) crd {
	if len(s) != 2 {
		panic("difftest: not a card: " + s)
	}
	r := strings.IndexByte(rankChars, s[0])
	if r < 0 || strings.IndexByte("shdc", s[1]) < 0 {
		panic("difftest: not a card: " + s)
	}
	return crd{rank: r + 1, suit: s[1]}
}

func (c crd) String() string { return string(rankChars[c.rank-1]) + string(c.suit) }

// red: hearts and diamonds (RULES.md §0 suits; trente et quarante's rouge, RULES.md §3).
func (c crd) red() bool { return c.suit == 'h' || c.suit == 'd' }

// deck returns n standard 52-card decks (RULES.md §0) in a fixed order.
func deck(n int) []string {
	out := make([]string, 0, 52*n)
	for range n {
		out = append(out, oneDeck...)
	}
	return out
}

var oneDeck = func() []string {
	var out []string
	for _, r := range rankChars {
		for _, s := range "shdc" {
			out = append(out, string(r)+string(s))
		}
	}
	return out
}()

// shuffled returns n decks in a random order. Only the first 128 places are drawn (a partial
// Fisher–Yates shuffle: a uniform random sequence), more than any round takes; the rest are left
// in the deck's order.
func shuffled(r *rand.Rand, n int) []string {
	d := deck(n)
	for i := range min(len(d), 128) {
		j := i + r.IntN(len(d)-i)
		d[i], d[j] = d[j], d[i]
	}
	return d
}

// shoe hands out the cards of a round in order and remembers how many left it.
type shoe struct {
	cards []string
	n     int
}

func (s *shoe) next() crd {
	c := parse(s.cards[s.n])
	s.n++
	return c
}

// used returns the cards that left the shoe, the round input's "cards".
func (s *shoe) used() []string { return slices.Clone(s.cards[:s.n]) }

// ---- what the reference expects, and the comparison ----

// key names one settlement: the seat, the spot and the hand (RULES.md §8 output).
type key struct {
	seat int
	spot string
	hand int
}

func (k key) String() string { return fmt.Sprintf("seat %d %s hand %d", k.seat, k.spot, k.hand) }

// money is one settlement's stake and net, in cents.
type money struct{ amount, net int64 }

// expect is the reference's settlement of a round: every bet's stake and net, and how many cards
// the round takes from the shoe.
type expect struct {
	bets map[key]money
	used int
	// paths names the rules this round played (a split, a prize, a side pot, …): the test
	// requires each game's list of them to be played at least once, so that a reference that
	// never reaches a rule cannot pass for one that agrees on it.
	paths []string
	// err is where the reference could not follow the round (a circle game's decisions that
	// its own account of the betting does not expect).
	err string
}

func (x *expect) path(p string) { x.paths = append(x.paths, p) }

func (x *expect) add(k key, amount, net int64) {
	if x.bets == nil {
		x.bets = map[key]money{}
	}
	if _, dup := x.bets[k]; dup {
		panic(fmt.Sprintf("difftest: the reference settles %s twice", k))
	}
	x.bets[k] = money{amount, net}
}

// round is one random round: the contract's input and what the reference says it settles to.
type round struct {
	in   games.RoundInput
	want expect
}

// settlements returns the engine's settlements by key; a key twice is an error.
func settlements(o *games.Outcome) (map[key]money, error) {
	got := map[key]money{}
	for _, s := range o.Settlements {
		k := key{s.Seat, s.Spot, s.Hand}
		if _, dup := got[k]; dup {
			return nil, fmt.Errorf("the engine settles %s twice", k)
		}
		got[k] = money{s.Amount, s.Net}
	}
	return got, nil
}

// compare plays rd through the engine (catalog.PlayRound, the code behind `sabot games round`)
// and returns the differences from the reference, one line each; nil when they agree on every
// bet's stake and net and on the cards used.
func compare(rd round) []string {
	if rd.want.err != "" {
		return []string{"the reference: " + rd.want.err}
	}
	out, err := catalog.PlayRound(rd.in)
	if err != nil {
		return []string{"the engine refuses the round: " + err.Error()}
	}
	got, err := settlements(out)
	if err != nil {
		return []string{err.Error()}
	}
	var diffs []string
	keys := map[key]bool{}
	for k := range got {
		keys[k] = true
	}
	for k := range rd.want.bets {
		keys[k] = true
	}
	sorted := make([]key, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	slices.SortFunc(sorted, func(a, b key) int {
		if a.seat != b.seat {
			return a.seat - b.seat
		}
		if a.spot != b.spot {
			return strings.Compare(a.spot, b.spot)
		}
		return a.hand - b.hand
	})
	for _, k := range sorted {
		g, gok := got[k]
		w, wok := rd.want.bets[k]
		switch {
		case !gok:
			diffs = append(diffs, fmt.Sprintf("%s: the engine does not settle it; the reference: stake %d net %+d", k, w.amount, w.net))
		case !wok:
			diffs = append(diffs, fmt.Sprintf("%s: the engine settles stake %d net %+d; the reference has no such bet", k, g.amount, g.net))
		case g != w:
			diffs = append(diffs, fmt.Sprintf("%s: engine stake %d net %+d, reference stake %d net %+d", k, g.amount, g.net, w.amount, w.net))
		}
	}
	if out.CardsUsed != rd.want.used {
		diffs = append(diffs, fmt.Sprintf("the engine uses %d cards, the reference %d", out.CardsUsed, rd.want.used))
	}
	return diffs
}

// replay is the round as `sabot games round` reads it, to reproduce a difference.
func replay(in games.RoundInput) string {
	b, err := json.Marshal(in)
	if err != nil {
		return err.Error()
	}
	return "echo '" + string(b) + "' | sabot games round"
}

// amount returns a random stake from lo to hi cents, odd cents included (the rounding rules are
// part of what is compared), often a round number.
func amount(r *rand.Rand, lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	switch r.IntN(4) {
	case 0:
		return lo
	case 1:
		if v := (lo + r.Int64N(hi-lo+1)) / 100 * 100; v >= lo {
			return v
		}
	case 2:
		return lo + r.Int64N(min(hi-lo+1, 300))
	}
	return lo + r.Int64N(hi-lo+1)
}

// limits gives a table random limits on some of spots, and returns them with a function that
// draws a legal stake for a spot.
func limits(r *rand.Rand, spots ...string) ([]games.Limit, func(spot string) int64) {
	var ls []games.Limit
	lim := map[string][2]int64{}
	for _, s := range spots {
		if r.IntN(3) > 0 {
			continue
		}
		lo := 1 + r.Int64N(500)
		hi := lo + r.Int64N(200_000)
		ls = append(ls, games.Limit{Spot: s, Min: lo, Max: hi})
		lim[s] = [2]int64{lo, hi}
	}
	return ls, func(spot string) int64 {
		if l, ok := lim[spot]; ok {
			return amount(r, l[0], l[1])
		}
		return amount(r, 1, 100_000)
	}
}

// seats returns n distinct seats from 1 to most, in order.
func seats(r *rand.Rand, n, most int) []int {
	p := r.Perm(most)[:n]
	for i := range p {
		p[i]++
	}
	slices.Sort(p)
	return p
}

// pick returns one of the options at random.
func pick[T any](r *rand.Rand, opts ...T) T { return opts[r.IntN(len(opts))] }

// game is one game and preset of the catalog and the reference's random round of it.
type game struct {
	id, rules string
	name      string // the subtest's name when a game is played twice (trente et quarante's prison)
	play      func(r *rand.Rand) round
	paths     []string // the paths every run must play (expect.path)
}

// TestDifferential plays roundsPer() random rounds of every game and preset of the catalog
// through the engine and the reference, and requires every bet of every round to agree.
func TestDifferential(t *testing.T) {
	n := roundsPer()
	if testing.Short() {
		n /= 10
	}
	all := references()
	covered := map[string]bool{}
	for _, g := range all {
		covered[g.id+"/"+g.rules] = true
	}
	for _, id := range catalog.Games() {
		e, _ := catalog.Lookup(id)
		presets := e.Presets
		if presets == nil {
			presets = []string{""}
		}
		for _, p := range presets {
			if !covered[id+"/"+p] {
				t.Errorf("the catalog's %s %q has no reference: add one to references()", id, p)
			}
		}
	}
	for _, g := range all {
		name := g.id
		if g.rules != "" {
			name += "/" + g.rules
		}
		if g.name != "" {
			name = g.name
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := newRand(name)
			var bets, bad int
			played := map[string]int{}
			for i := range n {
				rd := g.play(r)
				bets += len(rd.want.bets)
				for _, p := range rd.want.paths {
					played[p]++
				}
				if d := compare(rd); d != nil {
					bad++
					if bad <= 3 {
						t.Errorf("round %d disagrees:\n  %s\n  %s", i, strings.Join(d, "\n  "), replay(rd.in))
					}
				}
			}
			t.Logf("%s: %d rounds, %d bets; %d rounds disagree", name, n, bets, bad)
			var counts []string
			for _, p := range g.paths {
				counts = append(counts, fmt.Sprintf("%s %d", p, played[p]))
				if played[p] == 0 && n >= 1000 {
					t.Errorf("no round of %d played %q: the reference does not reach that rule", n, p)
				}
			}
			t.Logf("%s: paths played: %s", name, strings.Join(counts, ", "))
		})
	}
}

// plant moves the cards want to the positions pos of the shoe cs, swapping each with a copy of
// it found elsewhere (not at a position already planted), so that the shoe keeps its
// composition. A card the shoe cannot give is left as it is.
func plant(r *rand.Rand, cs []string, pos []int, want []string) {
	done := map[int]bool{}
	for i, p := range pos {
		if i >= len(want) || p >= len(cs) {
			break
		}
		start := r.IntN(len(cs))
		for k := range cs {
			q := (start + k) % len(cs)
			if cs[q] == want[i] && !done[q] {
				cs[p], cs[q] = cs[q], cs[p]
				break
			}
		}
		done[p] = true
	}
}
