package pokermath

import (
	"runtime"
	"slices"
	"sync"

	"github.com/sabot-tables/sabot/games/poker"
	"github.com/sabot-tables/sabot/games/poker/hand"
	"github.com/sabot-tables/sabot/shoe/card"
)

// Strategy names the Caribbean stud strategies Caribbean evaluates.
type Strategy string

// The strategies, with their published house edges (research/gamemath.md §3.1, the Wizard of
// Odds' table).
const (
	Optimal     Strategy = "optimal: raise when raising loses less than folding"
	RulesOfMind Strategy = "raise pairs; raise A-K on the Wizard's three rules; fold the rest"
	PairOrBest  Strategy = "raise any pair or better, fold the rest"
	AceKingUp   Strategy = "raise any A-K or better, fold the rest"
	RaiseAlways Strategy = "raise every hand"
)

// Published is the house edge per ante published for each strategy (Wizard of Odds).
var Published = map[Strategy]float64{Optimal: 0.05224, RulesOfMind: 0.05225, PairOrBest: 0.05470, AceKingUp: 0.05682, RaiseAlways: 0.16607}

// Strategies lists them in the order Caribbean reports them.
var Strategies = []Strategy{Optimal, RulesOfMind, PairOrBest, AceKingUp, RaiseAlways}

// Caribbean is the exact analysis of Caribbean stud.
type Caribbean struct {
	Deals int64                // player hands × dealer up cards × dealer hands: 19,933,230,517,200
	Edge  map[Strategy]float64 // house edge per ante
	// Under the optimal strategy, the share of deals that end each way.
	FoldRate, NoQualify, Win, Push, Lose float64
}

// AnalyseCaribbean computes Caribbean for the bet pay table, using up to workers goroutines (0:
// GOMAXPROCS). It takes a few seconds of CPU per up-card rank (thirteen of them).
func AnalyseCaribbean(pays poker.PayTable, workers int) Caribbean {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	dense := denseRanks()
	qual := dense.of(hand.MaskOf(card.MustParse("As"), card.MustParse("Kh"), card.MustParse("4d"), card.MustParse("3c"), card.MustParse("2s")))
	var mu sync.Mutex
	var total caribTotals
	work := make(chan card.Rank)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range work {
				t := caribUp(card.New(r, card.Spades), dense, qual, pays)
				mu.Lock()
				total.add(t)
				mu.Unlock()
			}
		}()
	}
	for r := card.Ace; r <= card.King; r++ {
		work <- r
	}
	close(work)
	wg.Wait()
	// Each spade up card stands for its four suits.
	res := Caribbean{Deals: 4 * total.deals, Edge: map[Strategy]float64{}}
	d := float64(total.deals) * 1 // per-deal units: the sums are over deals of one up-card suit
	for i, s := range Strategies {
		res.Edge[s] = -float64(total.ev[i]) / d
	}
	res.FoldRate = float64(total.fold) / d
	res.NoQualify = float64(total.noQual) / d
	res.Win = float64(total.win) / d
	res.Push = float64(total.push) / d
	res.Lose = float64(total.lose) / d
	return res
}

type caribTotals struct {
	deals                         int64
	ev                            [5]int64 // by Strategies, in antes
	fold, noQual, win, push, lose int64    // deals under the optimal strategy
}

func (t *caribTotals) add(o caribTotals) {
	t.deals += o.deals
	for i := range t.ev {
		t.ev[i] += o.ev[i]
	}
	t.fold += o.fold
	t.noQual += o.noQual
	t.win += o.win
	t.push += o.push
	t.lose += o.lose
}

// denseTable maps a hand.Rank of five cards to its place among the 7,462 distinct hands.
type denseTable []uint16

func denseRanks() denseTable {
	seen := map[hand.Rank]bool{}
	deck := card.Deck()
	for a := 0; a < 52; a++ {
		for b := a + 1; b < 52; b++ {
			for c := b + 1; c < 52; c++ {
				for d := c + 1; d < 52; d++ {
					for e := d + 1; e < 52; e++ {
						seen[hand.EvalMask(hand.MaskOf(deck[a], deck[b], deck[c], deck[d], deck[e]))] = true
					}
				}
			}
		}
	}
	ranks := make([]hand.Rank, 0, len(seen))
	for r := range seen {
		ranks = append(ranks, r)
	}
	slices.Sort(ranks)
	t := make(denseTable, ranks[len(ranks)-1]+1)
	for i, r := range ranks {
		t[r] = uint16(i)
	}
	return t
}

