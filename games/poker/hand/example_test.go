package hand_test

import (
	"fmt"

	"github.com/sabot-tables/sabot/games/poker/hand"
	"github.com/sabot-tables/sabot/shoe/card"
)

func ExampleEval() {
	board, _ := card.ParseList("Kd 7c 2h 7s 3d")
	a, _ := card.ParseList("Ks Kh")
	b, _ := card.ParseList("As 7h")
	ra, _ := hand.Eval(append(a, board...)...)
	rb, _ := hand.Eval(append(b, board...)...)
	fmt.Println(ra)
	fmt.Println(rb)
	fmt.Println(ra > rb)
	// Output:
	// full house K K K 7 7
	// three of a kind 7 7 7 A K
	// true
}

func ExampleEvalOmaha() {
	hole, _ := card.ParseList("Ah Kc 7d 2s")
	board, _ := card.ParseList("Qh Jh 9h 3h 4c")
	r, _ := hand.EvalOmaha(hole, board) // one heart in the hand: no flush
	fmt.Println(r.Category(), "|", r)
	// Output: high card | high card A K Q J 9
}
