package baccarat

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Line is one way a bet is settled, with its exact chance: Count of the Den equally likely
// sequences.
type Line struct {
	Event string   `json:"event"`
	Pay   string   `json:"pays"`
	Count uint64   `json:"count"`
	Den   uint64   `json:"den"`
	P     *big.Rat `json:"-"`
	// Prob is P to 9 decimals, for people and JSON.
	Prob string `json:"probability"`
	pay  Pay
}

// BetOdds is one bet's exact figures at a pay table.
type BetOdds struct {
	Spot  string `json:"bet"`
	Lines []Line `json:"lines"` // the ways it is settled, the best pay first
	// EV is what the bet returns per unit staked, on average: negative when the house has the
	// edge. Pushes count as bets settled at 0 (the convention of the published figures).
	EV *big.Rat `json:"-"`
	// Edge is the house edge in percent (−EV × 100) to 9 decimals; negative when the bet
	// favours the player.
	Edge string `json:"edge_percent"`
	// PWin is the chance that the bet wins anything.
	PWin *big.Rat `json:"-"`
}

// EVFloat returns EV as a float64, for displays.
func (b BetOdds) EVFloat() float64 { f, _ := b.EV.Float64(); return f }

// event names a value-based bet's settlement for the math's tables.
func event(spot string, s Summary, p Pay) string {
	if p.Num < 0 {
		return "loses"
	}
	if p.Num == 0 {
		switch {
		case s.Result() == ResultTie && (spot == SpotPlayerBonus || spot == SpotBankerBonus) && s.PlayerNatural():
			return "natural tie"
		case s.Result() == ResultTie:
			return "tie"
		case spot == SpotBanker:
			return "banker wins with a three-card 7"
		}
		return "push"
	}
	switch spot {
	case SpotPlayer:
		return "player wins"
	case SpotBanker:
		if p.Den != 1 && p.Num == 1 {
			return "banker wins with 6"
		}
		return "banker wins"
	case SpotTie:
		return "tie"
	case SpotDragon7:
		return "banker wins with a three-card 7"
	case SpotPanda8:
		return "player wins with a three-card 8"
	case SpotLucky6:
		if s.BankerDrew {
			return "banker wins with a three-card 6"
		}
		return "banker wins with a two-card 6"
	case SpotPlayerBonus, SpotBankerBonus:
		own, other, nat := s.Player, s.Banker, s.PlayerNatural()
		if spot == SpotBankerBonus {
			own, other, nat = other, own, s.BankerNatural()
		}
		if nat {
			return "natural win"
		}
		return fmt.Sprintf("win by %d", own-other)
	}
	return "wins"
}

// pairSpot reports whether a spot is settled on the first two cards of the hands alone.
func pairSpot(spot string) bool {
	switch spot {
	case SpotPlayerPair, SpotBankerPair, SpotEitherPair, SpotPerfectPair:
		return true
	}
	return false
}

