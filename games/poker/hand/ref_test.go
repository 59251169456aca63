package hand

import (
	"slices"

	"github.com/sabot-tables/sabot/shoe/card"
)

// This file holds the tests' reference evaluators: written the plain way (count the ranks, sort
// the groups, look for a flush and a straight) and sharing nothing with EvalMask but the Rank
// layout, so that the exhaustive tests compare two independent implementations.

// refFive ranks exactly five distinct cards.
func refFive(cs []card.Card) Rank {
	var count [15]int
	flush := true
	for _, c := range cs {
		count[value(c.Rank())]++
		if c.Suit() != cs[0].Suit() {
			flush = false
		}
	}
	type group struct{ n, v int }
	var groups []group
	for v := 14; v >= 2; v-- {
		if count[v] > 0 {
			groups = append(groups, group{count[v], v})
		}
	}
	slices.SortStableFunc(groups, func(a, b group) int { return b.n - a.n }) // stable: ranks stay high first
	ks := make([]int, len(groups))
	for i, g := range groups {
		ks[i] = g.v
	}
	straight := 0
	if len(groups) == 5 {
		switch {
		case ks[0]-ks[4] == 4:
			straight = ks[0]
		case ks[0] == 14 && ks[1] == 5: // A 5 4 3 2
			straight = 5
		}
	}
	switch {
	case straight > 0 && flush:
		return rank(StraightFlush, straight)
	case groups[0].n == 4:
		return rank(FourOfAKind, ks...)
	case groups[0].n == 3 && groups[1].n == 2:
		return rank(FullHouse, ks...)
	case flush:
		return rank(Flush, ks...)
	case straight > 0:
		return rank(Straight, straight)
	case groups[0].n == 3:
		return rank(ThreeOfAKind, ks...)
	case groups[0].n == 2 && groups[1].n == 2:
		return rank(TwoPair, ks...)
	case groups[0].n == 2:
		return rank(Pair, ks...)
	}
	return rank(HighCard, ks...)
}

// refBest ranks the best five of any number of cards by trying every five-card subset.
func refBest(cs []card.Card) Rank {
	var best Rank
	n := len(cs)
	for a := 0; a < n; a++ {
		for b := a + 1; b < n; b++ {
			for c := b + 1; c < n; c++ {
				for d := c + 1; d < n; d++ {
					for e := d + 1; e < n; e++ {
						best = max(best, refFive([]card.Card{cs[a], cs[b], cs[c], cs[d], cs[e]}))
					}
				}
			}
		}
	}
	return best
}

// refOmaha ranks two of the hole cards with three of the board by trying every choice.
func refOmaha(hole, board []card.Card) Rank {
	var best Rank
	for a := 0; a < len(hole); a++ {
		for b := a + 1; b < len(hole); b++ {
			for c := 0; c < len(board); c++ {
				for d := c + 1; d < len(board); d++ {
					for e := d + 1; e < len(board); e++ {
						best = max(best, refFive([]card.Card{hole[a], hole[b], board[c], board[d], board[e]}))
					}
				}
			}
		}
	}
	return best
}

// refThree ranks three cards by the three card poker order.
func refThree(cs []card.Card) ThreeRank {
	v := []int{value(cs[0].Rank()), value(cs[1].Rank()), value(cs[2].Rank())}
	slices.Sort(v)
	slices.Reverse(v) // high first
	flush := cs[0].Suit() == cs[1].Suit() && cs[1].Suit() == cs[2].Suit()
	straight := 0
	switch {
	case v[0] == v[1]+1 && v[1] == v[2]+1:
		straight = v[0]
	case v[0] == 14 && v[1] == 3 && v[2] == 2:
		straight = 3
	}
	switch {
	case straight > 0 && flush:
		return threeRank(StraightFlush, straight)
	case v[0] == v[2]:
		return threeRank(ThreeOfAKind, v[0])
	case straight > 0:
		return threeRank(Straight, straight)
	case flush:
		return threeRank(Flush, v...)
	case v[0] == v[1]:
		return threeRank(Pair, v[0], v[2])
	case v[1] == v[2]:
		return threeRank(Pair, v[1], v[0])
	}
	return threeRank(HighCard, v...)
}

// joinCards writes cards as "As Kd …".
func joinCards(cs []card.Card) string {
	s := ""
	for i, c := range cs {
		if i > 0 {
			s += " "
		}
		s += c.String()
	}
	return s
}
