package pokermath

import (
	"github.com/sabot-tables/sabot/games/poker"
	"github.com/sabot-tables/sabot/games/poker/hand"
	"github.com/sabot-tables/sabot/shoe/card"
)

// ThreeCard is the exact analysis of three card poker's ante and play wager and pair plus.
type ThreeCard struct {
	Hands          int64 // player hands: 22,100
	DealerHands    int64 // dealer hands for each: 18,424
	DealerQualify  float64
	EdgeOptimal    float64 // house edge per ante, playing each hand when that is better
	EdgeQ64        float64 // … playing Q-6-4 or better (the published rule)
	PlayRate       float64 // how often the best strategy plays
	PairPlusEdge   float64
	PairPlusCounts map[hand.Category]int64
	Disagreements  int // player hands on which Q-6-4 and the best play differ
}

// AnalyseThreeCard computes ThreeCard for the given ante bonus and pair plus tables.
func AnalyseThreeCard(anteBonus, pairPlus poker.PayTable) ThreeCard {
	type h3 struct {
		mask hand.Mask
		rank hand.ThreeRank
	}
	deck := card.Deck()
	var all []h3
	for a := 0; a < 52; a++ {
		for b := a + 1; b < 52; b++ {
			for c := b + 1; c < 52; c++ {
				m := hand.MaskOf(deck[a], deck[b], deck[c])
				all = append(all, h3{m, hand.EvalThreeMask(m)})
			}
		}
	}
	q64, _ := hand.Eval3(card.MustParse("Qs"), card.MustParse("6h"), card.MustParse("4d"))
	qHigh, _ := hand.Eval3(card.MustParse("Qs"), card.MustParse("3h"), card.MustParse("2d"))
	res := ThreeCard{Hands: int64(len(all)), PairPlusCounts: map[hand.Category]int64{}}
	var sumOpt, sumQ64, plays, qualifies, ppSum int64 // in units of 1/DealerHands of an ante
	for _, p := range all {
		var nq, w, t, l int64
		for _, d := range all {
			if d.mask&p.mask != 0 {
				continue
			}
			switch {
			case d.rank < qHigh:
				nq++
			case p.rank > d.rank:
				w++
			case p.rank == d.rank:
				t++
			default:
				l++
			}
		}
		n := nq + w + t + l
		res.DealerHands = n
		qualifies += n - nq
		bonus := anteBonus[p.rank.Category()]
		// Ante and play are one unit each; the ante bonus is paid whatever the dealer holds.
		play := nq*(1+bonus) + w*(2+bonus) + t*bonus + l*(bonus-2)
		fold := -n
		best := max(play, fold)
		sumOpt += best
		if play > fold {
			plays++
		}
		q := fold
		if p.rank >= q64 {
			q = play
		}
		sumQ64 += q
		if (play > fold) != (p.rank >= q64) && play != fold {
			res.Disagreements++
		}
		c := p.rank.Category()
		res.PairPlusCounts[c]++
		if pays := pairPlus[c]; pays > 0 {
			ppSum += pays
		} else {
			ppSum--
		}
	}
	total := float64(res.Hands * res.DealerHands)
	res.EdgeOptimal = -float64(sumOpt) / total
	res.EdgeQ64 = -float64(sumQ64) / total
	res.PlayRate = float64(plays) / float64(res.Hands)
	res.DealerQualify = float64(qualifies) / total
	res.PairPlusEdge = -float64(ppSum) / float64(res.Hands)
	return res
}
