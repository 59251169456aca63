package blackjack_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/rounds")

// roundCase is one `sabot games round` input (RULES.md §8) with what it must settle to. want lists
// every settlement as seat/spot/hand=net, worked out by hand from RULES.md §4; the golden file
// holds the whole outcome. wantErr is a part of the one-line error a bad input must give.
type roundCase struct {
	name    string
	in      string
	want    string
	used    int
	wantErr string
}

var roundCases = []roundCase{
	// ---- classic (seed 001): hole card, peek, S17, split by value once, DAS, late surrender,
	// insurance, even money, a dealer blackjack takes the original bet only.
	{name: "classic-stand-dealer-busts",
		in:   `{"game":"blackjack","rules":"classic","cards":["Td","9s","8h","7c","Kd"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["S"]}}`,
		want: "1/main/0=+100", used: 5},
	{name: "classic-default-preset",
		in:   `{"game":"blackjack","cards":["Td","9s","8h","7c","Kd"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["S"]}}`,
		want: "1/main/0=+100", used: 5},
	// 3:2 on an odd stake rounds down to the cent: 25 pays floor(37.5) = 37.
	{name: "classic-blackjack-odd-stake",
		in:   `{"game":"blackjack","rules":"classic","cards":["As","9s","Kh","7c"],"bets":[{"seat":1,"spot":"main","amount":25}]}`,
		want: "1/main/0=+37", used: 4},
	{name: "classic-insurance-dealer-blackjack",
		in:   `{"game":"blackjack","rules":"classic","cards":["Td","9h","As","7c","9c","Kd"],"bets":[{"seat":1,"spot":"main","amount":100},{"seat":2,"spot":"main","amount":101}],"decisions":{"1":["I"],"2":["N"]}}`,
		want: "1/insurance/0=+100 1/main/0=-100 2/main/0=-101", used: 6},
	{name: "classic-insurance-lost",
		in:   `{"game":"blackjack","rules":"classic","cards":["Td","As","9h","7c"],"bets":[{"seat":1,"spot":"main","amount":101}],"decisions":{"1":["I","S"]}}`,
		want: "1/insurance/0=-50 1/main/0=+101", used: 4},
	{name: "classic-even-money",
		in:   `{"game":"blackjack","rules":"classic","cards":["As","Ac","Kh","9d"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["E"]}}`,
		want: "1/main/0=+100", used: 4},
	{name: "classic-even-money-declined-dealer-blackjack",
		in:   `{"game":"blackjack","rules":"classic","cards":["As","Ac","Kh","Qd"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["N"]}}`,
		want: "1/main/0=0", used: 4},
	{name: "classic-peek-ten-dealer-blackjack",
		in:   `{"game":"blackjack","rules":"classic","cards":["9s","Ad","Td","9h","Js","Ah"],"bets":[{"seat":1,"spot":"main","amount":100},{"seat":2,"spot":"main","amount":100}]}`,
		want: "1/main/0=-100 2/main/0=0", used: 6},
	// Late surrender returns floor(101/2) = 50.
	{name: "classic-late-surrender-odd-stake",
		in:   `{"game":"blackjack","rules":"classic","cards":["Td","Ts","6h","8c"],"bets":[{"seat":1,"spot":"main","amount":101}],"decisions":{"1":["R"]}}`,
		want: "1/main/0=-51", used: 4},
	{name: "classic-split-double-after-split",
		in:   `{"game":"blackjack","rules":"classic","cards":["8s","6d","8h","Tc","3c","Th","Kd","9s"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["P","D","S"]}}`,
		want: "1/main/0=+200 1/main/1=+100", used: 8},
	{name: "classic-split-aces-21-is-not-blackjack",
		in:   `{"game":"blackjack","rules":"classic","cards":["As","9d","Ah","8c","Kd","5c"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["P"]}}`,
		want: "1/main/0=+100 1/main/1=-100", used: 6},
	{name: "classic-dealer-stands-soft-17",
		in:   `{"game":"blackjack","rules":"classic","cards":["Td","6s","8h","Ac"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["S"]}}`,
		want: "1/main/0=+100", used: 4},
	{name: "classic-split-by-value",
		in:   `{"game":"blackjack","rules":"classic","cards":["Kh","5c","Td","6d","9s","Tc","7h"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["P","S","S"]}}`,
		want: "1/main/0=+100 1/main/1=+100", used: 7},
	{name: "classic-perfect-pairs",
		in: `{"game":"blackjack","rules":"classic","cards":["8h","8d","8s","Ks","7c","8h","8h","8h","9d","Ts"],
			"bets":[{"seat":1,"spot":"main","amount":100},{"seat":1,"spot":"perfect-pairs","amount":10},
				{"seat":2,"spot":"main","amount":100},{"seat":2,"spot":"perfect-pairs","amount":10},
				{"seat":3,"spot":"main","amount":100},{"seat":3,"spot":"perfect-pairs","amount":10},
				{"seat":4,"spot":"main","amount":100},{"seat":4,"spot":"perfect-pairs","amount":10}],
			"decisions":{"1":["S"],"2":["S"],"3":["S"],"4":["S"]}}`,
		want: "1/perfect-pairs/0=+250 1/main/0=-100 2/perfect-pairs/0=+120 2/main/0=-100 3/perfect-pairs/0=+60 3/main/0=-100 4/perfect-pairs/0=-10 4/main/0=+100",
		used: 10},
	// Issue 16: 8d 8h is a coloured pair (12:1) however the box plays it; the split deals hand 1
	// the 2d, which the settlement once read as the box's second card (RULES.md §4, seed 000).
	{name: "classic-perfect-pairs-then-split",
		in:   `{"game":"blackjack","rules":"classic","cards":["8d","6h","8h","Jh","2d","7c","8c","8c","8h","Jc","9c","2h","3c","Qh","7h"],"bets":[{"seat":7,"spot":"main","amount":200},{"seat":7,"spot":"perfect-pairs","amount":20}],"decisions":{"7":["P","S","S"]}}`,
		want: "7/perfect-pairs/0=+240 7/main/0=+200 7/main/1=+200", used: 7},
	{name: "classic-resplit-refused",
		in:      `{"game":"blackjack","rules":"classic","cards":["8s","6d","8h","Tc","8d","9c"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["P","P"]}}`,
		wantErr: "blackjack: seat 1: P: at most 2 hands from one box (RULES.md §4 classic)"},
	{name: "classic-double-after-hit-refused",
		in:      `{"game":"blackjack","rules":"classic","cards":["5s","6c","4h","Tc","2c","9c"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["H","D"]}}`,
		wantErr: "blackjack: seat 1: D: double only on the first two cards (RULES.md §4)"},
	{name: "classic-insurance-on-ten-refused",
		in:      `{"game":"blackjack","rules":"classic","cards":["5s","Tc","4h","9c"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["I"]}}`,
		wantErr: "seat 1: I: insurance and even money are asked only against an ace"},

	// ---- real21 (seed 002): no hole card, H17, split by rank to 4, no DAS, surrender but not
	// against an ace, even money but no insurance, a dealer blackjack takes every bet, the prizes.
	{name: "real21-dealer-hits-soft-17",
		in:   `{"game":"blackjack","rules":"real21","cards":["Td","6c","8s","Ah","2d"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["S"]}}`,
		want: "1/main/0=-100", used: 5},
	{name: "real21-dealer-blackjack-takes-the-double",
		in:   `{"game":"blackjack","rules":"real21","cards":["5s","Td","6h","9c","Ac"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["D"]}}`,
		want: "1/main/0=-200", used: 5},
	{name: "real21-split-unequal-rank-refused",
		in:      `{"game":"blackjack","rules":"real21","cards":["Kh","5c","Td","9s"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["P"]}}`,
		wantErr: "blackjack: seat 1: P: split only two cards of equal rank, not Kh Td (RULES.md §4 real21)"},
	{name: "real21-resplit-to-four-hands",
		in:   `{"game":"blackjack","rules":"real21","cards":["8s","6d","8h","8d","8c","Ts","Td","Th","8s","Kc","7s"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["P","P","P","S","S","S","S"]}}`,
		want: "1/main/0=+100 1/main/1=+100 1/main/2=+100 1/main/3=+100", used: 11},
	{name: "real21-fifth-hand-refused",
		in:      `{"game":"blackjack","rules":"real21","cards":["8s","6d","8h","8d","8c","Ts","Td","Th","8s","Kc","7s"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["P","P","P","S","S","S","P"]}}`,
		wantErr: "blackjack: seat 1: P: at most 4 hands from one box (RULES.md §4 real21)"},
	{name: "real21-double-after-split-refused",
		in:      `{"game":"blackjack","rules":"real21","cards":["8s","6d","8h","3c","9d"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["P","D"]}}`,
		wantErr: "blackjack: seat 1: D: no double after a split (RULES.md §4 real21)"},
	{name: "real21-surrender-against-ace-refused",
		in:      `{"game":"blackjack","rules":"real21","cards":["Td","As","6h","9c"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["R"]}}`,
		wantErr: "blackjack: seat 1: R: no surrender against an ace (RULES.md §4 real21)"},
	{name: "real21-surrender-against-ten",
		in:   `{"game":"blackjack","rules":"real21","cards":["Td","Ts","6h"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["R"]}}`,
		want: "1/main/0=-50", used: 3},
	{name: "real21-even-money",
		in:   `{"game":"blackjack","rules":"real21","cards":["As","Ah","Kd"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["E"]}}`,
		want: "1/main/0=+100", used: 3},
	{name: "real21-no-insurance",
		in:   `{"game":"blackjack","rules":"real21","cards":["Ts","Ah","9d","Kc"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["S"]}}`,
		want: "1/main/0=-100", used: 4},
	// The jack-of-spades prize is paid at once, even against an ace and without an offer.
	{name: "real21-split-aces-one-card-each",
		in:   `{"game":"blackjack","rules":"real21","cards":["As","5c","Ad","9h","2c","Kd","7s"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["P"]}}`,
		want: "1/main/0=+100 1/main/1=+100", used: 7},
	{name: "real21-prize-jack-of-spades",
		in:   `{"game":"blackjack","rules":"real21","cards":["As","Ah","Js"],"bets":[{"seat":1,"spot":"main","amount":100}]}`,
		want: "1/main/0=+400", used: 3},
	{name: "real21-prize-seven-cards",
		in:   `{"game":"blackjack","rules":"real21","cards":["2s","Td","2h","Ac","Ad","3s","3h","2c"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["H","H","H","H","H"]}}`,
		want: "1/main/0=+100", used: 8},
	{name: "real21-prize-suited-678-doubled",
		in:   `{"game":"blackjack","rules":"real21","cards":["6h","9c","7h","8h"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["D"]}}`,
		want: "1/main/0=+1000", used: 4},
	{name: "real21-prize-suited-sevens",
		in:   `{"game":"blackjack","rules":"real21","cards":["7d","5s","7d","7d"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["H"]}}`,
		want: "1/main/0=+700", used: 4},
	{name: "real21-blackjack-paid-at-once",
		in:   `{"game":"blackjack","rules":"real21","cards":["Ah","Ts","6s","Kc","9s","Td","5c"],"bets":[{"seat":1,"spot":"main","amount":100},{"seat":2,"spot":"main","amount":100}],"decisions":{"2":["S"]}}`,
		want: "1/main/0=+150 2/main/0=-100", used: 7},
	{name: "real21-blackjack-against-ten-dealer-blackjack",
		in:   `{"game":"blackjack","rules":"real21","cards":["Ah","Ts","Kc","As"],"bets":[{"seat":1,"spot":"main","amount":100}]}`,
		want: "1/main/0=0", used: 4},
	{name: "real21-blackjack-against-ten-no-dealer-blackjack",
		in:   `{"game":"blackjack","rules":"real21","cards":["Ah","Ts","Kc","5s"],"bets":[{"seat":1,"spot":"main","amount":100}]}`,
		want: "1/main/0=+150", used: 4},

	// ---- retiro (seed 004): hole card without a peek, double on 9–11, "retiro" against an ace
	// or ten, insurance, no even money, a dealer blackjack takes every bet.
	{name: "retiro-double-on-12-refused",
		in:      `{"game":"blackjack","rules":"retiro","cards":["7s","6c","5h","Td"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["D"]}}`,
		wantErr: "blackjack: seat 1: D: double only on first two cards totalling 9, 10 or 11, not 12 (RULES.md §4 retiro)"},
	{name: "retiro-double-on-9",
		in:   `{"game":"blackjack","rules":"retiro","cards":["5s","5c","4h","Tc","9d","Kd"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["D"]}}`,
		want: "1/main/0=+200", used: 6},
	{name: "retiro-surrender-keeps-half-against-dealer-blackjack",
		in:   `{"game":"blackjack","rules":"retiro","cards":["Td","5s","Ts","6h","6s","Ac","Kd"],"bets":[{"seat":1,"spot":"main","amount":100},{"seat":2,"spot":"main","amount":100}],"decisions":{"1":["R"],"2":["D"]}}`,
		want: "1/main/0=-50 2/main/0=-200", used: 7},
	{name: "retiro-surrender-against-seven-refused",
		in:      `{"game":"blackjack","rules":"retiro","cards":["Td","7s","6h","Tc"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["R"]}}`,
		wantErr: "blackjack: seat 1: R: surrender (retiro) only against an ace or a ten-value up card, not 7s (RULES.md §4 retiro)"},
	{name: "retiro-blackjack-insured-against-ace",
		in:   `{"game":"blackjack","rules":"retiro","cards":["As","Ad","Kh","9c"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["I"]}}`,
		want: "1/insurance/0=-50 1/main/0=+150", used: 4},
	{name: "retiro-even-money-refused",
		in:      `{"game":"blackjack","rules":"retiro","cards":["As","Ad","Kh","9c"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["E"]}}`,
		wantErr: "blackjack: seat 1: E: no even money (RULES.md §4 retiro); insurance is offered"},
	{name: "retiro-dealer-blackjack-takes-split-and-double",
		in:   `{"game":"blackjack","rules":"retiro","cards":["8s","Ts","8h","Ad","2c","Tc","9c"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["P","D","S"]}}`,
		want: "1/main/0=-200 1/main/1=-100", used: 7},

	{name: "retiro-dealer-stands-soft-17",
		in:   `{"game":"blackjack","rules":"retiro","cards":["Td","6s","8h","Ac"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["S"]}}`,
		want: "1/main/0=+100", used: 4},
	{name: "retiro-resplit-by-value-to-three-hands",
		in:   `{"game":"blackjack","rules":"retiro","cards":["Kh","6c","Td","Tc","Qd","9s","8c","7d","9h"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["P","P","S","S","S"]}}`,
		want: "1/main/0=+100 1/main/1=+100 1/main/2=+100", used: 9},
	// ---- enhc (seed 000): no hole card, S17, split by value to 4, DAS, surrender but not
	// against an ace, insurance, even money, a dealer blackjack takes every bet, blackjack
	// paid at once.
	{name: "enhc-surrender-against-ace-refused",
		in:      `{"game":"blackjack","rules":"enhc","cards":["Td","As","6h","9c"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["N","R"]}}`,
		wantErr: "blackjack: seat 1: R: no surrender against an ace (RULES.md §4 enhc)"},
	{name: "enhc-surrender-against-ten",
		in:   `{"game":"blackjack","rules":"enhc","cards":["Ts","Td","6s"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["R"]}}`,
		want: "1/main/0=-50", used: 3},
	{name: "enhc-dealer-stands-soft-17",
		in:   `{"game":"blackjack","rules":"enhc","cards":["Td","6s","8h","Ac"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["S"]}}`,
		want: "1/main/0=+100", used: 4},
	{name: "enhc-even-money",
		in:   `{"game":"blackjack","rules":"enhc","cards":["As","Ah","Kd"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["E"]}}`,
		want: "1/main/0=+100", used: 3},
	{name: "enhc-resplit-by-value-to-three-hands",
		in:   `{"game":"blackjack","rules":"enhc","cards":["Kh","6c","Td","Qd","9s","8c","7d","Tc","9h"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["P","P","S","S","S"]}}`,
		want: "1/main/0=+100 1/main/1=+100 1/main/2=+100", used: 9},
	{name: "enhc-insurance-dealer-blackjack",
		in:   `{"game":"blackjack","rules":"enhc","cards":["Td","Ac","9h","Kc"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["I","S"]}}`,
		want: "1/insurance/0=+100 1/main/0=-100", used: 4},
	{name: "enhc-dealer-blackjack-takes-the-double",
		in:   `{"game":"blackjack","rules":"enhc","cards":["6s","Tc","5d","9h","Ah"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["D"]}}`,
		want: "1/main/0=-200", used: 5},
	{name: "enhc-blackjack-paid-at-once",
		in:   `{"game":"blackjack","rules":"enhc","cards":["As","7h","Qd"],"bets":[{"seat":1,"spot":"main","amount":100}]}`,
		want: "1/main/0=+150", used: 3},
	{name: "enhc-blackjack-against-ten-dealer-draws-one-card",
		in:   `{"game":"blackjack","rules":"enhc","cards":["As","Td","Qd","6c"],"bets":[{"seat":1,"spot":"main","amount":100}]}`,
		want: "1/main/0=+150", used: 4},
	{name: "enhc-resplit-aces-refused",
		in:      `{"game":"blackjack","rules":"enhc","cards":["As","6c","Ah","Ad","5c","Tc","9d"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["P","P"]}}`,
		wantErr: `blackjack: seat 1: decision "P" was never asked for (the round ended first): hand 1: split aces are not resplit (RULES.md §4 enhc)`},
	{name: "decision-for-a-seat-without-a-box",
		in:      `{"game":"blackjack","rules":"classic","cards":["Td","9s","8h","7c","Kd"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["S"],"3":["H"]}}`,
		wantErr: `blackjack: seat 3: decision "H" was never asked for (the round ended first): seat 3 has no box in this round (no main bet)`},
	{name: "enhc-split-eights-dealer-busts",
		in:   `{"game":"blackjack","rules":"enhc","cards":["8s","6c","8h","3d","Ts","9c","Td","7c"],"bets":[{"seat":1,"spot":"main","amount":50}],"decisions":{"1":["P","D","S"]}}`,
		want: "1/main/0=+100 1/main/1=+50", used: 8},

	// ---- challenge21 (seed 000): one hand under enhc rules against 2 or 3 dealer rounds drawn
	// from the same first card.
	{name: "challenge21-three-rounds",
		in:   `{"game":"challenge21","cards":["Ts","9c","8d","Kd","5h","4s","7s","Th"],"bets":[{"seat":1,"spot":"round1","amount":100},{"seat":1,"spot":"round2","amount":100},{"seat":1,"spot":"round3","amount":100}],"decisions":{"1":["S"]}}`,
		want: "1/round1/0=-100 1/round2/0=0 1/round3/0=+100", used: 8},
	{name: "challenge21-bust-loses-every-round",
		in:   `{"game":"challenge21","cards":["Ts","7c","6d","9s"],"bets":[{"seat":1,"spot":"round1","amount":100},{"seat":1,"spot":"round2","amount":100}],"decisions":{"1":["H"]}}`,
		want: "1/round1/0=-100 1/round2/0=-100", used: 4},
	{name: "challenge21-double-doubles-every-round",
		in:   `{"game":"challenge21","cards":["5s","6h","6s","9d","Tc","3d","5c","Kd","6c","8s"],"bets":[{"seat":1,"spot":"round1","amount":100},{"seat":1,"spot":"round2","amount":100},{"seat":1,"spot":"round3","amount":100}],"decisions":{"1":["D"]}}`,
		want: "1/round1/0=+200 1/round2/0=-200 1/round3/0=0", used: 10},
	{name: "challenge21-insurance-per-round",
		in:   `{"game":"challenge21","cards":["Td","Ac","9h","Kc","5d","2c"],"bets":[{"seat":1,"spot":"round1","amount":100},{"seat":1,"spot":"round2","amount":100}],"decisions":{"1":["I","N","S"]}}`,
		want: "1/round1-insurance/0=+100 1/round1/0=-100 1/round2/0=+100", used: 6},
	{name: "challenge21-blackjack-paid-at-once",
		in:   `{"game":"challenge21","cards":["As","8c","Kd"],"bets":[{"seat":1,"spot":"round1","amount":100},{"seat":1,"spot":"round2","amount":100}]}`,
		want: "1/round1/0=+150 1/round2/0=+150", used: 3},
	{name: "challenge21-unequal-bets-refused",
		in:      `{"game":"challenge21","cards":["As","8c","Kd"],"bets":[{"seat":1,"spot":"round1","amount":100},{"seat":1,"spot":"round2","amount":50}]}`,
		wantErr: "challenge21: seat 1: round1 100 round2 50 round3 0: a Challenge 21 box places 2 or 3 equal bets"},

	// ---- bad input
	{name: "bet-without-a-box",
		in:      `{"game":"blackjack","cards":["As","8c","Kd"],"bets":[{"seat":1,"spot":"main","amount":100},{"seat":2,"spot":"perfect-pairs","amount":5}]}`,
		wantErr: "blackjack: seat 2: perfect-pairs 5: a side bet without a main bet on its box"},
	{name: "bet-without-a-seat",
		in:      `{"game":"blackjack","cards":["As","8c","Kd"],"bets":[{"seat":0,"spot":"main","amount":100}]}`,
		wantErr: "blackjack: main 100: a bet must name its seat (box) 1 or above"},
	{name: "unknown-preset",
		in:      `{"game":"blackjack","rules":"vegas","cards":["As","8c","Kd"],"bets":[{"seat":1,"spot":"main","amount":100}]}`,
		wantErr: `blackjack: unknown rules preset "vegas" (known: classic, real21, retiro, enhc)`},
	{name: "unknown-spot",
		in:      `{"game":"blackjack","cards":["As","8c","Kd"],"bets":[{"seat":1,"spot":"tie","amount":100}]}`,
		wantErr: `blackjack: seat 1: tie 100: unknown spot "tie" (blackjack spots: main, perfect-pairs; RULES.md §8)`},
	{name: "too-few-cards",
		in:      `{"game":"blackjack","cards":["As","8c"],"bets":[{"seat":1,"spot":"main","amount":100}]}`,
		wantErr: "blackjack: too few cards: 2 given, the round needs another (card to box 1)"},
	{name: "unknown-option",
		in:      `{"game":"blackjack","cards":["As","8c","Kd"],"bets":[{"seat":1,"spot":"main","amount":100}],"options":{"soft18":"hit"}}`,
		wantErr: `blackjack: unknown option "soft18"`},
	{name: "option-soft17-hit",
		in:   `{"game":"blackjack","rules":"classic","cards":["Td","6s","8h","Ac","Th"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["S"]},"options":{"soft17":"hit"}}`,
		want: "1/main/0=+100", used: 5},
	// The original bet only, without a peek: the first live hand loses its original stake, the
	// double and the other split hand are returned.
	{name: "option-original-bet-only-without-peek",
		in:   `{"game":"blackjack","rules":"enhc","cards":["8s","Td","8h","3c","9d","Tc","Ah"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["P","D","S"]},"options":{"dealer-blackjack-takes":"original"}}`,
		want: "1/main/0=-100 1/main/1=0", used: 7},
	{name: "option-cited-in-error",
		in:      `{"game":"blackjack","rules":"enhc","cards":["7s","6c","5h","Td"],"bets":[{"seat":1,"spot":"main","amount":100}],"decisions":{"1":["D"]},"options":{"double":"10-11"}}`,
		wantErr: "D: double only on first two cards totalling 10 or 11, not 12 (table option double=10-11)"},
}

