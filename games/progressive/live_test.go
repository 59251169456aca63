package progressive

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/sabot-tables/sabot/shoe/card"
)

// randomRound deals n seats five cards each from one deck, with some folded or void hands and
// now and then a strong hand, so that every kind of prize comes up.
func randomRound(r *rand.Rand, round int) Round {
	deck := card.Deck()
	r.Shuffle(len(deck), func(i, j int) { deck[i], deck[j] = deck[j], deck[i] })
	n := 1 + r.IntN(7)
	rd := Round{Table: "T1", Round: string(rune('a' + round%26))}
	for seat := 1; seat <= n; seat++ {
		b := Bet{Seat: seat, Amount: 100 * int64(1+r.IntN(5)), Cards: deck[5*(seat-1) : 5*seat]}
		switch r.IntN(12) {
		case 0:
			b.Folded = true
		case 1:
			b.Void = true
		case 2, 3:
			b.Cards, _ = card.ParseList([]string{"As Ks Qs Js Ts", "9h 8h 7h 6h 5h", "2c 2d 2h 2s 3c", "Kc Kd Kh 4s 4c", "2d 7d 9d Jd Kd"}[r.IntN(5)])
		}
		rd.Bets = append(rd.Bets, b)
	}
	if r.IntN(4) == 0 {
		rd.Draw = &Drawn{Kind: []string{MagicCard, LuckyPlayer}[r.IntN(2)], Seat: 1 + r.IntN(n), Card: card.FromIndex(r.IntN(52))}
	}
	return rd
}

// TestLiveMatchesSettle: Contribute at the opening then PayRound at the end is Settle, to the
// cent, round after round, at a pool the house covers.
func TestLiveMatchesSettle(t *testing.T) {
	cfg := Config{Pool: "arica", Base: 50_000, Share: 7000, Reserves: []Reserve{{Name: "reserve", Share: 2000}},
		Prizes: DefaultTable(), MagicCard: 5_000, LuckyPlayer: 2_000, RandomOdds: 3, HouseCover: true}
	r := rand.New(rand.NewPCG(4, 19))
	a, b := cfg.Start(), cfg.Start()
	for i := range 3000 {
		rd := randomRound(r, i)
		var err error
		var want, got Result
		if a, want, err = cfg.Settle(a, rd); err != nil {
			t.Fatal(err)
		}
		var stakes []Stake
		for _, bet := range rd.Bets {
			stakes = append(stakes, Stake{Seat: bet.Seat, Amount: bet.Amount})
		}
		var fed []Feed
		if b, fed, err = cfg.Contribute(b, stakes); err != nil {
			t.Fatal(err)
		}
		if b, got, _, err = cfg.PayRound(b, rd, fed); err != nil {
			t.Fatal(err)
		}
		// Settle never feeds a void hand; the live table fed it and gave it back: the pools and
		// the payouts agree, and the house funded what giving it back took below the base.
		wa, wb := a, b
		wa.Funded, wb.Funded = 0, 0
		if ja, jb := js(t, wa), js(t, wb); ja != jb {
			t.Fatalf("round %d: Settle left %s, Contribute+PayRound %s", i, ja, jb)
		}
		if ja, jb := js(t, want.Payouts), js(t, got.Payouts); ja != jb {
			t.Fatalf("round %d: Settle paid %s, PayRound %s", i, ja, jb)
		}
	}
}

func js(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestPayRoundShort: a fixed prize beyond what the pools hold is refused at a pool the house does
// not cover, and the state is unchanged.
func TestPayRoundShort(t *testing.T) {
	cfg := Config{Pool: "arica", Base: 10_000, Share: 5000, Prizes: DefaultTable()}
	st := cfg.Start()
	st, fed, err := cfg.Contribute(st, []Stake{{Seat: 3, Amount: 500}})
	if err != nil {
		t.Fatal(err)
	}
	before := js(t, st)
	rd := Round{Table: "T1", Round: "1", Bets: []Bet{{Seat: 3, Amount: 500, Cards: cards(t, "2c 2d 2h 2s 3c")}}} // 100 × 500 = 50,000
	next, _, _, err := cfg.PayRound(st, rd, fed)
	if !errors.Is(err, ErrShort) {
		t.Fatalf("err %v, want ErrShort", err)
	}
	const want = "progressive: prize larger than the pools hold: table T1 round 1: seat 3's four of a kind 100x prize of 50000 cents, the pools hold 10250 (the house does not cover pool arica): held for a supervisor"
	if err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
	if js(t, next) != before {
		t.Errorf("state changed: %s, was %s", js(t, next), before)
	}
	cfg.HouseCover = true
	if _, res, _, err := cfg.PayRound(st, rd, fed); err != nil || res.Payouts[0].From[1] != (Source{Pool: "house", Amount: 39_750}) {
		t.Errorf("covered: %+v, %v", res.Payouts, err)
	}
}

// TestPayRoundRefusesHandsNotBooked: the hands must be the bets booked.
func TestPayRoundRefusesHandsNotBooked(t *testing.T) {
	cfg := Config{Pool: "arica", Base: 10_000, Share: 5000, Prizes: DefaultTable()}
	st, fed, _ := cfg.Contribute(cfg.Start(), []Stake{{Seat: 3, Amount: 500}})
	for _, rd := range []Round{
		{Table: "T1", Round: "1", Bets: []Bet{{Seat: 3, Amount: 600, Cards: cards(t, "2c 3d 4h 5s 7c")}}},
		{Table: "T1", Round: "1", Bets: []Bet{{Seat: 2, Amount: 500, Cards: cards(t, "2c 3d 4h 5s 7c")}}},
		{Table: "T1", Round: "1"},
	} {
		if _, _, _, err := cfg.PayRound(st, rd, fed); !errors.Is(err, ErrRound) {
			t.Errorf("%+v: err %v, want ErrRound", rd.Bets, err)
		}
	}
}

// TestReverse: a round voided after it was paid leaves the pools as if it never happened, but for
// the base the house put back.
func TestReverse(t *testing.T) {
	cfg := Config{Pool: "arica", Base: 100_000, Share: 7000, Reserves: []Reserve{{Name: "reserve", Share: 2000}}, Prizes: DefaultTable()}
	st := cfg.Start()
	st.Main, st.Reserves["reserve"] = 400_000, 30_000
	start := st
	st, fed, _ := cfg.Contribute(st, []Stake{{Seat: 1, Amount: 1000}, {Seat: 4, Amount: 500}})
	rd := Round{Table: "T1", Round: "9", Bets: []Bet{{Seat: 1, Amount: 1000, Void: true}, {Seat: 4, Amount: 500, Cards: cards(t, "As Ks Qs Js Ts")}}}
	st, res, _, err := cfg.PayRound(st, rd, fed)
	if err != nil {
		t.Fatal(err)
	}
	back, rv := cfg.Reverse(st, fed, &res)
	if len(rv.Restored) == 0 || len(rv.Unrefilled) == 0 || len(rv.Returned) != 1 || rv.Returned[0].Seat != 4 || rv.Refill != nil {
		t.Errorf("reversal %+v", rv)
	}
	if back.Main != start.Main || back.Reserves["reserve"] != start.Reserves["reserve"] || back.Commission != 0 {
		t.Errorf("after the reversal %+v, before the round %+v", back, start)
	}
}
