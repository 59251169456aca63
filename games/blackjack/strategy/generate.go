package strategy

import (
	"fmt"
	"math"
	"sort"

	"github.com/sabot-tables/sabot/games/blackjack"
)

// shoe is a composition by blackjack value: c[1] aces … c[10] ten-value cards; n in all.
type shoe struct {
	c [11]int
	n int
}

func newShoe(decks int) shoe {
	var s shoe
	for v := 1; v <= 9; v++ {
		s.c[v] = 4 * decks
	}
	s.c[10] = 16 * decks
	s.n = 52 * decks
	return s
}

func (s *shoe) take(v int) { s.c[v]--; s.n-- }
func (s *shoe) put(v int)  { s.c[v]++; s.n++ }

// dist is the distribution of the dealer's final hand, given that it is not a blackjack:
// 17, 18, 19, 20, 21, bust.
type dist [6]float64

func best(hard int, ace bool) (int, bool) {
	if ace && hard+10 <= 21 {
		return hard + 10, true
	}
	return hard, false
}

// dealer computes the dealer's final distribution from a hand of hard total hard (ace: holds an
// ace) drawing from s; key is the multiset of the dealer's cards (4 bits a value) for the memo.
func dealer(s *shoe, h17 bool, hard int, ace bool, key uint64, memo map[uint64]dist) dist {
	var d dist
	if hard > 21 {
		d[5] = 1
		return d
	}
	t, soft := best(hard, ace)
	if t > 17 || t == 17 && !(soft && h17) {
		d[t-17] = 1
		return d
	}
	if m, ok := memo[key]; ok {
		return m
	}
	n := float64(s.n)
	for v := 1; v <= 10; v++ {
		if s.c[v] == 0 {
			continue
		}
		p := float64(s.c[v]) / n
		s.take(v)
		sub := dealer(s, h17, hard+v, ace || v == 1, key+1<<(4*(v-1)), memo)
		s.put(v)
		for i := range d {
			d[i] += p * sub[i]
		}
	}
	memo[key] = d
	return d
}

// dealerDist returns the dealer's final distribution against up card up drawing from s (the
// up card and the player's cards already removed), given no dealer blackjack, and the
// probability of a dealer blackjack.
func dealerDist(s shoe, up int, h17 bool) (dist, float64) {
	bj := 0
	switch up {
	case 1:
		bj = 10
	case 10:
		bj = 1
	}
	excl := 0
	if bj != 0 {
		excl = s.c[bj]
	}
	memo := map[uint64]dist{}
	var d dist
	rest := float64(s.n - excl)
	for v := 1; v <= 10; v++ {
		if v == bj || s.c[v] == 0 {
			continue
		}
		p := float64(s.c[v]) / rest
		s.take(v)
		sub := dealer(&s, h17, up+v, up == 1 || v == 1, 1<<(4*(up-1))+1<<(4*(v-1)), memo)
		s.put(v)
		for i := range d {
			d[i] += p * sub[i]
		}
	}
	return d, float64(excl) / float64(s.n)
}

// player evaluates a player's hands against a fixed dealer distribution, drawing from base
// less the hand's own cards.
type player struct {
	base shoe
	d    dist
	memo map[uint64]float64 // best of stand and hit, by hand composition (5 bits a value)
}

func newPlayer(base shoe, d dist) *player {
	return &player{base: base, d: d, memo: map[uint64]float64{}}
}

// stand is the value of standing on total t (not a blackjack).
func (p *player) stand(t int) float64 {
	if t > 21 {
		return -1
	}
	var ev float64
	for i, q := range p.d {
		switch {
		case i == 5 || 17+i < t:
			ev += q
		case 17+i > t:
			ev -= q
		}
	}
	return ev
}

// comp is a player's hand: hard total, whether it holds an ace, and its composition key.
type comp struct {
	hard int
	ace  bool
	key  uint64
}

func (c comp) add(v int) comp {
	return comp{c.hard + v, c.ace || v == 1, c.key + 1<<(5*(v-1))}
}

func (c comp) total() int { t, _ := best(c.hard, c.ace); return t }

// shoeFor returns the cards left to the player holding c.
func (p *player) shoeFor(c comp) shoe {
	s := p.base
	for v := 1; v <= 10; v++ {
		k := int(c.key>>(5*(v-1))) & 31
		s.c[v] -= k
		s.n -= k
	}
	return s
}

// value is the best of standing and hitting on c.
func (p *player) value(c comp) float64 {
	if c.hard > 21 {
		return -1
	}
	t := c.total()
	if t == 21 {
		return p.stand(21)
	}
	if m, ok := p.memo[c.key]; ok {
		return m
	}
	v := math.Max(p.stand(t), p.hit(c))
	p.memo[c.key] = v
	return v
}

// hit is the value of taking one card and playing on.
func (p *player) hit(c comp) float64 {
	s := p.shoeFor(c)
	var ev float64
	for v := 1; v <= 10; v++ {
		if s.c[v] > 0 {
			ev += float64(s.c[v]) / float64(s.n) * p.value(c.add(v))
		}
	}
	return ev
}

// double is the value of doubling: one card, twice the stake.
func (p *player) double(c comp) float64 {
	s := p.shoeFor(c)
	var ev float64
	for v := 1; v <= 10; v++ {
		if s.c[v] > 0 {
			ev += float64(s.c[v]) / float64(s.n) * p.stand(c.add(v).total())
		}
	}
	return 2 * ev
}

