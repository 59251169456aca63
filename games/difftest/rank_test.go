package difftest

import (
	"slices"
	"testing"
)

// The reference's own poker hand ranking (RULES.md §5: "standard high poker; ties are broken card
// by card", seed 002 "se desempata con la carta mayor sucesiva"). It is written for clarity, not
// speed: a 5-card hand is sorted and classified directly.

// Five-card categories, weakest first. A royal flush is the ace-high straight flush, apart
// because the pay tables pay it apart (RULES.md §5, §7).
const (
	highCard = 1 + iota
	onePair
	twoPair
	trips
	straight
	flush
	fullHouse
	quads
	straightFlush
	royalFlush
)

var catNames = map[int]string{highCard: "high card", onePair: "pair", twoPair: "two pair", trips: "three of a kind",
	straight: "straight", flush: "flush", fullHouse: "full house", quads: "four of a kind",
	straightFlush: "straight flush", royalFlush: "royal flush"}

// high is a card's poker rank, the ace high: 2 … 14.
func high(c crd) int {
	if c.rank == 1 {
		return 14
	}
	return c.rank
}

// grouped returns the hand's ranks ordered by how often they appear, then by rank, highest
// first: a full house of kings over fours is 13 13 13 4 4, two pair 9 9 5 5 14.
func grouped(cs []crd) []int {
	var n [15]int
	rs := make([]int, 0, len(cs))
	for _, c := range cs {
		n[high(c)]++
		rs = append(rs, high(c))
	}
	slices.SortFunc(rs, func(a, b int) int {
		if n[a] != n[b] {
			return n[b] - n[a]
		}
		return b - a
	})
	return rs
}

// score packs a category and up to five tie-breaking ranks into one comparable number.
func score(cat int, rs ...int) int64 {
	s := int64(cat)
	for i := range 5 {
		s <<= 4
		if i < len(rs) {
			s |= int64(rs[i])
		}
	}
	return s
}

func catOf(s int64) int { return int(s >> 20) }

// eval5 ranks five cards: the higher score wins, equal scores tie exactly.
func eval5(cs []crd) int64 {
	if len(cs) != 5 {
		panic("difftest: eval5 needs five cards")
	}
	rs := grouped(cs)
	isFlush := true
	for _, c := range cs[1:] {
		isFlush = isFlush && c.suit == cs[0].suit
	}
	distinct := rs[0] != rs[1] && rs[1] != rs[2] && rs[2] != rs[3] && rs[3] != rs[4]
	top := 0 // the straight's highest card
	switch {
	case distinct && rs[0]-rs[4] == 4:
		top = rs[0]
	case distinct && rs[0] == 14 && rs[1] == 5: // A-2-3-4-5, the lowest straight
		top = 5
	}
	switch {
	case top == 14 && isFlush:
		return score(royalFlush, 14)
	case top > 0 && isFlush:
		return score(straightFlush, top)
	case rs[0] == rs[3]:
		return score(quads, rs...)
	case rs[0] == rs[2] && rs[3] == rs[4]:
		return score(fullHouse, rs...)
	case isFlush:
		return score(flush, rs...)
	case top > 0:
		return score(straight, top)
	case rs[0] == rs[2]:
		return score(trips, rs...)
	case rs[0] == rs[1] && rs[2] == rs[3]:
		return score(twoPair, rs...)
	case rs[0] == rs[1]:
		return score(onePair, rs...)
	}
	return score(highCard, rs...)
}

// best ranks the best five of cs (5 to 7 cards).
func best(cs []crd) int64 {
	var top int64
	pick := make([]crd, 0, 5)
	var walk func(from int)
	walk = func(from int) {
		if len(pick) == 5 {
			top = max(top, eval5(pick))
			return
		}
		for i := from; i <= len(cs)-(5-len(pick)); i++ {
			pick = append(pick, cs[i])
			walk(i + 1)
			pick = pick[:len(pick)-1]
		}
	}
	walk(0)
	return top
}

// bestOmaha ranks the best hand of exactly two hole cards and three community cards (RULES.md
// §6 omaha-2-3; seed 000 "escogiendo 2 de sus cartas individuales y 3 de las cartas
// comunitarias").
func bestOmaha(hole, board []crd) int64 {
	var top int64
	for i := range hole {
		for j := i + 1; j < len(hole); j++ {
			for a := range board {
				for b := a + 1; b < len(board); b++ {
					for c := b + 1; c < len(board); c++ {
						top = max(top, eval5([]crd{hole[i], hole[j], board[a], board[b], board[c]}))
					}
				}
			}
		}
	}
	return top
}

// Three-card categories (RULES.md §5 three-card-poker: straight flush, trips, straight, flush,
// pair, high card).
const (
	t3High = 1 + iota
	t3Pair
	t3Flush
	t3Straight
	t3Trips
	t3StraightFlush
)

