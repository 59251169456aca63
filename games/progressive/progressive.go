package progressive

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sabot-tables/sabot/games/poker/hand"
	"github.com/sabot-tables/sabot/shoe/card"
)

// ErrConfig is wrapped by every error about a pool's configuration.
var ErrConfig = errors.New("progressive: bad configuration")

// ErrRound is wrapped by every error about a round given to Settle.
var ErrRound = errors.New("progressive: bad round")

// BP is 100% in basis points: shares and percentages are in basis points (1 bp = 0.01%).
const BP = 10000

// Prize is what a winning hand is paid: a multiple of the bet (seed 002: "El numero de fichas
// apostadas será el multiplicador de los montos de los premios … con excepción de los premios
// indicados en porcentajes") or a percentage of the main pool, in basis points. Exactly one of
// the two is set.
type Prize struct {
	Multiple int64 `json:"multiple,omitempty"` // paid Multiple × the bet
	Percent  int64 `json:"percent,omitempty"`  // paid Percent/10000 of the main pool
}

// String writes "100x" or "10%" ("12.5%").
func (p Prize) String() string {
	if p.Percent > 0 {
		s := strconv.FormatInt(p.Percent/100, 10)
		if f := p.Percent % 100; f != 0 {
			s += strings.TrimRight(fmt.Sprintf(".%02d", f), "0")
		}
		return s + "%"
	}
	return strconv.FormatInt(p.Multiple, 10) + "x"
}

// ParsePrize reads "100x" (a multiple of the bet) or "10%" / "12.5%" (of the main pool, to a
// hundredth of a percent, at most 100%).
func ParsePrize(s string) (Prize, error) {
	bad := fmt.Errorf("%w: prize %q is neither a multiple (\"100x\") nor a percentage (\"10%%\")", ErrConfig, s)
	switch {
	case strings.HasSuffix(s, "x"):
		n, err := strconv.ParseInt(strings.TrimSuffix(s, "x"), 10, 64)
		if err != nil || n <= 0 || n > 1_000_000 {
			return Prize{}, bad
		}
		return Prize{Multiple: n}, nil
	case strings.HasSuffix(s, "%"):
		whole, frac, _ := strings.Cut(strings.TrimSuffix(s, "%"), ".")
		if len(frac) > 2 {
			return Prize{}, bad
		}
		frac += strings.Repeat("0", 2-len(frac))
		w, err1 := strconv.ParseInt(whole, 10, 64)
		f, err2 := strconv.ParseInt(frac, 10, 64)
		if err1 != nil || err2 != nil || w < 0 || f < 0 || w > 100 {
			return Prize{}, bad
		}
		p := w*100 + f
		if p <= 0 || p > BP {
			return Prize{}, bad
		}
		return Prize{Percent: p}, nil
	}
	return Prize{}, bad
}

// MarshalText writes String's form.
func (p Prize) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads ParsePrize's form.
func (p *Prize) UnmarshalText(b []byte) error {
	v, err := ParsePrize(string(b))
	if err != nil {
		return err
	}
	*p = v
	return nil
}

// Table is the prize table: what each winning hand category is paid. A category that is not in
// the table wins nothing.
type Table map[hand.Category]Prize

// DefaultTable is RULES.md §7's prize table: royal flush 100% of the pool, straight flush 10%,
// and fixed prizes for lower hands (the seeds give no values; these are the common Caribbean
// stud progressive's: four of a kind 100×, full house 75×, flush 50× the bet). Configurable.
func DefaultTable() Table {
	return Table{
		hand.RoyalFlush:    {Percent: BP},
		hand.StraightFlush: {Percent: 1000},
		hand.FourOfAKind:   {Multiple: 100},
		hand.FullHouse:     {Multiple: 75},
		hand.Flush:         {Multiple: 50},
	}
}

