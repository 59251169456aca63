package sim

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"sync"

	"github.com/sabot-tables/sabot/games/blackjack"
	"github.com/sabot-tables/sabot/games/blackjack/strategy"
	"github.com/sabot-tables/sabot/shoe/card"
)

// Config is a simulation's table.
type Config struct {
	Rules blackjack.Rules
	Decks int
	// Behind is the number of cards behind the cut card (RULES.md §1: configurable penetration,
	// default 1.5 decks). 0 means 78, or a quarter of the shoe where that is less.
	Behind int
	// Burn is the number of cards burned at the start of each shoe (RULES.md §1: 1).
	Burn int
	// Seed seeds the shuffles; runs with the same seed and worker count repeat exactly.
	Seed uint64
	// Strategy is the player's; nil generates basic strategy for Rules and Decks.
	Strategy *strategy.Strategy
	// Rounds is 0 or 1 for blackjack, 2 or 3 for Challenge 21 with that many round bets: one
	// hand against as many dealer rounds drawn from the same first card (RULES.md §4).
	Rounds int
	// Choose, when set, plays instead of Strategy: any player (a random one in the tests, a
	// what-if in an analysis). It must return one of the allowed actions.
	Choose func(total int, soft bool, pair, up int, allowed strategy.Allowed) strategy.Action
}

// DefaultConfig returns the table of RULES.md §1 for rules r: decks decks, the cut card 1.5
// decks from the end, one card burned.
func DefaultConfig(r blackjack.Rules, decks int) Config {
	return Config{Rules: r, Decks: decks, Burn: 1}
}

// Stats are the counts of a simulation. Money is in units of 1/Unit of the initial bet.
type Stats struct {
	Rounds int64
	Unit   int64 // the initial stake (every round bet in Challenge 21), in the units of Net
	Net    int64 // sum of the rounds' nets (player's view)
	NetSq  int64 // sum of the squares of the rounds' nets
	Action int64 // everything staked, doubles and splits included

	Won, Pushed, Lost int64 // rounds by the sign of their net
	Hands             int64 // hands played, splits included
	Blackjacks        int64 // player blackjacks
	DealerBlackjacks  int64
	Doubles           int64
	Splits            int64
	Surrenders        int64
	Busts             int64 // player hands busted

	Prizes   [5]int64 // real21 prizes won, by blackjack.Prize
	PrizeNet int64    // what the prizes paid
	Pairs    [4]int64 // perfect-pairs result of the box's first two cards, by blackjack.Pair

	Shoes     int64
	Overflows int64 // rounds that ran past the shoe's last card (a fresh shoe was opened)
}

// Add adds o's counts to s.
func (s *Stats) Add(o Stats) {
	if s.Unit == 0 {
		s.Unit = o.Unit
	}
	s.Rounds += o.Rounds
	s.Net += o.Net
	s.NetSq += o.NetSq
	s.Action += o.Action
	s.Won += o.Won
	s.Pushed += o.Pushed
	s.Lost += o.Lost
	s.Hands += o.Hands
	s.Blackjacks += o.Blackjacks
	s.DealerBlackjacks += o.DealerBlackjacks
	s.Doubles += o.Doubles
	s.Splits += o.Splits
	s.Surrenders += o.Surrenders
	s.Busts += o.Busts
	for i := range s.Prizes {
		s.Prizes[i] += o.Prizes[i]
	}
	s.PrizeNet += o.PrizeNet
	for i := range s.Pairs {
		s.Pairs[i] += o.Pairs[i]
	}
	s.Shoes += o.Shoes
	s.Overflows += o.Overflows
}

// Edge returns the house edge: the player's average loss per initial bet (0.0048 = 0.48%).
func (s Stats) Edge() float64 {
	if s.Rounds == 0 {
		return 0
	}
	return -float64(s.Net) / float64(s.Unit) / float64(s.Rounds)
}

// SD returns the standard deviation of one round's net, in initial bets.
func (s Stats) SD() float64 {
	if s.Rounds < 2 {
		return 0
	}
	n := float64(s.Rounds)
	u := float64(s.Unit)
	mean := float64(s.Net) / u / n
	v := float64(s.NetSq)/(u*u)/n - mean*mean
	return math.Sqrt(v * n / (n - 1))
}

