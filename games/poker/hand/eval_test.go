package hand

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

func cards(t testing.TB, s string) []card.Card {
	t.Helper()
	cs, err := card.ParseList(s)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// The published five-card counts (research/gamemath.md §4.1, Wikipedia "Poker probability"):
// 40 straight flushes of which 4 royal, 624, 3,744, 5,108, 10,200, 54,912, 123,552, 1,098,240,
// 1,302,540.
var fiveCardCounts = map[Category]int{
	RoyalFlush: 4, StraightFlush: 36, FourOfAKind: 624, FullHouse: 3744, Flush: 5108, Straight: 10200,
	ThreeOfAKind: 54912, TwoPair: 123552, Pair: 1098240, HighCard: 1302540,
}

// The published best-five-of-seven counts over the 133,784,560 seven-card hands (gamemath.md
// §4.2; Wikipedia, "7-card poker hands").
var sevenCardCounts = map[Category]int{
	RoyalFlush: 4324, StraightFlush: 37260, FourOfAKind: 224848, FullHouse: 3473184, Flush: 4047644,
	Straight: 6180020, ThreeOfAKind: 6461620, TwoPair: 31433400, Pair: 58627800, HighCard: 23294460,
}

// TestEveryFiveCardHand ranks all 2,598,960 five-card hands, compares each Rank with the
// reference evaluator, and checks the published category counts and the 7,462 distinct hands.
func TestEveryFiveCardHand(t *testing.T) {
	deck := card.Deck()
	got := map[Category]int{}
	distinct := map[Rank]bool{}
	n := 0
	for a := 0; a < 52; a++ {
		for b := a + 1; b < 52; b++ {
			for c := b + 1; c < 52; c++ {
				for d := c + 1; d < 52; d++ {
					for e := d + 1; e < 52; e++ {
						h := [5]card.Card{deck[a], deck[b], deck[c], deck[d], deck[e]}
						r := Eval5(&h)
						if want := refFive(h[:]); r != want {
							t.Fatalf("%v: got %v (%#x), want %v (%#x)", h, r, uint32(r), want, uint32(want))
						}
						got[r.Category()]++
						distinct[r] = true
						n++
					}
				}
			}
		}
	}
	if n != 2598960 {
		t.Fatalf("enumerated %d hands, want 2,598,960", n)
	}
	for c, want := range fiveCardCounts {
		if got[c] != want {
			t.Errorf("%v: %d hands, want %d", c, got[c], want)
		}
	}
	if len(distinct) != 7462 {
		t.Errorf("%d distinct ranks, want 7,462", len(distinct))
	}
}

// TestEverySevenCardHand enumerates all 133,784,560 seven-card hands and checks the published
// distribution of the best five. It takes about a second on one core of the build machine (0.85 s
// measured), so it runs by default; -short skips it. BenchmarkEverySevenCardHand times it.
func TestEverySevenCardHand(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the 133,784,560-hand enumeration")
	}
	start := time.Now()
	counts, n := everySeven()
	t.Logf("%d seven-card hands in %v", n, time.Since(start))
	if n != 133784560 {
		t.Fatalf("enumerated %d hands, want 133,784,560", n)
	}
	for c, want := range sevenCardCounts {
		if counts[c] != want {
			t.Errorf("%v: %d hands, want %d", c, counts[c], want)
		}
	}
}

// everySeven counts the categories of every seven-card hand, building the masks incrementally.
func everySeven() (counts [RoyalFlush + 1]int, n int) {
	var bit [52]Mask
	for i, c := range card.Deck() {
		bit[i] = cardBit[c]
	}
	for a := 0; a < 52; a++ {
		ma := bit[a]
		for b := a + 1; b < 52; b++ {
			mb := ma | bit[b]
			for c := b + 1; c < 52; c++ {
				mc := mb | bit[c]
				for d := c + 1; d < 52; d++ {
					md := mc | bit[d]
					for e := d + 1; e < 52; e++ {
						me := md | bit[e]
						for f := e + 1; f < 52; f++ {
							mf := me | bit[f]
							for g := f + 1; g < 52; g++ {
								counts[EvalMask(mf|bit[g]).Category()]++
							}
						}
					}
				}
			}
		}
	}
	for _, k := range counts {
		n += k
	}
	return counts, n
}

// deal returns n distinct random cards.
func deal(rng *rand.Rand, n int) []card.Card {
	d := card.Deck()
	rng.Shuffle(len(d), func(i, j int) { d[i], d[j] = d[j], d[i] })
	return d[:n]
}

