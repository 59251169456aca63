package ledger

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/games/progressive"
	"github.com/sabot-tables/sabot/games/progressive/ledger/pgtest"
	"github.com/sabot-tables/sabot/shoe/card"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

var at = time.Date(2026, 3, 1, 21, 30, 0, 0, time.UTC)

func pool() Pool {
	return Pool{Config: progressive.Config{Pool: "arica", Base: 1_000_000, Share: 7000,
		Reserves: []progressive.Reserve{{Name: "reserve", Share: 2000}}, Prizes: progressive.DefaultTable()},
		Tables: []string{"T1", "T2", "T3"}}
}

func cards(t testing.TB, s string) []card.Card {
	t.Helper()
	cs, err := card.ParseList(s)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// store is one database the suite runs on.
type store struct {
	name string
	dsn  func(t testing.TB) string
}

var stores = []store{
	{"sqlite", func(t testing.TB) string { return filepath.Join(t.TempDir(), "progressive.db") }},
	{"postgresql", pgtest.DB},
}

// each runs f on both databases.
func each(t *testing.T, f func(t *testing.T, dsn string)) {
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) { f(t, s.dsn(t)) })
	}
}

func open(t testing.TB, dsn string, rng *rand.ChaCha8) *Ledger {
	t.Helper()
	l, err := Open(context.Background(), dsn, rng)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := l.Configure(context.Background(), pool()); err != nil {
		t.Fatal(err)
	}
	return l
}

func meter(t testing.TB, l *Ledger) Meter {
	t.Helper()
	m, err := l.Meter(context.Background(), "arica")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// conserved checks the pool's identity: what it holds is what the bets fed it, less the prizes,
// plus what the house put in; and the entries add up to the state.
func conserved(t testing.TB, l *Ledger) {
	t.Helper()
	m := meter(t, l)
	if m.Value+m.Reserve != m.Contributions-m.Paid+m.Funded {
		t.Errorf("pool %d + reserve %d ≠ contributions %d − paid %d + funded %d", m.Value, m.Reserve, m.Contributions, m.Paid, m.Funded)
	}
	if err := l.Verify(context.Background(), "arica"); err != nil {
		t.Error(err)
	}
}

// TestBookedOnceAcrossRestart books a round's bets and hands, books them again, reopens the
// ledger, books them again: the pool moved once.
func TestBookedOnceAcrossRestart(t *testing.T) {
	each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		l := open(t, dsn, rand.NewChaCha8([32]byte{8}))
		bets := Bets{Pool: "arica", Table: "T1", Round: 7, Seq: 40, At: at, Stakes: []progressive.Stake{{Seat: 2, Amount: 500}, {Seat: 5, Amount: 1000}}}
		hands := Hands{Pool: "arica", Table: "T1", Round: 7, Seq: 52, At: at.Add(time.Minute), Bets: []progressive.Bet{
			{Seat: 2, Amount: 500, Cards: cards(t, "2c 2d 2h 2s 3c")}, // four of a kind: 100 × 500
			{Seat: 5, Amount: 1000, Cards: cards(t, "Ah Kd 9s 4c 3h")},
		}}
		b1, err := l.BookBets(ctx, bets)
		if err != nil {
			t.Fatal(err)
		}
		// Feeds: 350 (70 reserve, 280 main) and 700 (140, 560).
		if m := b1.Meter; m.Value != 1_000_840 || m.Reserve != 210 || m.Contributions != 1050 || m.Turnover != 1500 || m.Bets != 2 || m.Version != 1 {
			t.Errorf("after the bets %+v", m)
		}
		b2, err := l.BookBets(ctx, bets)
		if err != nil || !b2.Again || mustJSON(b2.Meter) != mustJSON(b1.Meter) {
			t.Errorf("again: %+v, %v", b2, err)
		}
		h1, err := l.BookHands(ctx, hands)
		if err != nil {
			t.Fatal(err)
		}
		// Seat 2's 50,000 from main: 950,840; back to the base: 210 from the reserve, 48,950
		// from the house.
		if m := h1.Meter; m.Value != 1_000_000 || m.Reserve != 0 || m.Hits != 1 || m.Paid != 50_000 || m.Funded != 1_048_950 ||
			m.LastWin == nil || m.LastWin.Seat != 2 || m.LastWin.Category != "four of a kind" {
			t.Errorf("after the hands %+v", m)
		}
		l.Close()
		l = open(t, dsn, rand.NewChaCha8([32]byte{9}))
		if b, err := l.BookBets(ctx, bets); err != nil || !b.Again {
			t.Errorf("bets after the restart: %+v, %v", b, err)
		}
		h2, err := l.BookHands(ctx, hands)
		if err != nil || !h2.Again || mustJSON(h2.Result) != mustJSON(h1.Result) {
			t.Errorf("hands after the restart: %+v, %v", h2, err)
		}
		if m := meter(t, l); mustJSON(m) != mustJSON(h1.Meter) {
			t.Errorf("meter %+v, want %+v", m, h1.Meter)
		}
		marks, err := l.Marks(ctx)
		if err != nil || marks["T1"] != 52 {
			t.Errorf("marks %v, %v", marks, err)
		}
		conserved(t, l)
	})
}

