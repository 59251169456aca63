package poker

import (
	"encoding/json"
	"testing"

	"github.com/sabot-tables/sabot/games/poker/hand"
	"github.com/sabot-tables/sabot/shoe/card"
)

func TestUncalled(t *testing.T) {
	tests := []struct {
		cs     []Contribution
		seat   int
		amount int64
	}{
		{[]Contribution{{1, 300, false}, {2, 100, true}, {3, 100, true}}, 1, 200},
		{[]Contribution{{1, 300, false}, {2, 300, false}}, 0, 0},
		{[]Contribution{{1, 200, false}, {2, 500, false}, {3, 2000, false}}, 3, 1500},
		{[]Contribution{{1, 0, false}, {2, 0, false}}, 0, 0},
		{[]Contribution{{1, 10, true}, {2, 0, false}}, 0, 0}, // a folded seat's ante is dead money
	}
	for _, tt := range tests {
		seat, amount := Uncalled(tt.cs)
		if seat != tt.seat || amount != tt.amount {
			t.Errorf("Uncalled(%v) = %d, %d; want %d, %d", tt.cs, seat, amount, tt.seat, tt.amount)
		}
	}
}

func TestBuildPots(t *testing.T) {
	tests := []struct {
		name string
		cs   []Contribution
		want string
	}{
		{"one pot", []Contribution{{1, 100, false}, {2, 100, false}, {3, 50, true}},
			`[{"amount":250,"eligible":[1,2],"level":100}]`},
		{"two all-ins", []Contribution{{1, 200, false}, {2, 500, false}, {3, 500, false}},
			`[{"amount":600,"eligible":[1,2,3],"level":200},{"amount":600,"eligible":[2,3],"level":500}]`},
		{"folded above an all-in", []Contribution{{1, 100, false}, {2, 400, true}, {3, 400, false}},
			`[{"amount":300,"eligible":[1,3],"level":100},{"amount":600,"eligible":[3],"level":400}]`},
		{"three levels", []Contribution{{4, 50, false}, {2, 150, false}, {7, 300, false}, {1, 300, false}, {3, 20, true}},
			`[{"amount":220,"eligible":[1,2,4,7],"level":50},{"amount":300,"eligible":[1,2,7],"level":150},{"amount":300,"eligible":[1,7],"level":300}]`},
		{"only dead money", []Contribution{{1, 10, true}, {2, 0, false}, {3, 10, true}, {4, 0, false}},
			`[{"amount":20,"eligible":[2,4],"level":0}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pots := BuildPots(tt.cs)
			type short struct {
				Amount   int64 `json:"amount"`
				Eligible []int `json:"eligible"`
				Level    int64 `json:"level"`
			}
			var got []short
			for _, p := range pots {
				got = append(got, short{p.Amount, p.Eligible, p.Level})
			}
			b, _ := json.Marshal(got)
			if string(b) != tt.want {
				t.Errorf("got %s, want %s", b, tt.want)
			}
		})
	}
}

func TestRake(t *testing.T) {
	pots := []Pot{{Amount: 1450}, {Amount: 999}, {Amount: 10001}}
	if total := Rake(pots, 500, 0); total != 72+49+500 || pots[0].Rake != 72 || pots[1].Rake != 49 || pots[2].Rake != 500 {
		t.Errorf("5%%: total %d, pots %+v", total, pots)
	}
	if total := Rake(pots, 500, 100); total != 100 || pots[0].Rake != 72 || pots[1].Rake != 28 || pots[2].Rake != 0 {
		t.Errorf("5%% capped at 100: total %d, pots %+v", total, pots)
	}
	big := []Pot{{Amount: 1 << 62}}
	if total := Rake(big, 10000, 0); total != 1<<62 {
		t.Errorf("100%% of 2^62: %d", total)
	}
}

func TestAwardSplitsAndOddCents(t *testing.T) {
	r := func(s string) hand.Rank {
		cs, _ := card.ParseList(s)
		x, err := hand.Eval(cs...)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	straight := r("As Kh Qd Jc Ts")
	ranks := map[int]hand.Rank{2: straight, 5: straight, 7: straight, 3: r("2c 2d 7h 9s Jd")}
	// The button is seat 4: order of play 5, 7, 2, 3.
	order := []int{5, 7, 2, 3}
	pots := []Pot{{Amount: 1003, Rake: 1, Eligible: []int{2, 3, 5, 7}}, {Amount: 50, Eligible: []int{3}}}
	Award(pots, ranks, order)
	// 1002 over three: 334 each, no odd cent.
	b, _ := json.Marshal(pots[0].Shares)
	if string(b) != `[{"seat":2,"amount":334},{"seat":5,"amount":334},{"seat":7,"amount":334}]` {
		t.Errorf("main pot shares %s", b)
	}
	pots[0].Amount, pots[0].Rake = 1004, 0
	Award(pots, ranks, order)
	// 1004 over three: 334 each and two odd cents, to seats 5 and 7 (the first left of seat 4).
	b, _ = json.Marshal(pots[0].Shares)
	if string(b) != `[{"seat":2,"amount":334},{"seat":5,"amount":335},{"seat":7,"amount":335}]` {
		t.Errorf("odd cents: shares %s", b)
	}
	if len(pots[1].Winners) != 1 || pots[1].Winners[0] != 3 || pots[1].Shares[0].Amount != 50 {
		t.Errorf("side pot %+v", pots[1])
	}
}