// TestRandomHandsAgainstBestOfSubsets compares six- and seven-card Ranks with the best of every
// five-card subset by the reference evaluator.
func TestRandomHandsAgainstBestOfSubsets(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 1))
	for i := range 200000 {
		n := 6 + i%2
		cs := deal(rng, n)
		got, err := Eval(cs...)
		if err != nil {
			t.Fatal(err)
		}
		if want := refBest(cs); got != want || evalBits(MaskOf(cs...)) != want {
			t.Fatalf("%v: got %v (bits %v), want %v", cs, got, evalBits(MaskOf(cs...)), want)
		}
	}
}

func TestEvalExamples(t *testing.T) {
	tests := []struct {
		cards string
		cat   Category
		desc  string
		best  string
	}{
		{"As Ks Qs Js Ts", RoyalFlush, "royal flush A high", "As Ks Qs Js Ts"},
		{"5h 4h 3h 2h Ah 9c 9d", StraightFlush, "straight flush 5 high", "5h 4h 3h 2h Ah"},
		{"9s 9h 9d 9c 2s Kd Kh", FourOfAKind, "four of a kind 9 9 9 9 K", "9s 9h 9d 9c Kd"},
		{"Ks Kh Kd 7c 7s 7h 2d", FullHouse, "full house K K K 7 7", "Ks Kh Kd 7s 7c"},
		{"Qs Qh Qd 7c 7s 3h 3d", FullHouse, "full house Q Q Q 7 7", "Qs Qh Qd 7s 7c"},
		{"2c 7c 9c Jc Kc Ac 3d", Flush, "flush A K J 9 7", "Ac Kc Jc 9c 7c"},
		{"Ah 2d 3c 4s 5h Kd Kc", Straight, "straight 5 high", "5h 4s 3c 2d Ah"},
		{"Ts Jh Qd Kc Ah 9s 8s", Straight, "straight A high", "Ah Kc Qd Jh Ts"},
		{"8s 8h 8d Ac Kd 2h 3s", ThreeOfAKind, "three of a kind 8 8 8 A K", "8s 8h 8d Ac Kd"},
		{"Js Jh 4d 4c 2s 2h Ad", TwoPair, "two pair J J 4 4 A", "Js Jh 4d 4c Ad"},
		{"Js Jh 4d 4c 2s 2h 3d", TwoPair, "two pair J J 4 4 3", "Js Jh 4d 4c 3d"},
		{"8s 8h Ad Jc 4s 3h 2d", Pair, "pair 8 8 A J 4", "8s 8h Ad Jc 4s"},
		{"As Kd Qh 9c 7s 3h 2d", HighCard, "high card A K Q 9 7", "As Kd Qh 9c 7s"},
		{"Ks Qd 9h 5c 3s", HighCard, "high card K Q 9 5 3", "Ks Qd 9h 5c 3s"},
		{"Ks Qs 9s 5s 3s 4s", Flush, "flush K Q 9 5 4", "Ks Qs 9s 5s 4s"},
	}
	for _, tt := range tests {
		t.Run(tt.cards, func(t *testing.T) {
			cs := cards(t, tt.cards)
			best, r, err := Best(cs)
			if err != nil {
				t.Fatal(err)
			}
			if r.Category() != tt.cat || r.String() != tt.desc {
				t.Errorf("got %v %q, want %v %q", r.Category(), r, tt.cat, tt.desc)
			}
			if got := joinCards(best); got != tt.best {
				t.Errorf("best five %q, want %q", got, tt.best)
			}
		})
	}
}