// String writes the table as ParseTable reads it, best hand first:
// "royal-flush=100%,straight-flush=10%,…".
func (t Table) String() string {
	var parts []string
	for i := len(hand.Categories) - 1; i >= 0; i-- {
		c := hand.Categories[i]
		if p, ok := t[c]; ok {
			parts = append(parts, strings.ReplaceAll(c.String(), " ", "-")+"="+p.String())
		}
	}
	return strings.Join(parts, ",")
}

// ParseTable reads "royal-flush=100%,straight-flush=10%,four-of-a-kind=100x": category names as
// hand.ParseCategory reads them, prizes as ParsePrize does. Each category at most once.
func ParseTable(s string) (Table, error) {
	t := Table{}
	for _, item := range strings.Split(s, ",") {
		name, prize, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return nil, fmt.Errorf("%w: prize table item %q is not category=prize", ErrConfig, item)
		}
		c, err := hand.ParseCategory(name)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrConfig, err)
		}
		if _, dup := t[c]; dup {
			return nil, fmt.Errorf("%w: prize table names %s twice", ErrConfig, c)
		}
		p, err := ParsePrize(prize)
		if err != nil {
			return nil, err
		}
		t[c] = p
	}
	return t, nil
}

// Reserve is a reserve pool (seed 000: "pozos progresivos de reserva con el fin de acumular fondos
// para su uso futuro") and its share, in basis points, of what the bets feed to the pools.
type Reserve struct {
	Name  string `json:"name"`
	Share int64  `json:"share"`
}

// Config is one progressive pool, shared by every table connected to it (seed 000: "Las mesas
// que participen de un pozo progresivo pueden corresponder a algunas o a todas las mesas").
type Config struct {
	// Pool names the pool; tables name the pool they feed.
	Pool string `json:"pool"`
	// Base is the main pool's starting value and the least it is reset to after a prize, in
	// cents; non-zero (seed 000: "un valor inicial o base distinto de cero").
	Base int64 `json:"base"`
	// Share is the part of every progressive bet, in basis points, that feeds the pools; the rest
	// is the house's commission (seed 000: "El monto que resulta luego de restar la comisión …
	// incrementará los pozos").
	Share int64 `json:"share"`
	// Reserves are the reserve pools and their shares of what feeds the pools; the main pool
	// takes the rest. They refill the main pool to its base after a prize.
	Reserves []Reserve `json:"reserves,omitempty"`
	// Prizes is the prize table by hand.
	Prizes Table `json:"prizes"`
	// MagicCard and LuckyPlayer are the random prizes of seed 002, in cents (0: not offered).
	MagicCard   int64 `json:"magic_card,omitempty"`
	LuckyPlayer int64 `json:"lucky_player,omitempty"`
	// RandomOdds: a random prize is drawn for one round in RandomOdds on average (seed 002: "el
	// sistema, en forma aleatoria, premiara en algún momento"); 0 draws none.
	RandomOdds int64 `json:"random_odds,omitempty"`
	// HouseCover: the house pays what a prize needs beyond the main pool and the reserves
	// (RULES.md §7, *our reading*). Without it a floor's controller refuses such a prize and the
	// round waits for a supervisor (PayRound's ErrShort); Settle, the round contract's
	// arithmetic, always covers.
	HouseCover bool `json:"house_cover,omitempty"`
}