// eval3 ranks three cards; A-2-3 is the lowest straight (RULES.md §5), Q-K-A the highest.
func eval3(cs []crd) int64 {
	rs := grouped(cs)
	isFlush := cs[0].suit == cs[1].suit && cs[1].suit == cs[2].suit
	distinct := rs[0] != rs[1] && rs[1] != rs[2]
	top := 0
	switch {
	case distinct && rs[0]-rs[2] == 2:
		top = rs[0]
	case distinct && rs[0] == 14 && rs[1] == 3 && rs[2] == 2:
		top = 3
	}
	switch {
	case top > 0 && isFlush:
		return score(t3StraightFlush, top)
	case rs[0] == rs[2]:
		return score(t3Trips, rs...)
	case top > 0:
		return score(t3Straight, top)
	case isFlush:
		return score(t3Flush, rs...)
	case rs[0] == rs[1]:
		return score(t3Pair, rs...)
	}
	return score(t3High, rs...)
}

// ranksOf returns a scored hand's tie-breaking ranks, highest group first.
func ranksOf(s int64) []int {
	rs := make([]int, 5)
	for i := 4; i >= 0; i-- {
		rs[i] = int(s & 15)
		s >>= 4
	}
	return rs
}

// TestRankCounts checks the reference's ranking against the published counts of every five-card
// and every three-card hand of one deck (the figures every poker probability table gives).
func TestRankCounts(t *testing.T) {
	d := deck(1)
	cs := make([]crd, len(d))
	for i, s := range d {
		cs[i] = parse(s)
	}
	want3 := map[int]int{t3StraightFlush: 48, t3Trips: 52, t3Straight: 720, t3Flush: 1096, t3Pair: 3744, t3High: 16440}
	got3 := map[int]int{}
	for i := range cs {
		for j := i + 1; j < len(cs); j++ {
			for k := j + 1; k < len(cs); k++ {
				got3[catOf(eval3([]crd{cs[i], cs[j], cs[k]}))]++
			}
		}
	}
	if !maps(got3, want3) {
		t.Errorf("three-card hands by category: %v, want %v", got3, want3)
	}
	if testing.Short() {
		return
	}
	want5 := map[int]int{royalFlush: 4, straightFlush: 36, quads: 624, fullHouse: 3744, flush: 5108,
		straight: 10200, trips: 54912, twoPair: 123552, onePair: 1098240, highCard: 1302540}
	got5 := map[int]int{}
	h := make([]crd, 5)
	for a := 0; a < 52; a++ {
		h[0] = cs[a]
		for b := a + 1; b < 52; b++ {
			h[1] = cs[b]
			for c := b + 1; c < 52; c++ {
				h[2] = cs[c]
				for e := c + 1; e < 52; e++ {
					h[3] = cs[e]
					for f := e + 1; f < 52; f++ {
						h[4] = cs[f]
						got5[catOf(eval5(h))]++
					}
				}
			}
		}
	}
	if !maps(got5, want5) {
		t.Errorf("five-card hands by category: %v, want %v", got5, want5)
	}
}

// TestRankOrder checks hands whose order the categories do not decide.
func TestRankOrder(t *testing.T) {
	h := func(s ...string) []crd {
		out := make([]crd, len(s))
		for i, x := range s {
			out[i] = parse(x)
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		better, not []crd
	}{
		{"wheel below six-high straight", h("6s", "5d", "4c", "3h", "2s"), h("As", "2d", "3c", "4h", "5s")},
		{"kicker decides", h("Ks", "Kd", "9c", "7h", "3s"), h("Kc", "Kh", "9d", "7s", "2s")},
		{"two pair by the lower pair", h("Js", "Jd", "9c", "9h", "2s"), h("Jc", "Jh", "8d", "8s", "Ks")},
		{"full house by the trips", h("3s", "3d", "3c", "2h", "2s"), h("2c", "2d", "2h", "As", "Ad")},
		{"flush by its second card", h("As", "Qs", "7s", "5s", "3s"), h("Ad", "Jd", "9d", "8d", "7d")},
	} {
		if eval5(tc.better) <= eval5(tc.not) {
			t.Errorf("%s: %v should beat %v", tc.name, tc.better, tc.not)
		}
	}
	if eval3(h("As", "2d", "3c")) >= eval3(h("2s", "3d", "4c")) || eval3(h("Qs", "Kd", "Ac")) <= eval3(h("Js", "Qd", "Kc")) {
		t.Errorf("three-card straights out of order")
	}
	if got := bestOmaha(h("As", "Ad", "Ac", "Ah"), h("Ks", "Kd", "2c", "7h", "9s")); catOf(got) != twoPair {
		t.Errorf("omaha with four aces and two kings on the board: category %d, want two pair (two hole cards only)", catOf(got))
	}
}

func maps(a, b map[int]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