// TestRandomPrizeDrawnOnce: the random prize is drawn inside the booking and recorded; the same
// hands again return the same draw, whatever the randomness says now.
func TestRandomPrizeDrawnOnce(t *testing.T) {
	each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		l, err := Open(ctx, dsn, rand.NewChaCha8([32]byte{3}))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		p := pool()
		p.LuckyPlayer, p.MagicCard, p.RandomOdds = 2_500, 10_000, 1 // drawn every round
		if err := l.Configure(ctx, p); err != nil {
			t.Fatal(err)
		}
		stakes := []progressive.Stake{{Seat: 1, Amount: 100}, {Seat: 3, Amount: 100}, {Seat: 6, Amount: 100}}
		var bets []progressive.Bet
		for i, s := range stakes {
			bets = append(bets, progressive.Bet{Seat: s.Seat, Amount: s.Amount, Cards: cards(t, []string{"2c 5d 8h Js Kc", "3c 6d 9h Qs Ac", "4c 7d Th 2s 9c"}[i])})
		}
		if _, err := l.BookBets(ctx, Bets{Pool: "arica", Table: "T1", Round: 1, Seq: 3, At: at, Stakes: stakes}); err != nil {
			t.Fatal(err)
		}
		h1, err := l.BookHands(ctx, Hands{Pool: "arica", Table: "T1", Round: 1, Seq: 9, At: at, Bets: bets})
		if err != nil {
			t.Fatal(err)
		}
		if h1.Result.Draw == nil {
			t.Fatal("no draw at odds 1")
		}
		for range 5 {
			h, err := l.BookHands(ctx, Hands{Pool: "arica", Table: "T1", Round: 1, Seq: 9, At: at, Bets: bets})
			if err != nil || *h.Result.Draw != *h1.Result.Draw || mustJSON(h.Meter) != mustJSON(h1.Meter) {
				t.Fatalf("again: draw %v (first %v), %v", h.Result.Draw, h1.Result.Draw, err)
			}
		}
		conserved(t, l)
	})
}