// CI95 returns the half-width of the 95% confidence interval of Edge (normal approximation).
func (s Stats) CI95() float64 {
	if s.Rounds < 2 {
		return math.Inf(1)
	}
	return 1.959964 * s.SD() / math.Sqrt(float64(s.Rounds))
}

// hand is one of the box's hands, kept incrementally.
type hand struct {
	c         [24]card.Card
	n         int
	hard      int
	ace       bool
	natural   bool
	split     bool
	aces      bool
	acted     bool
	doubled   bool
	surrender bool
	done      bool
	paid      bool // blackjack paid at once
	prize     blackjack.Prize
}

func (h *hand) add(c card.Card) {
	h.c[h.n] = c
	h.n++
	v := int(value[c])
	h.hard += v
	if v == 1 {
		h.ace = true
	}
}

func (h *hand) total() (int, bool) {
	if h.ace && h.hard+10 <= 21 {
		return h.hard + 10, true
	}
	return h.hard, false
}

var value [53]uint8

func init() {
	for i := range 52 {
		c := card.FromIndex(i)
		value[c] = uint8(c.PipValue())
	}
}

// Sim is one simulator: a shoe, a player, and the counts. It is not safe for concurrent use; run
// one per goroutine (Run does).
type Sim struct {
	r      blackjack.Rules
	strat  *strategy.Strategy
	choose func(int, bool, int, int, strategy.Allowed) strategy.Action
	shoe   []card.Card
	pos    int
	cut    int
	burn   int
	fixed  bool // PlayRound: the shoe is the caller's cards
	short  bool // PlayRound ran out of cards
	rng    rng
	unit   int64 // one bet (main, or one Challenge 21 round)
	nround int
	hands  [8]hand
	nh     int
	dealer [24]card.Card
	nd     int
	rec    *[]string
	st     Stats
}

// New returns a simulator for cfg.
func New(cfg Config) (*Sim, error) {
	if err := cfg.Rules.Validate(); err != nil {
		return nil, err
	}
	if cfg.Decks < 1 || cfg.Decks > 8 {
		return nil, fmt.Errorf("sim: %d decks: want 1 to 8", cfg.Decks)
	}
	if cfg.Rules.MaxHands > len(Sim{}.hands) {
		return nil, fmt.Errorf("sim: max-hands %d: at most %d", cfg.Rules.MaxHands, len(Sim{}.hands))
	}
	total := 52 * cfg.Decks
	behind := cfg.Behind
	if behind == 0 {
		behind = min(78, total/4)
	}
	if behind < 10 || cfg.Burn < 0 || behind+cfg.Burn > total-10 {
		return nil, fmt.Errorf("sim: %d cards behind the cut card and %d burned in a %d-card shoe: the cut must leave at least 10 cards at either end (RULES.md §1)", behind, cfg.Burn, total)
	}
	nround := max(cfg.Rounds, 1)
	if nround > 3 || nround > 1 && (cfg.Rules.HoleCard || cfg.Rules.Promotions) {
		return nil, fmt.Errorf("sim: Challenge 21 plays 2 or 3 rounds without a hole card or prizes (RULES.md §4)")
	}
	st := cfg.Strategy
	if st == nil {
		var err error
		if st, err = strategy.Generate(cfg.Rules, cfg.Decks); err != nil {
			return nil, err
		}
	}
	s := &Sim{r: cfg.Rules, strat: st, choose: cfg.Choose, cut: total - behind, burn: cfg.Burn, rng: rng{cfg.Seed},
		unit: 2 * cfg.Rules.BlackjackDen, nround: nround}
	s.shoe = make([]card.Card, 0, total)
	for range cfg.Decks {
		s.shoe = append(s.shoe, card.Deck()...)
	}
	s.pos = len(s.shoe) // shuffle before the first round
	s.st.Unit = s.unit * int64(nround)
	return s, nil
}

