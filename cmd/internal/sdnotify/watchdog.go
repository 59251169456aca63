package sdnotify

import (
	"context"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"
)

// Sender sends notifications: *Notifier does.
type Sender interface {
	Notify(states ...string) error
}

// Watchdog pings the service manager while every heartbeat is fresh.
type Watchdog struct {
	every time.Duration
	send  Sender
	log   *slog.Logger

	// OnPing is called after each WATCHDOG=1 sent; OnStall when a heartbeat goes stale (true)
	// or fresh again (false). Set them before Run.
	OnPing  func()
	OnStall func(name, why string, stalled bool)

	mu    sync.Mutex
	beats []*Heartbeat
}

// NewWatchdog returns a watchdog that checks its heartbeats and pings every `every` (a third of
// systemd's WatchdogSec is usual). send may be nil (no service manager): the heartbeats are
// still checked and stalls reported.
func NewWatchdog(every time.Duration, send Sender, log *slog.Logger) *Watchdog {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if send == nil {
		send = (*Notifier)(nil)
	}
	return &Watchdog{every: every, send: send, log: log}
}

// Heartbeat is one loop's sign of life.
type Heartbeat struct {
	name   string
	budget time.Duration

	mu        sync.Mutex
	last      time.Time
	busyUntil time.Time
	busyWhat  string
}

// Heartbeat adds a loop that must beat at least every budget (it starts fresh).
func (w *Watchdog) Heartbeat(name string, budget time.Duration) *Heartbeat {
	h := &Heartbeat{name: name, budget: budget, last: time.Now()}
	w.mu.Lock()
	w.beats = append(w.beats, h)
	w.mu.Unlock()
	return h
}

// Beat says the loop is alive now, and ends a Busy period.
func (h *Heartbeat) Beat() {
	h.mu.Lock()
	h.last, h.busyUntil, h.busyWhat = time.Now(), time.Time{}, ""
	h.mu.Unlock()
}

// Busy says the loop is in a bounded operation (what) that may keep it from beating for up to d.
func (h *Heartbeat) Busy(what string, d time.Duration) {
	h.mu.Lock()
	h.last, h.busyUntil, h.busyWhat = time.Now(), time.Now().Add(d), what
	h.mu.Unlock()
}

// State is a heartbeat as the watchdog sees it.
type State struct {
	Name     string
	Stalled  bool
	Busy     string // the bounded operation in progress, if any
	LastBeat time.Time
	Why      string // for a stalled loop
}

func (h *Heartbeat) state(now time.Time) State {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := State{Name: h.name, LastBeat: h.last}
	switch {
	case now.Before(h.busyUntil):
		s.Busy = h.busyWhat
	case !h.busyUntil.IsZero():
		s.Stalled = true
		s.Why = fmt.Sprintf("%s: %s did not end within %s", h.name, h.busyWhat, h.busyUntil.Sub(h.last).Round(time.Second))
	case now.Sub(h.last) > h.budget:
		s.Stalled = true
		s.Why = fmt.Sprintf("%s: no sign of life for %s (at most %s allowed)", h.name, now.Sub(h.last).Round(time.Second), h.budget)
	}
	return s
}

// States returns every heartbeat's state now, by name.
func (w *Watchdog) States() []State {
	w.mu.Lock()
	beats := append([]*Heartbeat(nil), w.beats...)
	w.mu.Unlock()
	now := time.Now()
	out := make([]State, len(beats))
	for i, h := range beats {
		out[i] = h.state(now)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Run checks the heartbeats every period until ctx is done: WATCHDOG=1 while all are fresh;
// at the first stale one, a STATUS= line naming it and WATCHDOG=trigger, and no more pings
// until every loop is fresh again.
func (w *Watchdog) Run(ctx context.Context) error {
	t := time.NewTicker(w.every)
	defer t.Stop()
	stalled := map[string]bool{}
	for {
		var why []string
		for _, s := range w.States() {
			if s.Stalled != stalled[s.Name] {
				stalled[s.Name] = s.Stalled
				if w.OnStall != nil {
					w.OnStall(s.Name, s.Why, s.Stalled)
				}
				if s.Stalled {
					w.log.Error("watchdog: a loop is stalled; asking systemd to restart the daemon", "loop", s.Name, "why", s.Why)
				} else {
					w.log.Warn("watchdog: the loop is alive again", "loop", s.Name)
				}
			}
			if s.Stalled {
				why = append(why, s.Why)
			}
		}
		if len(why) == 0 {
			if err := w.send.Notify(WatchdogPing); err != nil {
				w.log.Warn("watchdog ping", "err", err)
			} else if w.OnPing != nil {
				w.OnPing()
			}
		} else {
			if err := w.send.Notify(Status("stalled: "+strings.Join(why, "; ")), WatchdogTrigger); err != nil {
				w.log.Warn("watchdog trigger", "err", err)
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}
