package ledger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/games/progressive"
	"github.com/sabot-tables/sabot/shoe/card"
)

var at = time.Date(2026, 3, 1, 21, 30, 0, 0, time.UTC)

func config() progressive.Config {
	return progressive.Config{Pool: "arica", Base: 1_000_000, Share: 7000,
		Reserves: []progressive.Reserve{{Name: "reserve", Share: 2000}}, Prizes: progressive.DefaultTable()}
}

func cards(t *testing.T, s string) []card.Card {
	t.Helper()
	cs, err := card.ParseList(s)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func open(t *testing.T, path string, cfg progressive.Config) *Ledger {
	t.Helper()
	l, err := Open(path, cfg, rand.NewChaCha8([32]byte{8}))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func state(t *testing.T, l *Ledger) string {
	t.Helper()
	st, err := l.State(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(st)
	return string(b)
}

// TestSurvivesRestartAndNeverAppliesABetTwice settles a round, retries it, closes and reopens the
// ledger, retries again, and checks the pool moved once.
func TestSurvivesRestartAndNeverAppliesABetTwice(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pool.db")
	l := open(t, path, config())
	r := progressive.Round{Table: "T1", Round: "R1", Bets: []progressive.Bet{
		{Seat: 2, Amount: 500, Cards: cards(t, "2c 2d 2h 2s 3c")}, // four of a kind: 100 × 500
		{Seat: 5, Amount: 1000, Cards: cards(t, "Ah Kd 9s 4c 3h")},
	}}
	first, err := l.Settle(ctx, r, at)
	if err != nil {
		t.Fatal(err)
	}
	// Feeds: 350 (70 reserve, 280 main) and 700 (140, 560): main 1,000,840, reserve 210.
	// Seat 2's 50,000 from main: 950,840; refill 210 from the reserve, 48,950 from the house.
	want := `{"main":1000000,"reserves":{"reserve":0},"commission":450,"funded":1048950,"rounds":1}`
	if got := state(t, l); got != want {
		t.Fatalf("state %s, want %s", got, want)
	}
	again, err := l.Settle(ctx, r, at.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if a, b := mustJSON(t, first), mustJSON(t, again); a != b {
		t.Errorf("retry gave %s, first %s", b, a)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l = open(t, path, config())
	defer l.Close()
	if got := state(t, l); got != want {
		t.Fatalf("after reopening: state %s, want %s", got, want)
	}
	if _, err := l.Settle(ctx, r, at); err != nil {
		t.Fatal(err)
	}
	if got := state(t, l); got != want {
		t.Fatalf("retry after reopening moved the pool: %s", got)
	}
	r.Bets[1].Amount = 2000
	if _, err := l.Settle(ctx, r, at); !errors.Is(err, ErrConflict) {
		t.Fatalf("different bets under the same round: %v", err)
	}
	if err := l.Verify(ctx); err != nil {
		t.Fatal(err)
	}
	rec, ok, err := l.Round(ctx, "T1", "R1")
	if err != nil || !ok || mustJSON(t, rec) != mustJSON(t, first) {
		t.Fatalf("recorded round: %v %v", ok, err)
	}
}

func mustJSON(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRandomPrizeDrawnOnce: the random prize is drawn in the transaction and a retry returns the
// recorded draw, whatever the randomness says then.
func TestRandomPrizeDrawnOnce(t *testing.T) {
	ctx := context.Background()
	cfg := config()
	cfg.LuckyPlayer, cfg.RandomOdds = 20_000, 1 // a draw every round
	path := filepath.Join(t.TempDir(), "pool.db")
	l := open(t, path, cfg)
	r := progressive.Round{Table: "T1", Round: "R9", Bets: []progressive.Bet{
		{Seat: 1, Amount: 500, Cards: cards(t, "Ah Kd 9s 4c 3h")}, {Seat: 3, Amount: 500, Cards: cards(t, "Ac Kc 9d 4d 2h")}}}
	first, err := l.Settle(ctx, r, at)
	if err != nil {
		t.Fatal(err)
	}
	if first.Draw == nil || first.Draw.Kind != progressive.LuckyPlayer || len(first.Payouts) != 1 || first.Payouts[0].Amount != 20_000 {
		t.Fatalf("draw %+v payouts %+v", first.Draw, first.Payouts)
	}
	l.Close()
	for i := range 5 {
		l2, err := Open(path, cfg, rand.NewChaCha8([32]byte{byte(i + 100)}))
		if err != nil {
			t.Fatal(err)
		}
		again, err := l2.Settle(ctx, r, at)
		l2.Close()
		if err != nil || *again.Draw != *first.Draw {
			t.Fatalf("retry %d drew %+v, first %+v (%v)", i, again.Draw, first.Draw, err)
		}
	}
	r.Draw = &progressive.Drawn{Kind: progressive.LuckyPlayer, Seat: 1}
	if _, err := l.Settle(ctx, progressive.Round{Table: "T1", Round: "R10", Bets: r.Bets, Draw: r.Draw}, at); err == nil {
		t.Error("a round with its own draw was accepted")
	}
}

// TestTablesShareThePool: two tables' controllers, each with its own connection to the same file,
// settle rounds at once; the pool ends as if they had gone one after the other.
func TestTablesShareThePool(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pool.db")
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for _, table := range []string{"T1", "T2"} {
		l := open(t, path, config())
		defer l.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 40 {
				r := progressive.Round{Table: table, Round: fmt.Sprint(i), Bets: []progressive.Bet{
					{Seat: 1, Amount: 1000, Cards: []card.Card{card.MustParse("Ah"), card.MustParse("Kd"), card.MustParse("9s"), card.MustParse("4c"), card.MustParse("3h")}}}}
				if _, err := l.Settle(ctx, r, at); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	l := open(t, path, config())
	defer l.Close()
	// 80 bets of 1,000: 700 each to the pools (140 reserve, 560 main), 300 commission.
	want := `{"main":1044800,"reserves":{"reserve":11200},"commission":24000,"funded":1000000,"rounds":80}`
	if got := state(t, l); got != want {
		t.Fatalf("state %s, want %s", got, want)
	}
	if err := l.Verify(ctx); err != nil {
		t.Fatal(err)
	}
}

func TestConfigChangeKeepsThePool(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "pool.db")
	l := open(t, path, config())
	if _, err := l.Settle(ctx, progressive.Round{Table: "T", Round: "1", Bets: []progressive.Bet{{Seat: 1, Amount: 1000, Cards: cards(t, "Ah Kd 9s 4c 3h")}}}, at); err != nil {
		t.Fatal(err)
	}
	before := state(t, l)
	l.Close()
	cfg := config()
	cfg.Share = 8000
	l = open(t, path, cfg)
	defer l.Close()
	if got := state(t, l); got != before {
		t.Errorf("state after a configuration change: %s, want %s", got, before)
	}
	var n int
	if err := l.db.QueryRow("SELECT COUNT(*) FROM entries WHERE kind = 'config'").Scan(&n); err != nil || n != 1 {
		t.Errorf("config entries: %d, %v", n, err)
	}
}

func TestOpenRefusesADamagedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pool.db")
	if err := os.WriteFile(path, []byte("this is not an SQLite database, it is a note about one"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, config(), nil); err == nil {
		t.Fatal("opened a file that is not a ledger")
	}
	bad := config()
	bad.Base = 0
	if _, err := Open(filepath.Join(t.TempDir(), "x.db"), bad, nil); !errors.Is(err, progressive.ErrConfig) {
		t.Fatalf("bad config: %v", err)
	}
}