// Unit returns one bet (the main bet, or one Challenge 21 round bet) in the units of a round's
// net.
func (s *Sim) Unit() int64 { return s.unit }

// Stats returns the counts so far.
func (s *Sim) Stats() Stats { return s.st }

// newShoe shuffles the shoe (Fisher–Yates) and burns.
func (s *Sim) newShoe() {
	for i := len(s.shoe) - 1; i > 0; i-- {
		j := s.rng.intn(uint32(i + 1))
		s.shoe[i], s.shoe[j] = s.shoe[j], s.shoe[i]
	}
	s.pos = s.burn
	s.st.Shoes++
}

func (s *Sim) draw() card.Card {
	if s.pos >= len(s.shoe) {
		if s.fixed {
			s.short = true
			return card.New(card.Two, card.Spades) // PlayRound reports the shortage
		}
		s.st.Overflows++
		s.newShoe()
	}
	c := s.shoe[s.pos]
	s.pos++
	return c
}

// Play plays n rounds, shuffling a new shoe when the cut card has come out.
func (s *Sim) Play(n int64) {
	for range n {
		if s.pos >= s.cut {
			s.newShoe()
		}
		s.count(s.round())
	}
}

func (s *Sim) count(net int64) {
	s.st.Rounds++
	s.st.Net += net
	s.st.NetSq += net * net
	switch {
	case net > 0:
		s.st.Won++
	case net < 0:
		s.st.Lost++
	default:
		s.st.Pushed++
	}
}

// PlayRound plays one round on the given cards, in the order they leave the shoe, and returns
// the net (in 1/Unit initial bets), the decisions in the order they were asked (RULES.md §8
// codes), and the number of cards used. It is the cross-check's entry to the same code as Play.
func (s *Sim) PlayRound(cards []card.Card) (net int64, decisions []string, used int, err error) {
	saved, savedPos := s.shoe, s.pos
	s.shoe, s.pos, s.fixed, s.short = cards, 0, true, false
	var rec []string
	s.rec = &rec
	net = s.round()
	used = s.pos
	s.shoe, s.pos, s.fixed, s.rec = saved, savedPos, false, nil
	if s.short {
		return 0, nil, 0, fmt.Errorf("sim: the round needs more than the %d cards given", len(cards))
	}
	return net, rec, used, nil
}

func (s *Sim) decide(code string) {
	if s.rec != nil {
		*s.rec = append(*s.rec, code)
	}
}

func aceOrTen(v uint8) bool { return v == 1 || v == 10 }

// round plays one round for one box and returns its net. Every rule mirrors the engine
// (games/blackjack engine.go), which the tests check.
func (s *Sim) round() int64 {
	r := &s.r
	p1 := s.draw()
	up := s.draw()
	p2 := s.draw()
	upv := value[up]
	s.nd = 0
	s.dealer[0] = up
	s.nd = 1
	if r.HoleCard {
		s.dealer[1] = s.draw()
		s.nd = 2
	}
	s.st.Pairs[blackjack.PairOf(p1, p2)]++
	s.nh = 1
	h0 := &s.hands[0]
	*h0 = hand{}
	h0.add(p1)
	h0.add(p2)
	s.st.Hands++
	if blackjack.Natural(p1, p2) {
		s.st.Blackjacks++
		h0.natural, h0.done = true, true
		if r.Promotions {
			h0.prize = blackjack.PrizeOf(h0.c[:2], true)
		}
		if h0.prize == blackjack.NoPrize && r.BlackjackAtOnce && !aceOrTen(upv) {
			h0.paid = true
		}
	}
	// Insurance and even money (RULES.md §4), always declined by basic strategy.
	if upv == 1 && h0.prize == blackjack.NoPrize {
		for range s.nround { // Challenge 21: once per round bet
			if h0.natural && r.EvenMoney || !(h0.natural && r.EvenMoney) && r.Insurance && s.unit/2 > 0 {
				s.decide(blackjack.CodeDecline)
			}
		}
	}
	if r.Peek && r.HoleCard && aceOrTen(upv) && blackjack.Natural(up, s.dealer[1]) {
		h0.done = true
		return s.settle()
	}
	for i := 0; i < s.nh; i++ {
		h := &s.hands[i]
		for !h.done {
			if h.n < 2 {
				s.handCard(h, s.draw())
				continue
			}
			t, soft := h.total()
			allowed := s.allowed(h, upv)
			pair := 0
			if allowed.Has(strategy.Split) {
				pair = int(value[h.c[0]])
			}
			var a strategy.Action
			if s.choose != nil {
				a = s.choose(t, soft, pair, int(upv), allowed)
				if !allowed.Has(a) {
					a = strategy.Stand
				}
			} else {
				a = s.strat.Decide(t, soft, pair, int(upv), allowed)
			}
			s.decide(a.Code())
			switch a {
			case strategy.Hit:
				h.acted = true
				s.handCard(h, s.draw())
			case strategy.Double:
				h.acted, h.doubled = true, true
				s.st.Doubles++
				s.handCard(h, s.draw())
			case strategy.Surrender:
				h.acted, h.surrender, h.done = true, true, true
				s.st.Surrenders++
			case strategy.Split:
				s.split(i)
				s.st.Splits++
				s.st.Hands++
			default:
				h.acted, h.done = true, true
			}
		}
	}
	if s.nround > 1 {
		return s.challengeRounds()
	}
	s.dealerPlays()
	return s.settle()
}

