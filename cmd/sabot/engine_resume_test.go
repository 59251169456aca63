package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
)

type countPub struct{ n int }

func (p *countPub) Publish(context.Context, string, []byte, byte, bool) error { p.n++; return nil }

// An engine killed after journaling part of a round's outputs follows the round again when it
// restarts: the outputs already journaled are not journaled (nor published) twice, the rest are.
func TestEngineResumeNoDuplicates(t *testing.T) {
	path := filepath.Join(t.TempDir(), "engine.db")
	out := func(typ tablebus.Type, ref uint64) tablebus.Event {
		return tablebus.Event{Type: typ, Round: 7, Ref: ref, TS: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	}
	run := func(j *journal.Journal, pub *countPub) *engineRun {
		e := &engineRun{j: j, client: pub, topic: "t", id: "engine.E1", table: "T1", session: 1, quiet: true,
			stdout: io.Discard, log: slog.New(slog.DiscardHandler)}
		if err := e.resume(context.Background()); err != nil {
			t.Fatal(err)
		}
		return e
	}
	j, _ := journal.Open(path, "T1")
	first := run(j, &countPub{})
	for _, o := range []tablebus.Event{out(tablebus.Guide, 9), out(tablebus.RoundResult, 10), out(tablebus.RoundSettled, 10)} {
		if err := first.emit(o); err != nil {
			t.Fatal(err)
		}
	} // killed here, before the guidance that follows the settlement
	j.Close()

	j, _ = journal.Open(path, "T1")
	defer j.Close()
	pub := &countPub{}
	again := run(j, pub)
	for _, o := range []tablebus.Event{out(tablebus.Guide, 9), out(tablebus.RoundResult, 10), out(tablebus.RoundSettled, 10),
		out(tablebus.Guide, 10), out(tablebus.RoundOpened, 11)} {
		if err := again.emit(o); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	j.Range(context.Background(), 1, j.NextSeq(), func(r journal.Record) error {
		var e tablebus.Event
		json.Unmarshal(r.Secure, &e)
		got = append(got, string(e.Type))
		return nil
	})
	want := []string{"guide", "round.result", "round.settled", "guide", "round.opened"}
	if len(got) != len(want) || pub.n != 2 {
		t.Fatalf("journal %v (want %v); %d published after the restart, want 2", got, want, pub.n)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("journal %v, want %v", got, want)
		}
	}
}
