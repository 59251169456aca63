package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/cmd/internal/progressive"
	gp "github.com/sabot-tables/sabot/games/progressive"
	"github.com/sabot-tables/sabot/games/progressive/ledger"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/keystore"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
)

// TestRunInProcessProgressive runs a Caribbean stud daemon with its pool's controller, both in
// this process (so that `go test -race` sees the daemon's progressive link): thirty shoes with
// the progressive, every round with progressive bets booked and awarded, and the pool agrees
// with the table's journal.
func TestRunInProcessProgressive(t *testing.T) {
	dir := t.TempDir()
	br := mosquittotest.Start(t, mosquittotest.Options{Extra: "set_tcp_nodelay true\n"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	jpath := filepath.Join(dir, "T1.db")
	done := make(chan error, 1)
	var errb syncBuffer
	go func() {
		done <- run(ctx, []string{"--sim", "--shoe", "reader", "--sim-seed", "5", "--sim-pace", "0s", "--sim-shoes", "30", "--game", "caribbean-stud",
			"--mqtt", br.URL(), "--journal", jpath, "--quiet", "--log-level", "warn", "--progressive-pool", "arica", "--progressive-wait", "20s",
			"--require-ack", keystore.DevProgressiveName}, &syncBuffer{}, &errb)
	}()
	keys := filepath.Join(dir, "keys")
	// The daemon writes the development keys at its start: the controller reads them.
	poll, deadline := time.NewTicker(10*time.Millisecond), time.After(30*time.Second)
	defer poll.Stop()
	for _, err := os.Stat(filepath.Join(keys, keystore.DevKeyring)); err != nil; _, err = os.Stat(filepath.Join(keys, keystore.DevKeyring)) {
		select {
		case <-poll.C:
		case <-deadline:
			t.Fatal("no development keys")
		}
	}
	signer, kr, err := keystore.DevController(keys)
	if err != nil {
		t.Fatal(err)
	}
	l, err := ledger.Open(ctx, filepath.Join(dir, "progressive.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := l.Configure(ctx, ledger.Pool{Config: gp.Config{Pool: "arica", Base: 100_000, Share: 7000, Prizes: gp.DefaultTable(),
		MagicCard: 5_000, LuckyPlayer: 2_500, RandomOdds: 5, HouseCover: true}, Tables: []string{"T1"}}); err != nil {
		t.Fatal(err)
	}
	cctx, stopController := context.WithCancel(ctx)
	cdone := make(chan error, 1)
	go func() {
		cdone <- progressive.Run(cctx, progressive.Options{ID: keystore.DevProgressiveName, Ledger: l, Signer: signer, Keyring: kr, URL: br.URL(), Window: 20 * time.Millisecond})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("%v\n%s", err, errb.String())
		}
	case <-time.After(5 * time.Minute):
		t.Fatalf("the daemon did not finish its shoes:\n%s", errb.String())
	}
	stopController()
	if err := <-cdone; err != nil {
		t.Fatal(err)
	}
	j, err := journal.OpenReadOnly(jpath)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	var bets, hands, awards int
	var turnover, paid int64
	j.Range(ctx, 1, j.NextSeq(), func(r journal.Record) error {
		var e tablebus.Event
		json.Unmarshal(r.Secure, &e)
		switch e.Type {
		case tablebus.ProgressiveBet:
			bets++
		case tablebus.ProgressiveHand:
			hands++
			for _, c := range e.Claims {
				if !c.Void {
					turnover += c.Amount
				}
			}
		case tablebus.ProgressiveAward:
			awards++
			for _, p := range e.Payouts {
				paid += p.Amount
			}
		}
		return nil
	})
	m, err := l.Meter(ctx, "arica")
	if err != nil {
		t.Fatal(err)
	}
	if bets < 10 || hands != bets || awards != hands || m.Turnover != turnover || m.Paid != paid {
		t.Errorf("journal: %d bets, %d hands, %d awards, turnover %d, paid %d; the pool %+v", bets, hands, awards, turnover, paid, m)
	}
	if err := l.Verify(ctx, "arica"); err != nil {
		t.Error(err)
	}
}
