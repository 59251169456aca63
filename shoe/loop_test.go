package shoe_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// stuckShuffler verifies a load at once and shuffles until it is stopped, as a shuffler
// mid-shuffle when the daemon is told to stop.
type stuckShuffler struct{ shuffling chan struct{} }

func (s stuckShuffler) LoadVerify(context.Context) (card.Counts, error) { return card.Decks(1), nil }
func (s stuckShuffler) Shuffle(ctx context.Context, _ int) (int, error) {
	close(s.shuffling)
	<-ctx.Done()
	return 0, ctx.Err()
}
func (s stuckShuffler) Count(ctx context.Context) (card.Counts, error) {
	return card.Counts{}, ctx.Err()
}

type eventSink struct {
	mu  sync.Mutex
	evs []tablebus.Event
}

func (s *eventSink) Emit(_ context.Context, _ []byte, evs []tablebus.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.evs = append(s.evs, evs...)
	return nil
}

// TestStopDuringShuffle: a stop that interrupts the shuffler is not a device fault: nothing is
// journaled or logged as an error, and the shoe stays verified, to shuffle after the restart.
// (CI found it: SIGTERM mid-shuffle logged "device fault: SHUFFLE: context canceled".)
func TestStopDuringShuffle(t *testing.T) {
	m := machineWith(t, "three-card-poker", nil)
	var logs bytes.Buffer
	sink := &eventSink{}
	sh := stuckShuffler{shuffling: make(chan struct{})}
	loop := shoe.NewLoop(m, sh, sink, slog.New(slog.NewJSONHandler(&logs, nil)))
	loop.Now = func() time.Time { return t0 }
	ctx, stop := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- loop.Run(ctx) }()
	did := make(chan error, 1)
	go func() { did <- loop.Do(context.Background(), shoe.StartShoe{By: "supervisor.S1"}) }()
	<-sh.shuffling
	stop()
	if err := <-ran; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if err := <-did; !errors.Is(err, context.Canceled) {
		t.Errorf("StartShoe: %v, want the stop's context.Canceled", err)
	}
	for _, ev := range sink.evs {
		if ev.Type == tablebus.Fault {
			t.Errorf("a fault journaled for the stop: %+v", ev)
		}
	}
	if strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Errorf("an error logged for the stop:\n%s", logs.String())
	}
	if m.Phase() != shoe.Verified {
		t.Errorf("phase after the stop %s, want %s (to shuffle after the restart)", m.Phase(), shoe.Verified)
	}
}