// Check validates the configuration.
func (c Config) Check() error {
	switch {
	case c.Pool == "":
		return fmt.Errorf("%w: the pool has no name", ErrConfig)
	case c.Base <= 0:
		return fmt.Errorf("%w: pool %s: the main pool's base must be above zero (seed 000)", ErrConfig, c.Pool)
	case c.Share <= 0 || c.Share > BP:
		return fmt.Errorf("%w: pool %s: the share of each bet that feeds the pools must be above 0 and at most 10000 basis points", ErrConfig, c.Pool)
	case c.MagicCard < 0 || c.LuckyPlayer < 0 || c.RandomOdds < 0:
		return fmt.Errorf("%w: pool %s: random prizes and odds cannot be negative", ErrConfig, c.Pool)
	case c.RandomOdds > 0 && c.MagicCard == 0 && c.LuckyPlayer == 0:
		return fmt.Errorf("%w: pool %s: random prizes are drawn but none is offered", ErrConfig, c.Pool)
	}
	var sum int64
	seen := map[string]bool{}
	for _, r := range c.Reserves {
		if r.Name == "" || r.Name == "main" || seen[r.Name] {
			return fmt.Errorf("%w: pool %s: reserve pool names must be distinct, not empty, not \"main\"", ErrConfig, c.Pool)
		}
		seen[r.Name] = true
		if r.Share <= 0 {
			return fmt.Errorf("%w: pool %s: reserve %s has no share", ErrConfig, c.Pool, r.Name)
		}
		sum += r.Share
	}
	if sum >= BP {
		return fmt.Errorf("%w: pool %s: the reserves take %d basis points, leaving nothing for the main pool", ErrConfig, c.Pool, sum)
	}
	if len(c.Prizes) == 0 {
		return fmt.Errorf("%w: pool %s: empty prize table", ErrConfig, c.Pool)
	}
	for cat, p := range c.Prizes {
		if (p.Multiple > 0) == (p.Percent > 0) || p.Multiple < 0 || p.Percent < 0 || p.Percent > BP {
			return fmt.Errorf("%w: pool %s: prize for %s must be a positive multiple or a percentage up to 100%%", ErrConfig, c.Pool, cat)
		}
	}
	return nil
}

// State is what the pools hold, in cents.
type State struct {
	Main     int64            `json:"main"`
	Reserves map[string]int64 `json:"reserves,omitempty"`
	// Commission is the house's commission collected from the bets; Funded is what the house
	// put in when the pools could not pay a prize or restore the base.
	Commission int64 `json:"commission"`
	Funded     int64 `json:"funded"`
	// Rounds counts the rounds applied.
	Rounds int64 `json:"rounds"`
}

// Start returns a new pool's State: the main pool at its base, put in by the house.
func (c Config) Start() State {
	st := State{Main: c.Base, Funded: c.Base, Reserves: map[string]int64{}}
	for _, r := range c.Reserves {
		st.Reserves[r.Name] = 0
	}
	return st
}

func (s State) clone() State {
	out := s
	out.Reserves = make(map[string]int64, len(s.Reserves))
	for k, v := range s.Reserves {
		out.Reserves[k] = v
	}
	return out
}

// Bet is one seat's progressive bet in a round and the hand it holds.
type Bet struct {
	Seat   int         `json:"seat"`
	Amount int64       `json:"amount"`
	Cards  []card.Card `json:"cards"`
	// Folded: the seat gave up its hand in the base game, so its hand wins no prize (its cards
	// went to the discards unseen, seed 000). Random prizes do not depend on the hand.
	Folded bool `json:"folded,omitempty"`
	// Void: the seat's hand was void (a wrong number of cards, seed 002); the bet is returned
	// and feeds nothing.
	Void bool `json:"void,omitempty"`
}

// Round is one table round's progressive bets.
type Round struct {
	Table string `json:"table"`
	Round string `json:"round"`
	Bets  []Bet  `json:"bets"`
	// Draw is the random prize drawn for this round, if any (see Draw).
	Draw *Drawn `json:"draw,omitempty"`
}