// TestTiesCardByCard checks RULES.md §5's tie-break ("se desempata con la carta mayor sucesiva")
// and exact ties.
func TestTiesCardByCard(t *testing.T) {
	tests := []struct {
		a, b string
		want int // sign of Rank(a) - Rank(b)
	}{
		{"As Kd Qh 7c 3s", "Ad Kc Qs 7h 2d", 1},  // decided by the fifth card
		{"As Kd Qh 7c 3s", "Ah Kh Qd 7s 3d", 0},  // suits never break a tie
		{"8s 8h Ad Jc 4s", "8d 8c Ah Jd 5s", -1}, // same pair, third kicker
		{"Js Jh 4d 4c Ad", "Jd Jc 4s 4h Kd", 1},  // same two pairs, kicker
		{"Js Jh 4d 4c 2d", "Td Tc 9s 9h Ad", 1},  // higher top pair wins
		{"5h 4d 3c 2s Ah", "6h 5d 4c 3s 2h", -1}, // the wheel is the lowest straight
		{"Kc Kd Ks 2h 2d", "Qc Qd Qs Ah Ad", 1},  // full house by the trips first
		{"Ac Kc Jc 9c 7c", "Ad Kd Jd 9d 6d", 1},  // flush card by card
		{"2c 3c 4c 5c 7c", "Ah Kd Qc Js Ts", 1},  // any flush beats any straight
	}
	for _, tt := range tests {
		ra, err := Eval(cards(t, tt.a)...)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := Eval(cards(t, tt.b)...)
		if err != nil {
			t.Fatal(err)
		}
		got := 0
		if ra > rb {
			got = 1
		} else if ra < rb {
			got = -1
		}
		if got != tt.want {
			t.Errorf("%s (%v) vs %s (%v): got %d, want %d", tt.a, ra, tt.b, rb, got, tt.want)
		}
	}
}

func TestEvalRefusesBadCards(t *testing.T) {
	tests := []struct {
		name  string
		cards []card.Card
		want  string
	}{
		{"four cards", cards(t, "As Ks Qs Js"), "hand: bad cards: 4 cards, want 5 to 7"},
		{"eight cards", cards(t, "As Ks Qs Js Ts 9s 8s 7s"), "hand: bad cards: 8 cards, want 5 to 7"},
		{"duplicate", cards(t, "As Ks Qs Js As"), "hand: bad cards: As appears twice"},
		{"no card", []card.Card{card.MustParse("As"), card.None, 3, 4, 5}, "hand: bad cards: card 2 is not a card"},
		{"corrupt byte", []card.Card{1, 2, 3, 4, 200}, "hand: bad cards: card 5 is not a card"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Eval(tt.cards...)
			if err == nil || err.Error() != tt.want || !errors.Is(err, ErrCards) {
				t.Fatalf("got %v, want %q", err, tt.want)
			}
		})
	}
}

func TestPartial(t *testing.T) {
	tests := []struct {
		cards string
		desc  string
	}{
		{"Ks", "high card K"},
		{"Ks 3d", "high card K 3"},
		{"3s 3d", "pair 3 3"},
		{"3s 3d As", "pair 3 3 A"},
		{"Qs Qd Qh 2c", "three of a kind Q Q Q 2"},
		{"Qs Qd 2h 2c", "two pair Q Q 2 2"},
		{"7s 7d 7h 7c", "four of a kind 7 7 7 7"},
		{"As Ks Qs Js", "high card A K Q J"}, // no straights or flushes before five cards
	}
	for _, tt := range tests {
		r, err := Partial(cards(t, tt.cards)...)
		if err != nil {
			t.Fatal(err)
		}
		if r.String() != tt.desc {
			t.Errorf("%s: got %q, want %q", tt.cards, r, tt.desc)
		}
	}
	if a, b := mustPartial(t, "As Kd"), mustPartial(t, "2s 2d"); a >= b {
		t.Errorf("a pair showing must beat ace-king showing: %v vs %v", a, b)
	}
	if _, err := Partial(cards(t, "As Ks Qs Js Ts")...); err == nil {
		t.Error("Partial accepted five cards")
	}
}

func mustPartial(t *testing.T, s string) Rank {
	r, err := Partial(cards(t, s)...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCategoryNames(t *testing.T) {
	for _, c := range Categories {
		got, err := ParseCategory(c.String())
		if err != nil || got != c {
			t.Errorf("ParseCategory(%q) = %v, %v", c.String(), got, err)
		}
	}
	if c, err := ParseCategory("Four-Of-A-Kind"); err != nil || c != FourOfAKind {
		t.Errorf("ParseCategory(Four-Of-A-Kind) = %v, %v", c, err)
	}
	if _, err := ParseCategory("five of a kind"); err == nil {
		t.Error("ParseCategory accepted five of a kind")
	}
}

// TestTablesBuildQuickly times the perfect-hash tables' construction (done once, on first use).
func TestTablesBuildQuickly(t *testing.T) {
	start := time.Now()
	for n := 5; n <= 7; n++ {
		if buildHash(n, hashConstants[0][0], hashConstants[0][1]) == nil {
			t.Fatalf("%d cards: the first constants failed", n)
		}
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("building the tables took %v", d)
	} else {
		t.Logf("tables built in %v", d)
	}
}
