package main

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// TestEngineKilled kills the separate engine process (SIGKILL) at random points while the table
// deals, and starts it again on its journal: it follows again from its last round boundary, and
// must never journal (nor publish) a round's result or settlement twice. Each run is killed
// once its acknowledgement has moved 0 to 149 events past where it started (0: while it
// starts); the last run follows until it has passed the table's last event at the last kill.
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

	// How far the table and the engine are: the secure feed's last event, the engine's ack.
	spy, err := mqttbus.Connect(ctx, mqttbus.Options{URL: br.URL(), ClientID: "spy"})
	if err != nil {
		t.Fatal(err)
	}
	defer spy.Close()
	var tableSeq, engineAck atomic.Uint64
	topics := tablebus.Topics{Table: "T1"}
	if err := spy.Subscribe(ctx, topics.SecureEvents(), 1, func(m mqttbus.Message) {
		if e, err := tablebus.Decode(m.Payload); err == nil {
			tableSeq.Store(max(tableSeq.Load(), e.Seq))
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := spy.Subscribe(ctx, topics.Ack("engine.E1"), 1, func(m mqttbus.Message) {
		if a, err := tablebus.DecodeAck(m.Topic, m.Payload); err == nil {
			engineAck.Store(max(engineAck.Load(), a.Seq))
		}
	}); err != nil {
		t.Fatal(err)
	}

	// The table deals until the test stops it (--sim-shoes 0).
	daemon := exec.CommandContext(ctx, filepath.Join(dir, "sabotd"), "--sim", "--shoe", "reader", "--sim-seed", "4", "--sim-shoes", "0",
		"--sim-pace", "2ms", "--mqtt", br.URL(), "--journal", filepath.Join(dir, "T1.db"), "--quiet", "--log-level", "error",
		"--require-ack", "engine.E1")
	if err := daemon.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { daemon.Process.Signal(syscall.SIGTERM); daemon.Wait() }()
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
		at := engineAck.Load() + uint64(rng.IntN(150))
		cmd := engine()
		eventually(t, "the engine following", time.Minute, func() bool { return engineAck.Load() >= at })
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	final := engine()
	defer func() { final.Process.Signal(syscall.SIGTERM); final.Wait() }()
	// Past the last kill: the rounds it replayed from its journal's round boundary, then live.
	at := tableSeq.Load() + 1
	eventually(t, "the last engine past the table's event at the last kill", time.Minute, func() bool { return engineAck.Load() >= at })
	final.Process.Signal(syscall.SIGTERM)
	final.Wait()
	daemon.Process.Signal(syscall.SIGTERM)
	if err := daemon.Wait(); err != nil {
		t.Fatalf("sabotd: %v", err)
	}

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
