package main

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
)

// TestEngineKilled kills the separate engine process (SIGKILL) at random points while the table
// deals, and starts it again on its journal: it follows again from its last round boundary, and
// must never journal (nor publish) a round's result or settlement twice.
func TestEngineKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-o", dir+"/", "github.com/sabot-tables/sabot/cmd/sabotd", "github.com/sabot-tables/sabot/cmd/sabot").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	br := mosquittotest.Start(t, mosquittotest.Options{Extra: "max_queued_messages 100000\nset_tcp_nodelay true\n"})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	daemon := exec.CommandContext(ctx, filepath.Join(dir, "sabotd"), "--sim", "--shoe", "reader", "--sim-seed", "4", "--sim-shoes", "2",
		"--sim-pace", "2ms", "--mqtt", br.URL(), "--journal", filepath.Join(dir, "T1.db"), "--quiet", "--log-level", "error",
		"--require-ack", "engine.E1")
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- daemon.Wait() }()
	engJournal := filepath.Join(dir, "engine.db")
	engine := func() *exec.Cmd {
		cmd := exec.CommandContext(ctx, filepath.Join(dir, "sabot"), "engine", "--game", "punto-banco", "--table", "T1", "--id", "engine.E1",
			"--mqtt", br.URL(), "--journal", engJournal, "--quiet")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	rng := newTestRand()
	for k := 0; k < 6; k++ {
		cmd := engine()
		time.Sleep(time.Duration(300+rng.IntN(700)) * time.Millisecond)
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	final := engine()
	defer func() { final.Process.Signal(syscall.SIGTERM); final.Wait() }()
	if err := <-done; err != nil {
		t.Fatalf("sabotd: %v", err)
	}
	time.Sleep(3 * time.Second) // the engine catches up with the end of the shoe
	final.Process.Signal(syscall.SIGTERM)
	final.Wait()

	j, err := journal.OpenReadOnly(engJournal)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	settled := map[uint64]int{}
	results := map[uint64]int{}
	j.Range(context.Background(), 1, j.NextSeq(), func(r journal.Record) error {
		var e tablebus.Event
		if json.Unmarshal(r.Secure, &e) == nil {
			switch e.Type {
			case tablebus.RoundSettled:
				settled[e.Round]++
			case tablebus.RoundResult:
				results[e.Round]++
			}
		}
		return nil
	})
	if len(settled) < 10 {
		t.Fatalf("the engine settled only %d rounds", len(settled))
	}
	for r, n := range settled {
		if n != 1 || results[r] != 1 {
			t.Errorf("round %d: %d settlements, %d results in the engine's journal", r, n, results[r])
		}
	}
}

func newTestRand() *rand.Rand { return rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 7)) }