// TestRefusals: bad input is refused with a reason that names it, and the pool is unchanged.
func TestRefusals(t *testing.T) {
	each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		l := open(t, dsn, rand.NewChaCha8([32]byte{1}))
		small := Pool{Config: progressive.Config{Pool: "small", Base: 10_000, Share: 5000, Prizes: progressive.DefaultTable()}, Tables: []string{"T9"}}
		if err := l.Configure(ctx, small); err != nil {
			t.Fatal(err)
		}
		if _, err := l.BookBets(ctx, Bets{Pool: "arica", Table: "T1", Round: 1, Seq: 2, At: at, Stakes: []progressive.Stake{{Seat: 1, Amount: 500}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := l.BookBets(ctx, Bets{Pool: "small", Table: "T9", Round: 4, Seq: 2, At: at, Stakes: []progressive.Stake{{Seat: 3, Amount: 500}}}); err != nil {
			t.Fatal(err)
		}
		before, beforeSmall := meter(t, l), mustJSON(must(l.Meter(ctx, "small")))
		for _, tc := range []struct {
			name string
			book func() error
			want error
			msg  string
		}{
			{"unknown pool", func() error {
				_, err := l.BookBets(ctx, Bets{Pool: "lima", Table: "T1", Round: 2, Seq: 5, At: at, Stakes: []progressive.Stake{{Seat: 1, Amount: 500}}})
				return err
			}, ErrUnknownPool, `ledger: ledger: unknown pool "lima"`},
			{"foreign table", func() error {
				_, err := l.BookBets(ctx, Bets{Pool: "arica", Table: "T77", Round: 2, Seq: 5, At: at, Stakes: []progressive.Stake{{Seat: 1, Amount: 500}}})
				return err
			}, ErrForeignTable, "ledger: ledger: table not connected to the pool: table T77 is not one of pool arica's tables (T1, T2, T3)"},
			{"other bets under a booked round", func() error {
				_, err := l.BookBets(ctx, Bets{Pool: "arica", Table: "T1", Round: 1, Seq: 2, At: at, Stakes: []progressive.Stake{{Seat: 1, Amount: 900}}})
				return err
			}, ErrConflict, "ledger: ledger: round already booked with a different event: table T1 round 1: its bets were booked from another event"},
			{"hands without bets", func() error {
				_, err := l.BookHands(ctx, Hands{Pool: "arica", Table: "T2", Round: 8, Seq: 5, At: at, Bets: []progressive.Bet{{Seat: 1, Amount: 500, Cards: cards(t, "2c 5d 8h Js Kc")}}})
				return err
			}, ErrNoBets, "ledger: ledger: hands for a round whose bets were never booked: table T2 round 8"},
			{"hands that are not the bets", func() error {
				_, err := l.BookHands(ctx, Hands{Pool: "arica", Table: "T1", Round: 1, Seq: 5, At: at, Bets: []progressive.Bet{{Seat: 1, Amount: 5000, Cards: cards(t, "2c 5d 8h Js Kc")}}})
				return err
			}, progressive.ErrRound, "ledger: progressive: bad round: table T1 round 1: seat 1's hand bets 5000, the bet booked is 500"},
			{"prize larger than the pool", func() error {
				_, err := l.BookHands(ctx, Hands{Pool: "small", Table: "T9", Round: 4, Seq: 5, At: at, Bets: []progressive.Bet{{Seat: 3, Amount: 500, Cards: cards(t, "2c 2d 2h 2s 3c")}}})
				return err
			}, progressive.ErrShort, "ledger: progressive: prize larger than the pools hold: table T9 round 4: seat 3's four of a kind 100x prize of 50000 cents, the pools hold 10250 (the house does not cover pool small): held for a supervisor"},
		} {
			err := tc.book()
			if !errors.Is(err, tc.want) || err.Error() != tc.msg {
				t.Errorf("%s: %v\nwant %s", tc.name, err, tc.msg)
			}
		}
		if m := meter(t, l); mustJSON(m) != mustJSON(before) {
			t.Errorf("pool changed: %+v, was %+v", m, before)
		}
		if m := mustJSON(must(l.Meter(ctx, "small"))); m != beforeSmall {
			t.Errorf("small pool changed: %s, was %s", m, beforeSmall)
		}
		conserved(t, l)
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestVoidGivesEverythingBack: a round voided after its bets, and one voided after it was paid,
// leave the pool holding only what the house put in, its counters at zero. (Round 1 is
// voided while round 2's royal flush has emptied the pool: its bets come back out of the base,
// which the house refills; round 2's reversal then puts the prize back, so the pool ends above
// its base by what the house put in for round 1.)
func TestVoidGivesEverythingBack(t *testing.T) {
	each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		l := open(t, dsn, rand.NewChaCha8([32]byte{1}))
		start := meter(t, l)
		for round := uint64(1); round <= 2; round++ {
			if _, err := l.BookBets(ctx, Bets{Pool: "arica", Table: "T1", Round: round, Seq: 10 * round, At: at, Stakes: []progressive.Stake{{Seat: 1, Amount: 500}, {Seat: 2, Amount: 500}}}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := l.BookHands(ctx, Hands{Pool: "arica", Table: "T1", Round: 2, Seq: 25, At: at, Bets: []progressive.Bet{
			{Seat: 1, Amount: 500, Cards: cards(t, "As Ks Qs Js Ts")}, {Seat: 2, Amount: 500, Void: true}}}); err != nil {
			t.Fatal(err)
		}
		for round := uint64(1); round <= 2; round++ {
			v, ok, err := l.BookVoid(ctx, Void{Table: "T1", Round: round, Seq: 10*round + 9, At: at})
			if err != nil || !ok || v.Again {
				t.Fatalf("void of round %d: %+v, %v, %v", round, v, ok, err)
			}
			if v, _, err := l.BookVoid(ctx, Void{Table: "T1", Round: round, Seq: 10*round + 9, At: at}); err != nil || !v.Again {
				t.Fatalf("void of round %d again: %+v, %v", round, v, err)
			}
		}
		if _, ok, err := l.BookVoid(ctx, Void{Table: "T1", Round: 3, Seq: 40, At: at}); ok || err != nil {
			t.Errorf("a void without progressive bets: %v, %v", ok, err)
		}
		m := meter(t, l)
		if m.Value+m.Reserve != m.Funded || m.Value < start.Value || m.Contributions != 0 || m.Turnover != 0 || m.Bets != 0 || m.Hits != 0 || m.Paid != 0 || m.Commission != 0 {
			t.Errorf("after the voids %+v, at the start %+v", m, start)
		}
		conserved(t, l)
	})
}

// TestTwoControllersOneSecond: two tables win in the same second, booked by two ledgers on one
// database (two controllers) from many goroutines, every event twice: each bet feeds once,
// each win is paid once, and the pool adds up to the cent.
func TestTwoControllersOneSecond(t *testing.T) {
	each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		a := open(t, dsn, rand.NewChaCha8([32]byte{1}))
		b := open(t, dsn, rand.NewChaCha8([32]byte{2}))
		const rounds = 30
		var wg sync.WaitGroup
		errs := make(chan error, 1000)
		for _, table := range []string{"T1", "T2"} {
			for _, l := range []*Ledger{a, b} {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for r := uint64(1); r <= rounds; r++ {
						bets := Bets{Pool: "arica", Table: table, Round: r, Seq: 2 * r, At: at, Stakes: []progressive.Stake{{Seat: 1, Amount: 500}, {Seat: 4, Amount: 1000}}}
						if _, err := l.BookBets(ctx, bets); err != nil {
							errs <- err
							return
						}
						hands := Hands{Pool: "arica", Table: table, Round: r, Seq: 2*r + 1, At: at, Bets: []progressive.Bet{
							{Seat: 1, Amount: 500, Cards: cards(t, "As Ks Qs Js Ts")}, {Seat: 4, Amount: 1000, Cards: cards(t, "Kc Kd Kh 4s 4c")}}}
						if _, err := l.BookHands(ctx, hands); err != nil {
							errs <- err
							return
						}
					}
				}()
			}
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		m := meter(t, a)
		// Each round: 2 bets, 2 prizes (the royal flush and the full house: 75 × 1000).
		if m.Bets != 2*2*rounds || m.Turnover != 2*rounds*1500 || m.Hits != 2*2*rounds || m.Version != 2*2*rounds+0 {
			t.Errorf("meter %+v", m)
		}
		conserved(t, a)
	})
}

// TestConservation plays many random rounds of three tables, with voids, and checks the pool's
// identity against a count kept here, from the bookings' own results.
func TestConservation(t *testing.T) {
	each(t, func(t *testing.T, dsn string) {
		ctx := context.Background()
		l, err := Open(ctx, dsn, rand.NewChaCha8([32]byte{5}))
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		p := pool()
		p.MagicCard, p.LuckyPlayer, p.RandomOdds, p.HouseCover = 20_000, 5_000, 10, true
		if err := l.Configure(ctx, p); err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(1, 2))
		var fed, paid int64
		n := 150
		if testing.Short() {
			n = 40
		}
		for i := range n {
			table := fmt.Sprintf("T%d", 1+i%3)
			round := uint64(1 + i/3)
			deck := card.Deck()
			r.Shuffle(len(deck), func(i, j int) { deck[i], deck[j] = deck[j], deck[i] })
			var stakes []progressive.Stake
			var bets []progressive.Bet
			for seat := 1; seat <= 1+r.IntN(5); seat++ {
				amt := 100 * int64(1+r.IntN(5))
				stakes = append(stakes, progressive.Stake{Seat: seat, Amount: amt})
				b := progressive.Bet{Seat: seat, Amount: amt, Cards: deck[5*seat : 5*seat+5], Void: r.IntN(15) == 0, Folded: r.IntN(8) == 0}
				if r.IntN(6) == 0 {
					b.Cards = cards(t, []string{"As Ks Qs Js Ts", "Kc Kd Kh 4s 4c", "2d 7d 9d Jd Kd"}[r.IntN(3)])
				}
				bets = append(bets, b)
			}
			bb, err := l.BookBets(ctx, Bets{Pool: "arica", Table: table, Round: round, Seq: 3 * round, At: at, Stakes: stakes})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range bb.Feeds {
				fed += f.Amount - f.Commission
			}
			if r.IntN(10) == 0 {
				v, _, err := l.BookVoid(ctx, Void{Table: table, Round: round, Seq: 3*round + 1, At: at})
				if err != nil {
					t.Fatal(err)
				}
				for _, f := range bb.Feeds {
					fed -= f.Amount - f.Commission
				}
				_ = v
				continue
			}
			h, err := l.BookHands(ctx, Hands{Pool: "arica", Table: table, Round: round, Seq: 3*round + 2, At: at, Bets: bets})
			if err != nil {
				t.Fatal(err)
			}
			for _, rt := range h.Returned {
				for _, f := range bb.Feeds {
					if f.Seat == rt.Seat {
						fed -= f.Amount - f.Commission
					}
				}
			}
			for _, pay := range h.Result.Payouts {
				paid += pay.Amount
			}
		}
		m := meter(t, l)
		if m.Contributions != fed || m.Paid != paid {
			t.Errorf("meter: contributions %d, paid %d; the bookings fed %d and paid %d", m.Contributions, m.Paid, fed, paid)
		}
		conserved(t, l)
	})
}

// TestPostgreSQLRestart: bookings fail while the server is down (killed, as a crash) and go on
// when it is back, on the same Ledger; nothing committed is lost.
func TestPostgreSQLRestart(t *testing.T) {
	srv := pgtest.Start(t)
	ctx := context.Background()
	l := open(t, srv.DSN(), rand.NewChaCha8([32]byte{1}))
	book := func(round uint64) error {
		_, err := l.BookBets(ctx, Bets{Pool: "arica", Table: "T1", Round: round, Seq: round, At: at, Stakes: []progressive.Stake{{Seat: 1, Amount: 1000}}})
		return err
	}
	for r := uint64(1); r <= 5; r++ {
		if err := book(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := book(6); err == nil {
		t.Fatal("booked with the database down")
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	for r := uint64(6); r <= 10; r++ {
		if err := book(r); err != nil {
			t.Fatalf("round %d after the restart: %v", r, err)
		}
	}
	if m := meter(t, l); m.Bets != 10 || m.Turnover != 10_000 {
		t.Errorf("meter %+v", m)
	}
	conserved(t, l)
}

// BenchmarkBookings: bookings per second (a round's bets, then its hands) on each database.
func BenchmarkBookings(b *testing.B) {
	for _, s := range stores {
		b.Run(s.name, func(b *testing.B) {
			l := open(b, s.dsn(b), rand.NewChaCha8([32]byte{1}))
			ctx := context.Background()
			hand := cards(b, "2c 5d 8h Js Kc")
			b.ResetTimer()
			for i := range b.N {
				r := uint64(i + 1)
				table := []string{"T1", "T2", "T3"}[i%3]
				if _, err := l.BookBets(ctx, Bets{Pool: "arica", Table: table, Round: r, Seq: 2 * r, At: at, Stakes: []progressive.Stake{{Seat: 1, Amount: 500}}}); err != nil {
					b.Fatal(err)
				}
				if _, err := l.BookHands(ctx, Hands{Pool: "arica", Table: table, Round: r, Seq: 2*r + 1, At: at, Bets: []progressive.Bet{{Seat: 1, Amount: 500, Cards: hand}}}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(2*b.N)/b.Elapsed().Seconds(), "bookings/s")
		})
	}
}