// challengeRounds plays and settles the dealer's Challenge 21 rounds: each starts again from the
// dealer's first card (RULES.md §4).
func (s *Sim) challengeRounds() int64 {
	var net int64
	for range s.nround {
		s.nd = 1
		s.dealerPlays()
		net += s.settle()
	}
	return net
}

// allowed mirrors the engine's forbid.
func (s *Sim) allowed(h *hand, upv uint8) strategy.Allowed {
	r := &s.r
	a := strategy.Allowed(0).With(strategy.Stand)
	t, _ := h.total()
	if !(h.aces && !r.HitSplitAces) && t < 21 {
		a = a.With(strategy.Hit)
	}
	two := h.n == 2 && !h.acted
	if two && !h.aces && !(h.split && !r.DoubleAfterSplit) && r.Double.Allows(t) {
		a = a.With(strategy.Double)
	}
	if two {
		c0, c1 := h.c[0], h.c[1]
		match := value[c0] == value[c1]
		if r.Split == blackjack.SplitRank {
			match = c0.Rank() == c1.Rank()
		}
		if match && !(h.aces && !r.ResplitAces) && s.nh < r.MaxHands {
			a = a.With(strategy.Split)
		}
	}
	if two && !h.split && r.Surrender.Allows(int(upv)) {
		a = a.With(strategy.Surrender)
	}
	return a
}

// split makes hand i two hands, the new one at i+1 (RULES.md §4; engine's numbering).
func (s *Sim) split(i int) {
	copy(s.hands[i+2:s.nh+1], s.hands[i+1:s.nh])
	h := &s.hands[i]
	second := h.c[1]
	aces := value[h.c[0]] == 1 && !s.r.HitSplitAces
	first := h.c[0]
	*h = hand{split: true, aces: aces}
	h.add(first)
	nh := &s.hands[i+1]
	*nh = hand{split: true, aces: aces}
	nh.add(second)
	s.nh++
}

// handCard mirrors the engine's handCard.
func (s *Sim) handCard(h *hand, c card.Card) {
	h.add(c)
	t, _ := h.total()
	prize := blackjack.NoPrize
	if s.r.Promotions && (h.n == 3 || h.n == 7) {
		prize = blackjack.PrizeOf(h.c[:h.n], false)
	}
	switch {
	case t > 21:
		h.done = true
		s.st.Busts++
	case prize != blackjack.NoPrize:
		h.done, h.prize = true, prize
	case h.doubled:
		h.done = true
	case h.aces && h.n == 2:
		if !(value[c] == 1 && s.r.ResplitAces && s.nh < s.r.MaxHands) {
			h.done = true
		}
	case t == 21:
		h.done = true
	}
}

