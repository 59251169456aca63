package main

import (
	"bytes"
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/consumer"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/mosquittotest"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// TestDaemonKilled runs the real daemon (sabotd --sim) against a real mosquitto with a separate
// `sabot engine` process, kills the daemon with SIGKILL at random points ten times and starts it
// again on its journal, and checks that a verifying consumer's record is the daemon's journal,
// every event once, in order, byte for byte, and that the engine raised no bus alarm. (The
// simulated shoe lives in the daemon's process: after a kill it is rebuilt from the journal, so
// the cards differ from an uninterrupted run's; tablebus/outbox's TestKilled100Times compares
// with an uninterrupted run, with a world that survives the kills.)
func TestDaemonKilled(t *testing.T) {
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

	// The recorder: the consumer of tablebus, as surveillance would run it.
	var mu sync.Mutex
	var got []consumer.Delivery
	var alarms []string
	more := make(chan struct{}, 1) // a delivery since the last look
	received := func() int { mu.Lock(); defer mu.Unlock(); return len(got) }
	// waitReceived waits until the recorder has n events, or fails after limit.
	waitReceived := func(n int, limit time.Duration) {
		t.Helper()
		deadline := time.NewTimer(limit)
		defer deadline.Stop()
		for received() < n {
			select {
			case <-more:
			case <-deadline.C:
				t.Fatalf("the recorder has %d events of %d after %v", received(), n, limit)
			}
		}
	}
	c, err := consumer.New(consumer.Options{ID: "surveillance.rec", Tables: []string{"T1"}, Feed: tablebus.Secure,
		Ack: consumer.AckDelivered, From: map[string]uint64{"T1": 0}})
	if err != nil {
		t.Fatal(err)
	}
	cl, err := mqttbus.Connect(ctx, mqttbus.Options{URL: br.URL(), ClientID: "recorder"})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var engineAck atomic.Uint64 // the engine's acknowledgement: how far it has followed
	if err := cl.Subscribe(ctx, tablebus.Topics{Table: "T1"}.Ack("engine.E1"), 1, func(m mqttbus.Message) {
		if a, err := tablebus.DecodeAck(m.Topic, m.Payload); err == nil {
			engineAck.Store(max(engineAck.Load(), a.Seq))
		}
	}); err != nil {
		t.Fatal(err)
	}
	engAlarms := &bytes.Buffer{}
	var emu sync.Mutex
	if err := cl.Subscribe(ctx, "sabot/v1/T1/secure/engine/+", 1, func(m mqttbus.Message) {
		if e, err := tablebus.Decode(m.Payload); err == nil && e.Type == tablebus.Fault && strings.HasPrefix(e.Code, "bus-") {
			emu.Lock()
			engAlarms.WriteString(e.Problem + "\n")
			emu.Unlock()
		}
	}); err != nil {
		t.Fatal(err)
	}
	go c.Run(ctx, cl, consumer.Funcs{
		OnEvent: func(d consumer.Delivery) error {
			mu.Lock()
			got = append(got, d)
			mu.Unlock()
			select {
			case more <- struct{}{}:
			default:
			}
			return nil
		},
		OnAlarm: func(a consumer.Alarm) { mu.Lock(); alarms = append(alarms, a.String()); mu.Unlock() },
	})

	engine := exec.CommandContext(ctx, filepath.Join(dir, "sabot"), "engine", "--game", "punto-banco", "--table", "T1", "--id", "engine.E1",
		"--mqtt", br.URL(), "--journal", filepath.Join(dir, "engine.db"), "--quiet")
	var engineErr bytes.Buffer
	engine.Stderr = &engineErr
	if err := engine.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { engine.Process.Signal(os.Interrupt); engine.Wait() }()

	jpath := filepath.Join(dir, "T1.db")
	daemon := func() *exec.Cmd {
		cmd := exec.Command(filepath.Join(dir, "sabotd"), "--sim", "--shoe", "reader", "--sim-seed", "3", "--sim-shoes", "1", "--sim-pace", "5ms",
			"--mqtt", br.URL(), "--journal", jpath, "--table", "T1", "--game", "punto-banco", "--quiet", "--log-level", "error",
			"--require-ack", "engine.E1,surveillance.rec")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	// Each run is killed once the recorder has received 0 to 149 more events (0: while the
	// daemon starts): kills land on a daemon at work, however loaded the machine.
	rng := rand.New(rand.NewPCG(3, 3))
	for range 10 {
		at := received() + rng.IntN(150)
		d := daemon()
		waitReceived(at, time.Minute)
		d.Process.Signal(syscall.SIGKILL)
		d.Wait()
	}
	d := daemon()
	if err := d.Wait(); err != nil {
		t.Fatalf("the last run of sabotd: %v", err)
	}
	j, err := journal.OpenReadOnly(jpath)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	last := j.NextSeq() - 1
	waitReceived(int(last), 30*time.Second)
	// The engine has followed to the end: any bus alarm it raised is in.
	eventually(t, "the engine's acknowledgement of the last event", 30*time.Second, func() bool { return engineAck.Load() >= last })
	mu.Lock()
	defer mu.Unlock()
	for _, a := range alarms {
		t.Errorf("alarm: %s", a)
	}
	if uint64(len(got)) != last {
		t.Fatalf("the consumer has %d events, the journal %d", len(got), last)
	}
	i := 0
	if err := j.Range(ctx, 1, last, func(r journal.Record) error {
		if got[i].Seq != r.Seq || !bytes.Equal(got[i].Payload, r.SecureWire) {
			t.Fatalf("event %d: the consumer's payload is not the journal's", r.Seq)
		}
		i++
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	emu.Lock()
	defer emu.Unlock()
	if engAlarms.Len() > 0 {
		t.Errorf("the engine raised bus alarms:\n%s", engAlarms)
	}
	t.Logf("10 kills; %d events, every one received once and in order", last)
}
