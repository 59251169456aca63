package progressive

import (
	"errors"
	"fmt"
	"slices"
)

// ErrShort is a prize larger than the pools hold, at a pool the house does not cover
// (Config.HouseCover): it is refused, the pools unchanged, and the round waits for a supervisor.
var ErrShort = errors.New("progressive: prize larger than the pools hold")

// Stake is one progressive bet as the table takes it, before the hand is known.
type Stake struct {
	Seat   int   `json:"seat"`
	Amount int64 `json:"amount"`
}

// The live table splits Settle in two, so that the meter rises as the bets are placed
// (seed 002: the chips "se irán descontando cada vez que el jugador participe"):
//
//	Contribute  at the round's opening: every bet feeds the pools (Settle's step 1)
//	PayRound    once the hands are known: void bets returned, the prizes, the random prize,
//	            the refill (Settle's steps 2–4)
//	Reverse     a round the table voided: its bets and prizes go back where they came from
//
// Contribute then PayRound on one round gives what Settle gives, to the cent, when no other
// round came between (TestLiveMatchesSettle).

// Contribute feeds the pools with one round's progressive bets as the table takes them:
// Share of each (rounded down) to the pools, split among the reserves by their shares and the
// rest to the main pool; the remainder is the house's commission (RULES.md §7). st is not
// modified.
func (c Config) Contribute(st State, stakes []Stake) (State, []Feed, error) {
	if err := c.Check(); err != nil {
		return st, nil, err
	}
	seats := map[int]bool{}
	for _, s := range stakes {
		if s.Seat <= 0 || seats[s.Seat] {
			return st, nil, fmt.Errorf("%w: seat %d: a seat bets once, seats are 1 or above", ErrRound, s.Seat)
		}
		seats[s.Seat] = true
		if s.Amount <= 0 {
			return st, nil, fmt.Errorf("%w: seat %d: a bet must be a positive amount of cents", ErrRound, s.Seat)
		}
	}
	next := st.clone()
	sorted := slices.Clone(stakes)
	slices.SortFunc(sorted, func(a, b Stake) int { return a.Seat - b.Seat })
	feeds := make([]Feed, 0, len(sorted))
	for _, s := range sorted {
		f := c.feed(s.Seat, s.Amount)
		next.Main += f.Main
		for name, v := range f.Reserves {
			next.Reserves[name] += v
		}
		next.Commission += f.Commission
		feeds = append(feeds, f)
	}
	return next, feeds, nil
}

// feed splits one bet: what goes to the main pool, to each reserve, and the commission.
func (c Config) feed(seat int, amount int64) Feed {
	f := Feed{Seat: seat, Amount: amount}
	pools := mulDiv(amount, c.Share)
	f.Commission = amount - pools
	f.Main = pools
	for _, rv := range c.Reserves {
		share := mulDiv(pools, rv.Share)
		if f.Reserves == nil {
			f.Reserves = map[string]int64{}
		}
		f.Reserves[rv.Name] = share
		f.Main -= share
	}
	return f
}

// pools returns what a feed put into the pools (main and reserves), the commission apart.
func (f Feed) pools() int64 {
	n := f.Main
	for _, v := range f.Reserves {
		n += v
	}
	return n
}

// Returned is a bet given back: a void hand's (RULES.md §7: "A void hand's bet is returned
// and feeds nothing") or a voided round's. From says where it came back from.
type Returned struct {
	Seat   int      `json:"seat"`
	Amount int64    `json:"amount"`
	From   []Source `json:"from"`
}

// PayRound pays one round whose bets Contribute fed (fed: the feeds it returned for them): the
// hands in r must be exactly the bets fed, seat by seat and amount by amount. Then, as Settle:
// a void hand's bet comes back out of the pools and the commission; the winning hands are paid
// from the croupier's right to left, each from what the previous left (RULES.md §7); the random
// prize drawn, if any, is paid; the main pool is refilled to its base. A prize larger than the
// main pool and the reserves hold is ErrShort unless the house covers the pool (HouseCover),
// and then nothing changes. st is not modified.
func (c Config) PayRound(st State, r Round, fed []Feed) (State, Result, []Returned, error) {
	if err := c.Check(); err != nil {
		return st, Result{}, nil, err
	}
	if err := r.Check(); err != nil {
		return st, Result{}, nil, err
	}
	bySeat := map[int]Feed{}
	for _, f := range fed {
		bySeat[f.Seat] = f
	}
	if len(fed) != len(r.Bets) {
		return st, Result{}, nil, fmt.Errorf("%w: table %s round %s: %d hands for %d bets booked", ErrRound, r.Table, r.Round, len(r.Bets), len(fed))
	}
	for _, b := range r.Bets {
		f, ok := bySeat[b.Seat]
		if !ok || f.Amount != b.Amount {
			return st, Result{}, nil, fmt.Errorf("%w: table %s round %s: seat %d's hand bets %d, the bet booked is %d", ErrRound, r.Table, r.Round, b.Seat, b.Amount, f.Amount)
		}
	}
	next := st.clone()
	res := Result{Pool: c.Pool, Table: r.Table, Round: r.Round, Before: st.clone(), Draw: r.Draw}
	bets := slices.Clone(r.Bets)
	slices.SortFunc(bets, func(a, b Bet) int { return a.Seat - b.Seat })
	var returned []Returned
	for _, b := range bets {
		f := bySeat[b.Seat]
		if b.Void {
			returned = append(returned, c.giveBack(&next, f))
			f.Returned = true
		}
		res.Feeds = append(res.Feeds, f)
	}
	pay := func(p Payout) error {
		if !c.HouseCover && p.Amount > next.Main+sumReserves(next) {
			return fmt.Errorf("%w: table %s round %s: seat %d's %s prize of %d cents, the pools hold %d (the house does not cover pool %s): held for a supervisor",
				ErrShort, r.Table, r.Round, p.Seat, p.what(), p.Amount, next.Main+sumReserves(next), c.Pool)
		}
		p.From = c.take(&next, p.Amount)
		res.Payouts = append(res.Payouts, p)
		return nil
	}
	for _, p := range c.Prizes.Pay(next.Main, bets) {
		if err := pay(p); err != nil {
			return st, Result{}, nil, err
		}
	}
	if d := r.Draw; d != nil && d.Won(bets) {
		amount := c.MagicCard
		if d.Kind == LuckyPlayer {
			amount = c.LuckyPlayer
		}
		if amount > 0 {
			if err := pay(Payout{Seat: d.Seat, Kind: d.Kind, Amount: amount}); err != nil {
				return st, Result{}, nil, err
			}
		}
	}
	res.Refill = c.refill(&next)
	next.Rounds++
	res.After = next.clone()
	return next, res, returned, nil
}