// dealerPlays mirrors the engine's pending and dealerNeed for one box without insurance.
func (s *Sim) dealerPlays() {
	full, check := false, false
	for i := range s.nh {
		h := &s.hands[i]
		t, _ := h.total()
		switch {
		case h.surrender, h.prize != blackjack.NoPrize, t > 21, h.paid:
		case h.natural:
			check = true
		default:
			full = true
		}
	}
	for {
		hard, ace := 0, false
		for _, c := range s.dealer[:s.nd] {
			v := int(value[c])
			hard += v
			ace = ace || v == 1
		}
		t, soft := hard, false
		if ace && hard+10 <= 21 {
			t, soft = hard+10, true
		}
		natural := s.nd == 2 && blackjack.Natural(s.dealer[0], s.dealer[1])
		hit := false
		switch {
		case natural:
		case full:
			hit = t < 17 || t == 17 && soft && s.r.HitSoft17
		case check:
			hit = s.nd < 2
		}
		if !hit {
			return
		}
		s.dealer[s.nd] = s.draw()
		s.nd++
	}
}

// settle mirrors the engine's settle and counts the round.
func (s *Sim) settle() int64 {
	r := &s.r
	d := s.dealer[:s.nd]
	dn := len(d) >= 2 && blackjack.Natural(d[0], d[1])
	if dn {
		s.st.DealerBlackjacks++
	}
	dt, _ := blackjack.Score(d)
	base := s.unit
	var net int64
	firstLive := true
	for i := range s.nh {
		h := &s.hands[i]
		stake := base
		if h.doubled {
			stake = 2 * base
		}
		s.st.Action += stake
		t, _ := h.total()
		live := !h.surrender && t <= 21 && h.prize == blackjack.NoPrize
		switch {
		case h.surrender:
			net -= stake - stake/2
		case t > 21:
			net -= stake
		case h.prize != blackjack.NoPrize:
			p := stake * h.prize.Pays()
			net += p
			s.st.Prizes[h.prize]++
			s.st.PrizeNet += p
		case h.natural:
			if !dn {
				net += stake * r.BlackjackNum / r.BlackjackDen
			}
		case dn:
			switch {
			case r.DealerBJTakesAll:
				net -= stake
			case firstLive:
				net -= base
			}
		case dt > 21 || t > dt:
			net += stake
		case t < dt:
			net -= stake
		}
		if live {
			firstLive = false
		}
	}
	return net
}

// rng is wyrand: a small, fast generator for shuffling simulated shoes (not for a table).
type rng struct{ s uint64 }

func (r *rng) next() uint64 {
	r.s += 0xa0761d6478bd642f
	hi, lo := bits.Mul64(r.s, r.s^0xe7037ed1a0b428db)
	return hi ^ lo
}

// intn returns a uniform number in [0, n) (Lemire's multiply-and-reject).
func (r *rng) intn(n uint32) uint32 {
	m := uint64(uint32(r.next())) * uint64(n)
	if uint32(m) < n {
		t := -n % n
		for uint32(m) < t {
			m = uint64(uint32(r.next())) * uint64(n)
		}
	}
	return uint32(m >> 32)
}

// Run plays rounds rounds of cfg on workers goroutines (each its own shoe, seeded from
// cfg.Seed and its index), stopping early when ctx is done, and returns the summed counts.
func Run(ctx context.Context, cfg Config, rounds int64, workers int) (Stats, error) {
	if workers < 1 {
		workers = 1
	}
	if cfg.Strategy == nil {
		st, err := strategy.Generate(cfg.Rules, cfg.Decks)
		if err != nil {
			return Stats{}, err
		}
		cfg.Strategy = st
	}
	sims := make([]*Sim, workers)
	for i := range sims {
		c := cfg
		c.Seed = cfg.Seed*0x9e3779b97f4a7c15 + uint64(i)*0xbf58476d1ce4e5b9 + 1
		s, err := New(c)
		if err != nil {
			return Stats{}, err
		}
		sims[i] = s
	}
	const chunk = 1 << 16
	var wg sync.WaitGroup
	for i, s := range sims {
		n := rounds / int64(workers)
		if int64(i) < rounds%int64(workers) {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n > 0 && ctx.Err() == nil {
				k := min(n, chunk)
				s.Play(k)
				n -= k
			}
		}()
	}
	wg.Wait()
	var total Stats
	for _, s := range sims {
		total.Add(s.Stats())
	}
	return total, ctx.Err()
}

