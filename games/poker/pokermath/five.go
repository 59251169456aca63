package pokermath

import (
	"github.com/sabot-tables/sabot/games/poker"
	"github.com/sabot-tables/sabot/games/poker/hand"
	"github.com/sabot-tables/sabot/shoe/card"
)

// GoPoker is the exact analysis of Go poker's one bet: the five-card hand (three hole cards and
// two community cards, a random five-card hand) paid by the table.
type GoPoker struct {
	Hands  int64                   // 2,598,960
	Counts map[hand.Category]int64 // hands of each category (pairs: only those the table pays)
	Losing int64                   // hands the table does not pay
	Edge   float64                 // house edge per ante
}

// AnalyseGoPoker computes GoPoker for a pay table and its lowest paying pair (2…14).
func AnalyseGoPoker(pays poker.PayTable, minPair int) GoPoker {
	res := GoPoker{Counts: map[hand.Category]int64{}}
	var ev int64
	everyFive(func(r hand.Rank) {
		res.Hands++
		c := r.Category()
		p, ok := pays[c]
		if c == hand.Pair && value(r.Kickers()[0]) < minPair || !ok || p == 0 {
			res.Losing++
			ev--
			return
		}
		res.Counts[c]++
		ev += p
	})
	res.Edge = -float64(ev) / float64(res.Hands)
	return res
}

// DrawDealer is what can be computed of draw poker without analysing the player's draws: how
// often the dealer's five cards open (a pair of eights or better, seed 000).
type DrawDealer struct {
	Hands, Opens int64
}

// AnalyseDrawDealer counts the dealer hands that open.
func AnalyseDrawDealer() DrawDealer {
	var d DrawDealer
	everyFive(func(r hand.Rank) {
		d.Hands++
		if c := r.Category(); c > hand.Pair || c == hand.Pair && value(r.Kickers()[0]) >= 8 {
			d.Opens++
		}
	})
	return d
}

func everyFive(f func(hand.Rank)) {
	deck := card.Deck()
	var bit [52]hand.Mask
	for i, c := range deck {
		bit[i] = hand.Bit(c)
	}
	for a := 0; a < 52; a++ {
		for b := a + 1; b < 52; b++ {
			for c := b + 1; c < 52; c++ {
				for d := c + 1; d < 52; d++ {
					m := bit[a] | bit[b] | bit[c] | bit[d]
					for e := d + 1; e < 52; e++ {
						f(hand.EvalMask(m | bit[e]))
					}
				}
			}
		}
	}
}