func (p Payout) what() string {
	if p.Kind == "hand" {
		return p.Category.String() + " " + p.Prize.String()
	}
	return p.Kind
}

func sumReserves(st State) int64 {
	var n int64
	for _, v := range st.Reserves {
		n += v
	}
	return n
}

// giveBack returns one fed bet: each pool gives back what the bet fed it, as far as it holds
// it; what a pool lacks (a prize took it) comes from the main pool, the reserves, then the
// house, as a prize is paid; the commission gives back its part.
func (c Config) giveBack(st *State, f Feed) Returned {
	var from []Source
	var short int64
	m := min(f.Main, max(0, st.Main))
	if m > 0 {
		st.Main -= m
		from = append(from, Source{Pool: "main", Amount: m})
	}
	short += f.Main - m
	for _, rv := range c.Reserves {
		part := f.Reserves[rv.Name]
		m := min(part, st.Reserves[rv.Name])
		if m > 0 {
			st.Reserves[rv.Name] -= m
			from = append(from, Source{Pool: rv.Name, Amount: m})
		}
		short += part - m
	}
	from = append(from, c.take(st, short)...)
	if f.Commission > 0 {
		st.Commission -= f.Commission
		from = append(from, Source{Pool: "commission", Amount: f.Commission})
	}
	return Returned{Seat: f.Seat, Amount: f.Amount, From: from}
}

// refill restores the main pool to its base from the reserves in order, then by the house.
func (c Config) refill(st *State) []Source {
	if st.Main >= c.Base {
		return nil
	}
	var out []Source
	need := c.Base - st.Main
	for _, rv := range c.Reserves {
		if m := min(need, st.Reserves[rv.Name]); m > 0 {
			st.Reserves[rv.Name] -= m
			st.Main += m
			need -= m
			out = append(out, Source{Pool: rv.Name, Amount: m})
		}
	}
	if need > 0 {
		st.Main += need
		st.Funded += need
		out = append(out, Source{Pool: "house", Amount: need})
	}
	return out
}

// Reversal is what Reverse moved: the prizes put back (Restored, by the source each came from),
// the refill after them taken back out of the main pool (Unrefilled), the bets returned, and the
// main pool's new refill.
type Reversal struct {
	Restored   []Source   `json:"restored,omitempty"`
	Unrefilled []Source   `json:"unrefilled,omitempty"`
	Returned   []Returned `json:"returned,omitempty"`
	Refill     []Source   `json:"refill,omitempty"`
}

// Reverse undoes a round the table voided (RULES.md §1: every bet of a voided round pushes): the
// prizes paid, if the controller paid the round before the table voided it, go back where they
// came from (a payout's pool, or the house) and the refill that followed them is undone; then
// every bet not yet returned comes back out of the pools and the commission; the main pool is
// refilled to its base. paid is the round's Result, nil when it was never paid. st is not
// modified.
func (c Config) Reverse(st State, fed []Feed, paid *Result) (State, Reversal) {
	next := st.clone()
	var rv Reversal
	returnedAlready := map[int]bool{}
	if paid != nil {
		for _, p := range paid.Payouts {
			for _, s := range p.From {
				switch s.Pool {
				case "house":
					next.Funded -= s.Amount
				case "main":
					next.Main += s.Amount
				default:
					next.Reserves[s.Pool] += s.Amount
				}
				rv.Restored = append(rv.Restored, s)
			}
		}
		for _, s := range paid.Refill {
			next.Main -= s.Amount
			if s.Pool == "house" {
				next.Funded -= s.Amount
			} else {
				next.Reserves[s.Pool] += s.Amount
			}
			rv.Unrefilled = append(rv.Unrefilled, s)
		}
		for _, f := range paid.Feeds {
			returnedAlready[f.Seat] = f.Returned
		}
	}
	for _, f := range fed {
		if !returnedAlready[f.Seat] {
			rv.Returned = append(rv.Returned, c.giveBack(&next, f))
		}
	}
	rv.Refill = c.refill(&next)
	return next, rv
}