// PlayShoe shuffles a new shoe and plays rounds until the cut card has come out (RULES.md §1: the
// round in progress is completed); it returns the shoe's rounds and net.
func (s *Sim) PlayShoe() (rounds, net int64) {
	s.newShoe()
	r0, n0 := s.st.Rounds, s.st.Net
	for s.pos < s.cut {
		s.count(s.round())
	}
	return s.st.Rounds - r0, s.st.Net - n0
}

// Paired is the difference between two rule sets played over the same shoes.
type Paired struct {
	A, B Stats
	// Diff is B's house edge less A's; CI95 the half-width of its 95% confidence interval
	// (the delta method over shoes, which are independent).
	Diff, CI95 float64
}

// RunPaired plays the same shuffled shoes under a and b (same seeds; the rounds diverge only
// where the rules make them), on workers goroutines, until a has played rounds rounds. Pairing
// makes the difference of the two edges far more precise than two independent runs.
func RunPaired(ctx context.Context, a, b Config, rounds int64, workers int) (Paired, error) {
	if workers < 1 {
		workers = 1
	}
	type acc struct {
		shoes int64
		sum   [4]float64    // yA, nA, yB, nB per shoe
		prod  [4][4]float64 // their products
	}
	accs := make([]acc, workers)
	pairs := make([][2]*Sim, workers)
	for i := range pairs {
		for j, c := range []Config{a, b} {
			c.Seed = c.Seed*0x9e3779b97f4a7c15 + uint64(i)*0xbf58476d1ce4e5b9 + 1
			s, err := New(c)
			if err != nil {
				return Paired{}, err
			}
			pairs[i][j] = s
		}
	}
	var wg sync.WaitGroup
	for i := range pairs {
		want := rounds / int64(workers)
		wg.Add(1)
		go func() {
			defer wg.Done()
			sa, sb := pairs[i][0], pairs[i][1]
			ac := &accs[i]
			for sa.st.Rounds < want && ctx.Err() == nil {
				nA, yA := sa.PlayShoe()
				nB, yB := sb.PlayShoe()
				v := [4]float64{float64(yA) / float64(sa.unit), float64(nA), float64(yB) / float64(sb.unit), float64(nB)}
				ac.shoes++
				for x := range v {
					ac.sum[x] += v[x]
					for y := range v {
						ac.prod[x][y] += v[x] * v[y]
					}
				}
			}
		}()
	}
	wg.Wait()
	var p Paired
	var tot acc
	for i := range pairs {
		p.A.Add(pairs[i][0].Stats())
		p.B.Add(pairs[i][1].Stats())
		tot.shoes += accs[i].shoes
		for x := range 4 {
			tot.sum[x] += accs[i].sum[x]
			for y := range 4 {
				tot.prod[x][y] += accs[i].prod[x][y]
			}
		}
	}
	p.Diff = p.B.Edge() - p.A.Edge()
	if tot.shoes > 1 {
		// Edge = −Σy/Σn; z = −(yB − RB·nB)/n̄B + (yA − RA·nA)/n̄A per shoe, Var(Diff) ≈ Var(z)/S.
		S := float64(tot.shoes)
		nA, nB := tot.sum[1]/S, tot.sum[3]/S
		rA, rB := tot.sum[0]/tot.sum[1], tot.sum[2]/tot.sum[3]
		c := [4]float64{1 / nA, -rA / nA, -1 / nB, rB / nB}
		var mean, sq float64
		for x := range 4 {
			mean += c[x] * tot.sum[x] / S
			for y := range 4 {
				sq += c[x] * c[y] * tot.prod[x][y] / S
			}
		}
		v := (sq - mean*mean) * S / (S - 1)
		p.CI95 = 1.959964 * math.Sqrt(math.Max(v, 0)/S)
	}
	return p, ctx.Err()
}