// Check validates the round: a table and round id, bets on distinct seats with positive amounts,
// five distinct cards per hand that is not void or folded.
func (r Round) Check() error {
	if r.Table == "" || r.Round == "" {
		return fmt.Errorf("%w: a round needs its table and round id", ErrRound)
	}
	seats := map[int]bool{}
	for _, b := range r.Bets {
		if b.Seat <= 0 || seats[b.Seat] {
			return fmt.Errorf("%w: table %s round %s: seat %d: a seat bets once, seats are 1 or above", ErrRound, r.Table, r.Round, b.Seat)
		}
		seats[b.Seat] = true
		if b.Amount <= 0 {
			return fmt.Errorf("%w: table %s round %s: seat %d: a bet must be a positive amount of cents", ErrRound, r.Table, r.Round, b.Seat)
		}
		if b.Void || b.Folded {
			continue
		}
		if _, err := hand.Eval(b.Cards...); err != nil || len(b.Cards) != 5 {
			return fmt.Errorf("%w: table %s round %s: seat %d: the hand must be five distinct cards: %d given", ErrRound, r.Table, r.Round, b.Seat, len(b.Cards))
		}
	}
	if d := r.Draw; d != nil {
		if !seats[d.Seat] {
			return fmt.Errorf("%w: table %s round %s: random prize drawn for seat %d, which has no progressive bet", ErrRound, r.Table, r.Round, d.Seat)
		}
		if d.Kind == MagicCard && !d.Card.Valid() {
			return fmt.Errorf("%w: table %s round %s: carta mágica drawn without a card", ErrRound, r.Table, r.Round)
		}
		if d.Kind != MagicCard && d.Kind != LuckyPlayer {
			return fmt.Errorf("%w: table %s round %s: unknown random prize %q", ErrRound, r.Table, r.Round, d.Kind)
		}
	}
	return nil
}

// Feed is what one bet fed: to the main pool, to each reserve, and the house's commission.
type Feed struct {
	Seat       int              `json:"seat"`
	Amount     int64            `json:"amount"`
	Main       int64            `json:"main"`
	Reserves   map[string]int64 `json:"reserves,omitempty"`
	Commission int64            `json:"commission"`
	Returned   bool             `json:"returned,omitempty"` // a void hand's bet, given back
}

// Source is where part of a payout came from: "main", a reserve's name, or "house".
type Source struct {
	Pool   string `json:"pool"`
	Amount int64  `json:"amount"`
}

// Payout is one prize paid.
type Payout struct {
	Seat     int           `json:"seat"`
	Kind     string        `json:"kind"` // "hand", MagicCard or LuckyPlayer
	Category hand.Category `json:"category,omitzero"`
	Prize    Prize         `json:"prize,omitzero"`
	Amount   int64         `json:"amount"`
	From     []Source      `json:"from,omitempty"`
}

// Result is what Settle did to the pools in one round.
type Result struct {
	Pool    string   `json:"pool"`
	Table   string   `json:"table"`
	Round   string   `json:"round"`
	Before  State    `json:"before"`
	Feeds   []Feed   `json:"feeds"`
	Payouts []Payout `json:"payouts"`
	Draw    *Drawn   `json:"draw,omitempty"`
	// Refill is what moved into the main pool to restore its base after the prizes.
	Refill []Source `json:"refill,omitempty"`
	After  State    `json:"after"`
}

// Net returns what the seat won on its progressive bet less the bet (the bet is kept by the pool
// whatever the hand: seed 000 "el jugador ganador sólo se queda con el monto del premio pagado,
// excluyendo el valor de su apuesta"); a void hand's returned bet nets 0.
func (r Result) Net(seat int) int64 {
	var n int64
	for _, f := range r.Feeds {
		if f.Seat == seat && !f.Returned {
			n -= f.Amount
		}
	}
	for _, p := range r.Payouts {
		if p.Seat == seat {
			n += p.Amount
		}
	}
	return n
}

