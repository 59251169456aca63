package hand

import (
	"math/rand/v2"
	"testing"

	"github.com/sabot-tables/sabot/shoe/card"
)

// TestEveryThreeCardHand ranks all 22,100 three-card hands against the reference and checks the
// published counts (gamemath.md §3.2): straight flush 48, trips 52, straight 720, flush 1,096,
// pair 3,744, high card 16,440.
func TestEveryThreeCardHand(t *testing.T) {
	want := map[Category]int{StraightFlush: 48, ThreeOfAKind: 52, Straight: 720, Flush: 1096, Pair: 3744, HighCard: 16440}
	got := map[Category]int{}
	deck := card.Deck()
	for a := 0; a < 52; a++ {
		for b := a + 1; b < 52; b++ {
			for c := b + 1; c < 52; c++ {
				h := []card.Card{deck[a], deck[b], deck[c]}
				r, err := Eval3(h...)
				if err != nil {
					t.Fatal(err)
				}
				if ref := refThree(h); r != ref {
					t.Fatalf("%v: got %v, want %v", h, r, ref)
				}
				got[r.Category()]++
			}
		}
	}
	for c, n := range want {
		if got[c] != n {
			t.Errorf("%v: %d hands, want %d", c, got[c], n)
		}
	}
}

func TestThreeCardOrder(t *testing.T) {
	// Each hand beats the next (RULES.md §5: straight flush, trips, straight, flush, pair, high
	// card; A-2-3 the lowest straight).
	order := []struct{ cards, desc string }{
		{"Qh Kh Ah", "straight flush A high"},
		{"2h 3h Ah", "straight flush 3 high"},
		{"2s 2h 2d", "three of a kind 2 2 2"},
		{"Qh Kd As", "straight A high"},
		{"4h 3d 2s", "straight 4 high"},
		{"Ah 2d 3s", "straight 3 high"},
		{"2c 4c 6c", "flush 6 4 2"},
		{"As Ad 2c", "pair A A 2"},
		{"Ks Kd Ac", "pair K K A"},
		{"Ks Kd Qc", "pair K K Q"},
		{"As Kd Jc", "high card A K J"},
		{"Qs 6d 4c", "high card Q 6 4"},
		{"Qs 6d 3c", "high card Q 6 3"},
		{"Js 9d 8c", "high card J 9 8"},
	}
	var prev ThreeRank
	for i, o := range order {
		r, err := Eval3(cards(t, o.cards)...)
		if err != nil {
			t.Fatal(err)
		}
		if r.String() != o.desc {
			t.Errorf("%s: got %q, want %q", o.cards, r, o.desc)
		}
		if i > 0 && r >= prev {
			t.Errorf("%s (%v) should be below %s", o.cards, r, order[i-1].cards)
		}
		prev = r
	}
	if _, err := Eval3(cards(t, "As Ks")...); err == nil || err.Error() != "hand: bad cards: 2 cards, want 3" {
		t.Errorf("two cards: got %v", err)
	}
}

func TestOmaha(t *testing.T) {
	tests := []struct {
		hole, board, desc, best string
	}{
		// Four hearts on the board and one in the hand is no flush: two hole cards must play.
		{"Ah Kc 7d 2s", "Qh Jh 9h 3h 4c", "high card A K Q J 9", "Ah Kc Qh Jh 9h"},
		{"Ah Kh 7d 2s", "Qh Jh 9h 3c 4c", "flush A K Q J 9", "Ah Kh Qh Jh 9h"},
		// Four of a kind on the board plays only as trips plus a pair from the hand.
		{"As Ad 7d 2s", "Kh Kd Ks Kc 4c", "full house K K K A A", "Ks Kh Kd As Ad"},
		// One ace in the hand cannot make a wheel with A 2 3 4 5 needing two board cards only.
		{"Ah 5s 9d 9c", "2c 3d 4h Kd Qc", "straight 5 high", "5s 4h 3d 2c Ah"},
		{"Ts 9s 8d 7c", "Js Qs Ks 2h 2d", "straight flush K high", "Ks Qs Js Ts 9s"},
		{"Ts 9d 8d 7c", "Js Qs Ks 2h 2d", "straight K high", "Ks Qs Js Ts 9d"},
	}
	for _, tt := range tests {
		best, r, err := BestOmaha(cards(t, tt.hole), cards(t, tt.board))
		if err != nil {
			t.Fatal(err)
		}
		if r.String() != tt.desc || joinCards(best) != tt.best {
			t.Errorf("%s | %s: got %q %q, want %q %q", tt.hole, tt.board, r, joinCards(best), tt.desc, tt.best)
		}
	}
	rng := rand.New(rand.NewPCG(23, 5))
	for range 20000 {
		cs := deal(rng, 9)
		r, err := EvalOmaha(cs[:4], cs[4:])
		if err != nil {
			t.Fatal(err)
		}
		if want := refOmaha(cs[:4], cs[4:]); r != want {
			t.Fatalf("%v | %v: got %v, want %v", cs[:4], cs[4:], r, want)
		}
	}
	for _, bad := range []struct{ hole, board, want string }{
		{"Ah Kh 7d 2s 3s", "Qh Jh 9h", "hole cards: hand: bad cards: 5 cards, want 2 to 4"},
		{"Ah Kh", "Qh Jh", "community cards: hand: bad cards: 2 cards, want 3 to 5"},
		{"Ah Kh", "Qh Jh Ah", "hand: bad cards: Ah is both a hole card and a community card"},
	} {
		if _, err := EvalOmaha(cards(t, bad.hole), cards(t, bad.board)); err == nil || err.Error() != bad.want {
			t.Errorf("%s | %s: got %v, want %q", bad.hole, bad.board, err, bad.want)
		}
	}
}