// Odds returns the exact figures of each bet on spots for variant v and pay table t (RULES.md
// §2), from the enumeration: the chance of each settlement, the expected return and the house
// edge. Some bets are left out where the enumeration cannot price them exactly: the perfect
// pair without a composition by card (ExactCards), and in baccarat the pairs, which push when a
// tie voids the coup (seed 000) and are counted apart from the coup's result.
func (x *Exact) Odds(v Variant, t PayTable, spots []string) []BetOdds {
	var out []BetOdds
	for _, spot := range spots {
		if spot == SpotPerfectPair && !x.Suited || pairSpot(spot) && v == Baccarat {
			continue
		}
		var lines []Line
		addLine := func(ev string, p Pay, w, den uint64) {
			for i := range lines {
				if lines[i].Event == ev && lines[i].pay == p {
					lines[i].Count += w
					return
				}
			}
			lines = append(lines, Line{Event: ev, Pay: p.String(), Count: w, Den: den, pay: p})
		}
		if pairSpot(spot) {
			x.pairLines(spot, addLine)
		} else {
			for pf := range 10 {
				for bf := range 10 {
					for pd := range 2 {
						for bd := range 2 {
							w := x.Outcomes[pf][bf][pd][bd]
							if w == 0 {
								continue
							}
							s := Summary{Player: pf, Banker: bf, PlayerDrew: pd == 1, BankerDrew: bd == 1}
							p := PayOf(v, t, spot, s)
							addLine(event(spot, s, p), p, w, x.Sequences)
						}
					}
				}
			}
		}
		b := BetOdds{Spot: spot, EV: new(big.Rat), PWin: new(big.Rat)}
		for i := range lines {
			l := &lines[i]
			l.P = rat(l.Count, l.Den)
			l.Prob = l.P.FloatString(9)
			b.EV.Add(b.EV, new(big.Rat).Mul(l.P, big.NewRat(l.pay.Num, l.pay.Den)))
			if l.pay.Num > 0 {
				b.PWin.Add(b.PWin, l.P)
			}
		}
		// The best pay first, then the likelier.
		slices.SortStableFunc(lines, func(a, b Line) int {
			if c := big.NewRat(b.pay.Num, b.pay.Den).Cmp(big.NewRat(a.pay.Num, a.pay.Den)); c != 0 {
				return c
			}
			return b.P.Cmp(a.P)
		})
		b.Lines = lines
		b.Edge = new(big.Rat).Mul(b.EV, big.NewRat(-100, 1)).FloatString(9)
		out = append(out, b)
	}
	return out
}

// pairLines settles a pair bet from the pair counts.
func (x *Exact) pairLines(spot string, add func(string, Pay, uint64, uint64)) {
	fd, den := x.FourDen, x.PairDen
	switch spot {
	case SpotEitherPair:
		// Either hand: P(player) + P(banker) − P(both), on the four-card sequences.
		w := 2*x.PairNum*(fd/den) - x.BothPairs
		add("either hand a pair", win(payEither), w, fd)
		add("loses", Lose, fd-w, fd)
	case SpotPerfectPair:
		w := 2*x.PerfectNum*(fd/den) - x.BothPerfect
		add("either hand a perfect pair", win(payPerfect), w, fd)
		add("loses", Lose, fd-w, fd)
	default:
		add("pair", win(payPair), x.PairNum, den)
		add("loses", Lose, den-x.PairNum, den)
	}
}

// Edges returns the house edge of every punto banco bet at the standard pay table (RULES.md §2
// pay table). Baccarat's player and banker bets have the same edges: its tie voids the coup,
// which is the push the figures already count.
func (x *Exact) Edges() []Edge {
	var out []Edge
	for _, b := range x.Odds(PuntoBanco, Standard, []string{SpotBanker, SpotPlayer, SpotTie, SpotPlayerPair, SpotBankerPair}) {
		e := new(big.Rat).Neg(b.EV)
		pays := ""
		for _, l := range b.Lines {
			if l.pay.Num > 0 {
				pays = l.Pay
				break
			}
		}
		out = append(out, Edge{Bet: b.Spot, Pays: pays, Edge: e, Percent: b.Edge})
	}
	return out
}

// LiveOdds is every bet's exact figures for the cards left in a shoe, cs, card by card (the
// surveillance view's live odds, issue 20): ExactCards, then Odds.
func LiveOdds(cs card.Counts, v Variant, t PayTable, spots []string) ([]BetOdds, error) {
	x, err := ExactCards(cs)
	if err != nil {
		return nil, err
	}
	return x.Odds(v, t, spots), nil
}

// AllSpots returns every spot of the family's punto banco layout and every side bet's, in
// layout order: what a view that does not know a table's options prices.
func AllSpots() []string {
	return append([]string{SpotPlayer, SpotBanker, SpotTie, SpotPlayerPair, SpotBankerPair},
		sideSpots([]string{SpotDragon7, SpotPanda8, SpotLucky6, SideDragonBonus, SpotEitherPair, SpotPerfectPair})...)
}