// Settle applies one round to the pools in st and returns their new State and what happened:
//  1. every bet feeds the pools: Share of it (rounded down) to the pools, split among the
//     reserves by their shares (rounded down) and the rest to the main pool; the remainder is the
//     house's commission. A void hand's bet is returned and feeds nothing.
//  2. the winning hands are paid in seat order from the croupier's right to left (the highest
//     seat first; seats are numbered from the croupier's left, the order cards are dealt), each
//     from what the previous left (RULES.md §7; seed 000 "de derecha a izquierda del croupier"):
//     a percentage prize from the main pool as it then stands, a multiple of the bet from the main
//     pool, then the reserves, then the house when the pools are short.
//  3. the random prize drawn for the round, if any, is paid the same way.
//  4. the main pool is refilled to its base from the reserves in order, then by the house.
//
// st is not modified.
func (c Config) Settle(st State, r Round) (State, Result, error) {
	if err := c.Check(); err != nil {
		return st, Result{}, err
	}
	if err := r.Check(); err != nil {
		return st, Result{}, err
	}
	next := st.clone()
	res := Result{Pool: c.Pool, Table: r.Table, Round: r.Round, Before: st.clone(), Draw: r.Draw}
	bets := slices.Clone(r.Bets)
	slices.SortFunc(bets, func(a, b Bet) int { return a.Seat - b.Seat })
	for _, b := range bets {
		f := Feed{Seat: b.Seat, Amount: b.Amount}
		if b.Void {
			f.Returned = true
			res.Feeds = append(res.Feeds, f)
			continue
		}
		f = c.feed(b.Seat, b.Amount)
		for name, v := range f.Reserves {
			next.Reserves[name] += v
		}
		next.Main += f.Main
		next.Commission += f.Commission
		res.Feeds = append(res.Feeds, f)
	}
	for _, p := range c.Prizes.Pay(next.Main, bets) {
		p.From = c.take(&next, p.Amount)
		res.Payouts = append(res.Payouts, p)
	}
	if d := r.Draw; d != nil && d.Won(bets) {
		amount := c.MagicCard
		if d.Kind == LuckyPlayer {
			amount = c.LuckyPlayer
		}
		if amount > 0 {
			res.Payouts = append(res.Payouts, Payout{Seat: d.Seat, Kind: d.Kind, Amount: amount, From: c.take(&next, amount)})
		}
	}
	res.Refill = c.refill(&next)
	next.Rounds++
	res.After = next.clone()
	return next, res, nil
}

// Pay works out the hand prizes of bets against a main pool holding pool cents, as Settle pays
// them: the winning hands in seat order from the croupier's right to left (the highest seat
// first), a percentage prize from what the previous prizes left of the pool, a multiple of the
// bet in full. Void and folded hands win nothing; a hand that is not five distinct cards is
// skipped (Round.Check refuses it). The payouts' From is left empty: where the money comes from
// is Settle's business.
func (t Table) Pay(pool int64, bets []Bet) []Payout {
	sorted := slices.Clone(bets)
	slices.SortFunc(sorted, func(a, b Bet) int { return b.Seat - a.Seat })
	var out []Payout
	for _, b := range sorted {
		if b.Void || b.Folded || len(b.Cards) != 5 {
			continue
		}
		rk, err := hand.Eval(b.Cards...)
		if err != nil {
			continue
		}
		cat := rk.Category()
		prize, ok := t[cat]
		if !ok {
			continue
		}
		amount := b.Amount * prize.Multiple
		if prize.Percent > 0 {
			amount = mulDiv(pool, prize.Percent)
		}
		pool = max(0, pool-amount)
		out = append(out, Payout{Seat: b.Seat, Kind: "hand", Category: cat, Prize: prize, Amount: amount})
	}
	return out
}

// take pays amount from the main pool, then the reserves in order, then the house.
func (c Config) take(st *State, amount int64) []Source {
	var from []Source
	if m := min(amount, st.Main); m > 0 {
		st.Main -= m
		amount -= m
		from = append(from, Source{Pool: "main", Amount: m})
	}
	for _, rv := range c.Reserves {
		if m := min(amount, st.Reserves[rv.Name]); m > 0 {
			st.Reserves[rv.Name] -= m
			amount -= m
			from = append(from, Source{Pool: rv.Name, Amount: m})
		}
	}
	if amount > 0 {
		st.Funded += amount
		from = append(from, Source{Pool: "house", Amount: amount})
	}
	return from
}

// mulDiv returns a × bp / 10000 rounded down, for non-negative a and bp ≤ 10000, without
// overflow for any a below 2^63.
func mulDiv(a, bp int64) int64 {
	return a/BP*bp + a%BP*bp/BP
}