// Generate computes the total-dependent basic strategy for rules r and a shoe of decks decks.
func Generate(r blackjack.Rules, decks int) (*Strategy, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if decks < 1 || decks > 8 {
		return nil, fmt.Errorf("strategy: %d decks: want 1 to 8", decks)
	}
	st := &Strategy{Rules: r, Decks: decks}
	full := newShoe(decks)
	peek := r.Peek && r.HoleCard
	for up := 1; up <= 10; up++ {
		generateUp(st, full, up, peek)
	}
	return st, nil
}

type cell struct {
	w  float64
	ev [6]float64 // by Action
}

// generateUp fills the strategy's column of up card up.
func generateUp(st *Strategy, full shoe, up int, peek bool) {
	r := st.Rules
	s0 := full
	s0.take(up)
	var hard, soft [22]cell
	n := float64(s0.n)
	for a := 1; a <= 10; a++ {
		for b := a; b <= 10; b++ {
			if a == 1 && b == 10 {
				continue // a natural: no decision
			}
			w := float64(s0.c[a]) / n
			if a == b {
				w *= float64(s0.c[b]-1) / (n - 1)
			} else {
				w *= 2 * float64(s0.c[b]) / (n - 1)
			}
			if w == 0 {
				continue
			}
			s := s0
			s.take(a)
			s.take(b)
			d, pbj := dealerDist(s, up, r.HitSoft17)
			if peek {
				pbj = 0 // decisions are taken knowing the dealer has no blackjack
			}
			p := newPlayer(s0, d)
			c := comp{}.add(a).add(b)
			t, isSoft := best(c.hard, c.ace)
			lose := func(stake float64) float64 { // the loss to a dealer blackjack
				if r.DealerBJTakesAll {
					return -stake
				}
				return -1
			}
			mix := func(ev, stake float64) float64 { return pbj*lose(stake) + (1-pbj)*ev }
			var ev [6]float64
			ev[Stand] = mix(p.stand(t), 1)
			ev[Hit] = mix(p.hit(c), 1)
			ev[Double] = mix(p.double(c), 2)
			ev[Surrender] = -0.5
			ev[Split] = math.Inf(-1)
			cl := &hard[t]
			if isSoft {
				cl = &soft[t]
			}
			cl.w += w
			for i := range ev {
				cl.ev[i] += w * ev[i]
			}
			if a == b && r.MaxHands > 1 {
				sp := mix(splitEV(r, s0, d, a), 2)
				bestOther := math.Max(ev[Stand], ev[Hit])
				if r.Double != blackjack.DoubleNone && r.Double.Allows(t) {
					bestOther = math.Max(bestOther, ev[Double])
				}
				if r.Surrender.Allows(up) {
					bestOther = math.Max(bestOther, ev[Surrender])
				}
				st.Pairs[a][up] = sp > bestOther
			}
		}
	}
	fill := func(cells *[22]cell, prefs *[22][11]Pref, evs *[22][11]float64) {
		for t := range cells {
			cl := cells[t]
			acts := []Action{Hit, Stand}
			if r.Double != blackjack.DoubleNone && r.Double.Allows(t) {
				acts = append(acts, Double)
			}
			if r.Surrender.Allows(up) {
				acts = append(acts, Surrender)
			}
			if cl.w == 0 {
				// Reached only with three or more cards (hard and soft 21): stand; or never.
				if t >= 17 {
					prefs[t][up] = Pref{Stand}
				} else {
					prefs[t][up] = Pref{Hit, Stand}
				}
				continue
			}
			sort.SliceStable(acts, func(i, j int) bool { return cl.ev[acts[i]] > cl.ev[acts[j]] })
			var p Pref
			copy(p[:], acts)
			prefs[t][up] = p
			evs[t][up] = cl.ev[acts[0]] / cl.w
		}
	}
	fill(&hard, &st.Hard, &st.HardEV)
	fill(&soft, &st.Soft, &st.SoftEV)
}

// splitEV is the value, given no dealer blackjack, of splitting a pair of value v: two hands,
// each one pair card with the other removed from the shoe; resplits while the box may hold more
// hands; split aces one card each unless the rules let them be hit.
func splitEV(r blackjack.Rules, s0 shoe, d dist, v int) float64 {
	sib := s0
	sib.take(v) // the other hand's first card
	p := newPlayer(sib, d)
	draw := sib
	draw.take(v) // this hand's first card
	var one func(k int) float64
	one = func(k int) float64 {
		var ev float64
		for x := 1; x <= 10; x++ {
			if draw.c[x] == 0 {
				continue
			}
			q := float64(draw.c[x]) / float64(draw.n)
			c := comp{}.add(v).add(x)
			var w float64
			if v == 1 && !r.HitSplitAces {
				w = p.stand(c.total())
				if x == 1 && r.ResplitAces && k > 0 {
					w = math.Max(w, 2*one(k-1))
				}
			} else {
				w = math.Max(p.stand(c.total()), p.hit(c))
				if r.DoubleAfterSplit && r.Double != blackjack.DoubleNone && r.Double.Allows(c.total()) {
					w = math.Max(w, p.double(c))
				}
				if x == v && k > 0 {
					w = math.Max(w, 2*one(k-1))
				}
			}
			ev += q * w
		}
		return ev
	}
	return 2 * one(r.MaxHands-2)
}