func (t denseTable) of(m hand.Mask) uint16 { return t[hand.EvalMask(m)] }

const nDense = 7462

// caribUp sums, for the dealer up card u, every player hand's value under each strategy over
// every dealer completion.
func caribUp(u card.Card, dense denseTable, qual uint16, pays poker.PayTable) caribTotals {
	deck := card.Deck()
	ui := u.Index()
	bit := make([]hand.Mask, 52)
	for i, c := range deck {
		bit[i] = hand.Bit(c)
	}
	var others []int // the 51 other cards
	for i := range 52 {
		if i != ui {
			others = append(others, i)
		}
	}
	// Every dealer hand holding u: its rank, counted in the subsets of its other four cards.
	var p0 [nDense + 1]int32
	p1 := make([][nDense + 1]int32, 52)
	pairStart := make([]int32, 52*52+1)
	tripStart := make([]int32, 52*52*52+1)
	type dh struct {
		c [4]int
		r uint16
	}
	var hands []dh
	for a := 0; a < 51; a++ {
		for b := a + 1; b < 51; b++ {
			for c := b + 1; c < 51; c++ {
				for d := c + 1; d < 51; d++ {
					x := [4]int{others[a], others[b], others[c], others[d]}
					r := dense.of(bit[ui] | bit[x[0]] | bit[x[1]] | bit[x[2]] | bit[x[3]])
					hands = append(hands, dh{x, r})
					p0[r+1]++
					for _, y := range x {
						p1[y][r+1]++
					}
					for i := 0; i < 4; i++ {
						for j := i + 1; j < 4; j++ {
							pairStart[x[i]*52+x[j]+1]++
							for k := j + 1; k < 4; k++ {
								tripStart[(x[i]*52+x[j])*52+x[k]+1]++
							}
						}
					}
				}
			}
		}
	}
	for v := 1; v <= nDense; v++ { // prefix sums: p[v] = hands ranked below v
		p0[v] += p0[v-1]
		for y := range 52 {
			p1[y][v] += p1[y][v-1]
		}
	}
	for i := 1; i < len(pairStart); i++ {
		pairStart[i] += pairStart[i-1]
	}
	for i := 1; i < len(tripStart); i++ {
		tripStart[i] += tripStart[i-1]
	}
	pairs := make([]uint16, pairStart[len(pairStart)-1])
	trips := make([]uint16, tripStart[len(tripStart)-1])
	pairFill := slices.Clone(pairStart)
	tripFill := slices.Clone(tripStart)
	for _, h := range hands {
		x := h.c
		for i := 0; i < 4; i++ {
			for j := i + 1; j < 4; j++ {
				k2 := x[i]*52 + x[j]
				pairs[pairFill[k2]] = h.r
				pairFill[k2]++
				for k := j + 1; k < 4; k++ {
					k3 := k2*52 + x[k]
					trips[tripFill[k3]] = h.r
					tripFill[k3]++
				}
			}
		}
	}
	for k := 0; k+1 < len(pairStart); k++ {
		slices.Sort(pairs[pairStart[k]:pairStart[k+1]])
	}
	for k := 0; k+1 < len(tripStart); k++ {
		if tripStart[k+1] > tripStart[k] {
			slices.Sort(trips[tripStart[k]:tripStart[k+1]])
		}
	}
	below := func(list []uint16, v uint16) int64 { // how many of the sorted list are below v
		lo, hi := 0, len(list)
		for lo < hi {
			m := (lo + hi) / 2
			if list[m] < v {
				lo = m + 1
			} else {
				hi = m
			}
		}
		return int64(lo)
	}
	// counts returns, over the dealer hands holding u and none of the player's five cards, how
	// many rank below q (do not qualify), and, when full, how many rank below r and at most r:
	// inclusion–exclusion over the subsets of the player's cards.
	counts := func(p *[5]int, r uint16, full bool) (nq, lt, le int64) {
		add := func(sign int64, list []uint16) {
			i := below(list, qual)
			nq += sign * i
			if full {
				j := i + below(list[i:], r)
				k := j
				for k < int64(len(list)) && list[k] == r {
					k++
				}
				lt += sign * j
				le += sign * k
			}
		}
		nq, lt, le = int64(p0[qual]), int64(p0[r]), int64(p0[r+1])
		for i := 0; i < 5; i++ {
			s1 := &p1[p[i]]
			nq -= int64(s1[qual])
			lt -= int64(s1[r])
			le -= int64(s1[r+1])
			for j := i + 1; j < 5; j++ {
				k2 := p[i]*52 + p[j]
				add(1, pairs[pairStart[k2]:pairStart[k2+1]])
				for k := j + 1; k < 5; k++ {
					k3 := k2*52 + p[k]
					add(-1, trips[tripStart[k3]:tripStart[k3+1]])
					for l := k + 1; l < 5; l++ {
						d := dense.of(bit[ui] | bit[p[i]] | bit[p[j]] | bit[p[k]] | bit[p[l]])
						if d < qual {
							nq++
						}
						if d < r {
							lt++
						}
						if d <= r {
							le++
						}
					}
				}
			}
		}
		return nq, lt, le
	}
	const completions = 163185 // C(46, 4)
	upRank := value(u.Rank())
	var t caribTotals
	var p [5]int
	for a := 0; a < 51; a++ {
		p[0] = others[a]
		for b := a + 1; b < 51; b++ {
			p[1] = others[b]
			for c := b + 1; c < 51; c++ {
				p[2] = others[c]
				for d := c + 1; d < 51; d++ {
					p[3] = others[d]
					for e := d + 1; e < 51; e++ {
						p[4] = others[e]
						pm := bit[p[0]] | bit[p[1]] | bit[p[2]] | bit[p[3]] | bit[p[4]]
						pr := hand.EvalMask(pm)
						r := dense[pr]
						var w, tie, l int64
						nq, lt, le := counts(&p, r, r >= qual)
						if r < qual {
							l = completions - nq
						} else {
							w, tie, l = lt-nq, le-lt, completions-le
						}
						pay, ok := pays[pr.Category()]
						if !ok {
							pay = 1
						}
						raise := nq + w*(1+2*pay) - 3*l
						fold := int64(-completions)
						cat := pr.Category()
						ks := pr.Kickers()
						isPair := cat >= hand.Pair
						isAK := isPair || len(ks) > 1 && ks[0] == card.Ace && ks[1] == card.King
						choose := func(raiseIt bool) int64 {
							if raiseIt {
								return raise
							}
							return fold
						}
						t.ev[0] += max(raise, fold)
						t.ev[1] += choose(isPair || isAK && thumb(pm, ks, u, upRank))
						t.ev[2] += choose(isPair)
						t.ev[3] += choose(isAK)
						t.ev[4] += raise
						t.deals += completions
						if raise > fold {
							t.noQual += nq
							t.win += w
							t.push += tie
							t.lose += l
						} else {
							t.fold += completions
						}
					}
				}
			}
		}
	}
	return t
}

// thumb is the Wizard of Odds' rule for an ace-king hand (gamemath.md §3.1 "3 rules of thumb"):
// raise when the dealer's up card is 2 to Q and pairs one of the player's cards, or is an A or K
// and the player holds a Q or J, or when the player holds a Q and the fourth highest card outranks
// the up card. (The last rule is quoted both ways round on the web; this reading, as
// casinoanswerman.blogspot.com and gameshout.com word it, gives the published 5.225%, the other
// 5.598%.)
func thumb(pm hand.Mask, ks []card.Rank, u card.Card, upRank int) bool {
	holds := func(r card.Rank) bool {
		for s := card.Spades; s <= card.Clubs; s++ {
			if pm&hand.Bit(card.New(r, s)) != 0 {
				return true
			}
		}
		return false
	}
	switch {
	case upRank >= 2 && upRank <= 12 && holds(u.Rank()):
		return true
	case (upRank == 14 || upRank == 13) && (holds(card.Queen) || holds(card.Jack)):
		return true
	}
	return holds(card.Queen) && len(ks) >= 4 && value(ks[3]) > upRank
}

func value(r card.Rank) int {
	if r == card.Ace {
		return 14
	}
	return int(r)
}