func compact(o *games.Outcome) string {
	var f []string
	for _, s := range o.Settlements {
		sign := ""
		if s.Net > 0 {
			sign = "+"
		}
		f = append(f, fmt.Sprintf("%d/%s/%d=%s%d", s.Seat, s.Spot, s.Hand, sign, s.Net))
	}
	return strings.Join(f, " ")
}

func TestRoundGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range roundCases {
		t.Run(tc.name, func(t *testing.T) {
			if seen[tc.name] {
				t.Fatalf("duplicate case name")
			}
			seen[tc.name] = true
			var in games.RoundInput
			dec := json.NewDecoder(strings.NewReader(tc.in))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&in); err != nil {
				t.Fatalf("bad test input: %v", err)
			}
			out, err := catalog.PlayRound(in)
			var got []byte
			if tc.wantErr != "" {
				if err == nil {
					t.Fatalf("no error; want %q (outcome %s)", tc.wantErr, compact(out))
				}
				if !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %q\nwant it to contain %q", err, tc.wantErr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error is more than one line: %q", err)
				}
				got = []byte(err.Error() + "\n")
			} else {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				if c := compact(out); c != tc.want {
					t.Errorf("settlements\n got %s\nwant %s", c, tc.want)
				}
				if out.CardsUsed != tc.used {
					t.Errorf("cards_used %d, want %d", out.CardsUsed, tc.used)
				}
				checkOutcome(t, out)
				got, err = json.MarshalIndent(out, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, '\n')
			}
			path := filepath.Join("testdata", "rounds", tc.name+".golden")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("outcome differs from %s (go test -update rewrites it):\n%s", path, got)
			}
		})
	}
}

// checkOutcome checks what every outcome must satisfy: each hand's total is its cards' total.
func checkOutcome(t *testing.T, o *games.Outcome) {
	t.Helper()
	for _, h := range o.Hands {
		if len(h.Cards) == 0 {
			t.Errorf("hand %+v has no cards", h)
		}
	}
	if o.Game == "" || o.Result == "" {
		t.Errorf("outcome without game or result: %+v", o)
	}
}
