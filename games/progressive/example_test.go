package progressive_test

import (
	"fmt"

	"github.com/sabot-tables/sabot/games/progressive"
	"github.com/sabot-tables/sabot/shoe/card"
)

func ExampleConfig_Settle() {
	cfg := progressive.Config{Pool: "arica", Base: 100_000, Share: 7000, Prizes: progressive.DefaultTable()}
	royal, _ := card.ParseList("As Ks Qs Js Ts")
	pair, _ := card.ParseList("9c 9d 2h 5s Kc")
	st := cfg.Start()
	st.Main = 250_000
	next, res, err := cfg.Settle(st, progressive.Round{Table: "T1", Round: "17", Bets: []progressive.Bet{
		{Seat: 3, Amount: 500, Cards: royal}, {Seat: 5, Amount: 500, Cards: pair}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range res.Payouts {
		fmt.Printf("seat %d: %s (%s) %d\n", p.Seat, p.Category, p.Prize, p.Amount)
	}
	fmt.Println("main pool after:", next.Main, "net seat 3:", res.Net(3), "seat 5:", res.Net(5))
	// Output:
	// seat 3: royal flush (100%) 250700
	// main pool after: 100000 net seat 3: 250200 seat 5: -500
}
