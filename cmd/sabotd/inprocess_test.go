package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRunInProcess runs the daemon's run() in this process (so that `go test -race` sees every
// goroutine of the daemon): two simulated shoes with misreads, then a restart that is cancelled
// in the middle of a shoe, then a restart that finishes it.
func TestRunInProcess(t *testing.T) {
	dir := t.TempDir()
	args := func(shoes string) []string {
		return []string{"--sim", "--shoe", "reader", "--sim-seed", "2", "--sim-pace", "0s", "--sim-shoes", shoes,
			"--sim-misread-every", "50", "--listen", "127.0.0.1:0", "--journal", filepath.Join(dir, "T1.db"), "--log-level", "warn"}
	}
	var out, errb bytes.Buffer
	if err := run(context.Background(), args("2"), &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if n := strings.Count(out.String(), "accounting OK"); n != 2 {
		t.Fatalf("%d shoes balanced:\n%s", n, tail(out.String(), 20))
	}
	// Stopped in the middle of the third shoe.
	ctx, cancel := context.WithCancel(context.Background())
	live := syncBuffer{more: make(chan struct{}, 1)}
	done := make(chan error, 1)
	go func() { done <- run(ctx, args("1"), &live, &errb) }()
	deadline := time.NewTimer(time.Minute)
	defer deadline.Stop()
	for !strings.Contains(live.String(), "→") {
		select {
		case <-live.more:
		case <-deadline.C:
			t.Fatalf("the third shoe never dealt:\n%s", live.String())
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// The next start stands where that one stopped and finishes the shoe.
	out.Reset()
	if err := run(context.Background(), args("1"), &out, &errb); err != nil {
		t.Fatalf("%v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "shoe T1-000003 ended") || !strings.Contains(out.String(), "accounting OK") {
		t.Fatalf("the restarted daemon did not finish shoe 3:\n%s", tail(out.String(), 20))
	}
}

// syncBuffer is a bytes.Buffer safe to read while the daemon writes it.
type syncBuffer struct {
	mu   sync.Mutex
	b    bytes.Buffer
	more chan struct{} // if not nil, signalled at each write
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.more != nil {
		select {
		case s.more <- struct{}{}:
		default:
		}
	}
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
