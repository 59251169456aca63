package shuffler_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/driver/shuffler"
	"github.com/sabot-tables/sabot/driver/shuffler/shufflertest"
	"github.com/sabot-tables/sabot/shoe/card"
)

// decks returns n complete decks in order, as they come out of their boxes.
func decks(n int) []card.Card {
	var out []card.Card
	for range n {
		out = append(out, card.Deck()...)
	}
	return out
}

func newPair(t *testing.T, so shufflertest.Opts, do shuffler.Opts) (*shufflertest.Sim, *shuffler.Dev) {
	t.Helper()
	sim, err := shufflertest.NewSim(so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	if do.AckTimeout == 0 {
		do.AckTimeout = 100 * time.Millisecond
	}
	if do.BackoffMax == 0 {
		do.BackoffMax = 200 * time.Millisecond
	}
	dev, err := shuffler.Open(sim.Port(), do)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return sim, dev
}

func ctxT(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// waitEvent returns the first event of kind k, failing after d.
func waitEvent(t *testing.T, dev *shuffler.Dev, k shuffler.EventKind, d time.Duration) shuffler.Event {
	t.Helper()
	timeout := time.After(d)
	for {
		select {
		case e := <-dev.Events():
			if e.Kind == k {
				return e
			}
		case <-timeout:
			t.Fatalf("no %v event within %v", k, d)
		}
	}
}

func TestStatusSelfTestAndString(t *testing.T) {
	sim, dev := newPair(t, shufflertest.Opts{Seed: 1, Serial: "SM-42"}, shuffler.Opts{})
	sim.Insert(decks(1))
	st, err := dev.Status(ctxT(t, 5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	want := shuffler.Status{State: shuffler.Idle, InputCards: 52, Serial: "SM-42", Firmware: "sabot-sim 1"}
	if st != want {
		t.Fatalf("status %+v, want %+v", st, want)
	}
	res, err := dev.SelfTest(ctxT(t, 5*time.Second))
	if err != nil || !res.Passed || res.Text != "all sensors and motors pass" {
		t.Fatalf("self-test %+v %v", res, err)
	}
	sim.OpenDoor()
	res, err = dev.SelfTest(ctxT(t, 5*time.Second))
	if err != nil || res.Passed || res.Code != shuffler.CodeDoorOpen {
		t.Fatalf("self-test with the door open: %+v %v", res, err)
	}
	if got := dev.String(); got != "shuffler on "+sim.Port() {
		t.Fatalf("String() = %q", got)
	}
}

func TestLoadVerifyShuffleTakeOutput(t *testing.T) {
	sim, dev := newPair(t, shufflertest.Opts{Seed: 7}, shuffler.Opts{})
	sim.Insert(decks(8))
	ctx := ctxT(t, 10*time.Second)
	got, err := dev.LoadVerify(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if d := card.Diff(card.Decks(8), got); len(d) != 0 {
		t.Fatalf("load: %s", card.DescribeDiff(d))
	}
	rep, err := dev.Shuffle(ctx, shuffler.Program{Decks: 8, ReportOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cards != 416 || len(rep.Order) != 416 {
		t.Fatalf("report: %v with %d in order", rep, len(rep.Order))
	}
	if e := waitEvent(t, dev, shuffler.ShuffleDone, 2*time.Second); e.Cards != 416 {
		t.Fatalf("event %v", e)
	}
	out := sim.TakeOutput()
	if len(out) != 416 {
		t.Fatalf("output %d cards", len(out))
	}
	for i := range out {
		if out[i] != rep.Order[i] {
			t.Fatalf("order reported differs from the pack at %d: %v vs %v", i, rep.Order[i], out[i])
		}
	}
	if card.CountOf(out) != card.Decks(8) {
		t.Fatal("the pack is not 8 decks")
	}
	if sim.TakeOutput() != nil {
		t.Fatal("the output tray is not empty after TakeOutput")
	}
}

// TestSeedIsDeterministic: the same seed gives the same order; another seed another.
func TestSeedIsDeterministic(t *testing.T) {
	order := func(seed uint64) []card.Card {
		sim, dev := newPair(t, shufflertest.Opts{Seed: seed}, shuffler.Opts{})
		sim.Insert(decks(1))
		if _, err := dev.Shuffle(ctxT(t, 5*time.Second), shuffler.Program{Decks: 1, Mode: shuffler.DeckPerRound}); err != nil {
			t.Fatal(err)
		}
		return sim.TakeOutput()
	}
	a, b, c := order(3), order(3), order(4)
	same := func(x, y []card.Card) bool {
		for i := range x {
			if x[i] != y[i] {
				return false
			}
		}
		return len(x) == len(y)
	}
	if !same(a, b) {
		t.Fatal("seed 3 gave two orders")
	}
	if same(a, c) {
		t.Fatal("seeds 3 and 4 gave the same order")
	}
}

func TestHandForming(t *testing.T) {
	sim, dev := newPair(t, shufflertest.Opts{Seed: 2}, shuffler.Opts{})
	sim.Insert(decks(1))
	rep, err := dev.Shuffle(ctxT(t, 5*time.Second), shuffler.Program{Decks: 1, Mode: shuffler.HandForming, Hands: 7, CardsPerHand: 7, ReportOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cards != 49 || len(sim.TakeOutput()) != 49 || len(sim.Input()) != 3 {
		t.Fatalf("report %v; 3 cards should stay for the next round, %d do", rep, len(sim.Input()))
	}
}

func TestDeviceFaults(t *testing.T) {
	tests := []struct {
		name   string
		load   []card.Card
		fault  func(*shufflertest.Sim)
		want   error
		event  shuffler.EventKind
		evWant shuffler.Event
		unload int // cards UNLOAD returns: whatever did not reach the output tray
	}{
		{"count mismatch", decks(8)[:415], nil, shuffler.ErrCountMismatch, shuffler.CountMismatch,
			shuffler.Event{Kind: shuffler.CountMismatch, Expected: 416, Cards: 415}, 415},
		{"foreign card", append(decks(8)[:415], card.None), nil, shuffler.ErrCountMismatch, shuffler.CountMismatch,
			shuffler.Event{Kind: shuffler.CountMismatch, Expected: 416, Cards: 415}, 416},
		{"jam", decks(8), func(s *shufflertest.Sim) { s.Jam(17) }, shuffler.ErrJam, shuffler.Jam,
			shuffler.Event{Kind: shuffler.Jam, Cards: 17}, 416},
		{"misfeed", decks(8), func(s *shufflertest.Sim) { s.Misfeed(200) }, shuffler.ErrMisfeed, shuffler.Misfeed,
			shuffler.Event{Kind: shuffler.Misfeed, Cards: 200}, 416},
		{"card lost inside", decks(8), func(s *shufflertest.Sim) { s.LoseCard() }, shuffler.ErrCountMismatch, shuffler.CountMismatch,
			shuffler.Event{Kind: shuffler.CountMismatch, Expected: 416, Cards: 415}, 1},
		{"door open", decks(8), func(s *shufflertest.Sim) { s.OpenDoor() }, shuffler.ErrDoorOpen, shuffler.DoorOpen,
			shuffler.Event{Kind: shuffler.DoorOpen}, 416},
		{"empty tray", nil, nil, shuffler.ErrEmpty, 0, shuffler.Event{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sim, dev := newPair(t, shufflertest.Opts{Seed: 5}, shuffler.Opts{})
			sim.Insert(tt.load)
			if tt.fault != nil {
				tt.fault(sim)
			}
			_, err := dev.Shuffle(ctxT(t, 5*time.Second), shuffler.Program{Decks: 8})
			var de *shuffler.DeviceError
			if !errors.Is(err, tt.want) || !errors.As(err, &de) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if tt.event != 0 {
				if e := waitEvent(t, dev, tt.event, 2*time.Second); e != tt.evWant {
					t.Fatalf("event %+v, want %+v", e, tt.evWant)
				}
			}
			// Nothing is lost: UNLOAD brings back every card that went in.
			sim.ClearJam()
			sim.CloseDoor()
			n, err := dev.Unload(ctxT(t, 5*time.Second))
			if err != nil {
				t.Fatal(err)
			}
			out := sim.TakeOutput()
			if n != tt.unload || len(out) != len(tt.load) || card.CountOf(out) != card.CountOf(tt.load) {
				t.Fatalf("unload %d, output %d cards, loaded %d", n, len(out), len(tt.load))
			}
		})
	}
}

func TestUnreadableOnLoad(t *testing.T) {
	sim, dev := newPair(t, shufflertest.Opts{}, shuffler.Opts{})
	sim.Insert(append(decks(1), card.None))
	got, err := dev.LoadVerify(ctxT(t, 5*time.Second))
	if !errors.Is(err, shuffler.ErrUnreadable) || got != card.Decks(1) {
		t.Fatalf("err %v, counts %s", err, card.DescribeDiff(card.Diff(card.Decks(1), got)))
	}
}

func TestMuteDeviceIsNoAnswer(t *testing.T) {
	sim, dev := newPair(t, shufflertest.Opts{}, shuffler.Opts{AckTimeout: 50 * time.Millisecond, Retries: 2})
	sim.Mute(true)
	start := time.Now()
	_, err := dev.Status(ctxT(t, 5*time.Second))
	if !errors.Is(err, shuffler.ErrNoAnswer) {
		t.Fatalf("err = %v", err)
	}
	if el := time.Since(start); el < 150*time.Millisecond || el > 2*time.Second {
		t.Fatalf("gave up after %v; want about 3 × 50 ms", el)
	}
	if e := waitEvent(t, dev, shuffler.LinkError, time.Second); !errors.Is(e.Err, shuffler.ErrNoAnswer) {
		t.Fatalf("event %v", e)
	}
	sim.Mute(false)
	if _, err := dev.Status(ctxT(t, 5*time.Second)); err != nil {
		t.Fatalf("after unmute: %v", err)
	}
}

func TestOpenNoDevice(t *testing.T) {
	sim, err := shufflertest.NewSim(shufflertest.Opts{})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	sim.Mute(true)
	_, err = shuffler.Open(sim.Port(), shuffler.Opts{AckTimeout: 30 * time.Millisecond, Retries: 1})
	if !errors.Is(err, shuffler.ErrNoAnswer) {
		t.Fatalf("Open on a mute device: %v", err)
	}
	if _, err := shuffler.Open(sim.Port()+".absent", shuffler.Opts{}); err == nil {
		t.Fatal("Open of a missing port succeeded")
	}
}

// TestNoisyLine: with corrupted and dropped bytes both ways, every command completes, none runs
// twice, and the counts are exact.
func TestNoisyLine(t *testing.T) {
	sim, dev := newPair(t, shufflertest.Opts{Seed: 11, AckTimeout: 40 * time.Millisecond, Retries: 5},
		shuffler.Opts{Retries: 8, AckTimeout: 40 * time.Millisecond, Poll: 300 * time.Millisecond})
	noise := shufflertest.LineFaults{Corrupt: 0.01, Drop: 0.005, As: shufflertest.RandomByte}
	sim.SetLineFaults(noise, noise)
	sim.Insert(decks(6))
	ctx := ctxT(t, 60*time.Second)
	const rounds = 8
	for i := range rounds {
		got, err := dev.Count(ctx)
		if err != nil {
			t.Fatalf("count %d: %v", i, err)
		}
		if got != card.Decks(6) {
			t.Fatalf("count %d wrong: %s", i, card.DescribeDiff(card.Diff(card.Decks(6), got)))
		}
	}
	rep, err := dev.Shuffle(ctx, shuffler.Program{Decks: 6, ReportOrder: true})
	if err != nil {
		t.Fatal(err)
	}
	out := sim.TakeOutput()
	for i := range out {
		if out[i] != rep.Order[i] {
			t.Fatalf("order differs at %d", i)
		}
	}
	st := sim.Stats()
	if st.Executed[shuffler.CmdCount] != rounds || st.Executed[shuffler.CmdShuffle] != 1 {
		t.Fatalf("executed %v", st.Executed)
	}
	if st.Line.Corrupted+st.Line.InCorrupted == 0 {
		t.Fatal("the line was not noisy: the test proves nothing")
	}
	t.Logf("line %+v; device resent %d, duplicates %d", st.Line, st.Resent, st.Duplicates)
}

// TestUnplugDuringShuffle: the cable is pulled while the device shuffles; the reply is lost with
// the link. When the port comes back the driver asks again, the device answers from its reply
// cache: the shuffle is recovered and ran once.
func TestUnplugDuringShuffle(t *testing.T) {
	sim, dev := newPair(t, shufflertest.Opts{Seed: 9, CardTime: 2 * time.Millisecond, Retries: 1, AckTimeout: 30 * time.Millisecond}, shuffler.Opts{})
	sim.Insert(decks(1))
	type result struct {
		r   shuffler.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := dev.Shuffle(ctxT(t, 10*time.Second), shuffler.Program{Decks: 1, Mode: shuffler.DeckPerRound})
		done <- result{r, err}
	}()
	// Pull the cable once the device has started (52 cards take 104 ms).
	waitFor(t, func() bool { return sim.Stats().Executed[shuffler.CmdShuffle] == 1 })
	if err := sim.Unplug(); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, dev, shuffler.LinkDown, 2*time.Second)
	// The device finishes, sends its event and its reply into the void, and gives up on both.
	waitFor(t, func() bool { return sim.Stats().GaveUp >= 2 })
	if err := sim.Plug(); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, dev, shuffler.LinkUp, 3*time.Second)
	res := <-done
	if res.err != nil || res.r.Cards != 52 {
		t.Fatalf("shuffle: %v, %v", res.r, res.err)
	}
	st := sim.Stats()
	if st.Executed[shuffler.CmdShuffle] != 1 || st.Duplicates < 1 {
		t.Fatalf("executed %v, duplicates %d: want one run answered again", st.Executed, st.Duplicates)
	}
	if len(sim.TakeOutput()) != 52 {
		t.Fatal("pack lost")
	}
}

// waitFor looks at cond every millisecond for up to 5 s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatal("condition not met within 5 s")
		}
	}
}

func TestHaltIsInertAndIdempotent(t *testing.T) {
	sim, dev := newPair(t, shufflertest.Opts{CardTime: time.Millisecond}, shuffler.Opts{})
	sim.Insert(decks(8))
	errc := make(chan error, 1)
	go func() {
		_, err := dev.Shuffle(context.Background(), shuffler.Program{Decks: 8})
		errc <- err
	}()
	waitFor(t, func() bool { return sim.Stats().Executed[shuffler.CmdShuffle] == 1 }) // in flight
	if err := dev.Halt(); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; !errors.Is(err, shuffler.ErrHalted) {
		t.Fatalf("shuffle in flight: %v", err)
	}
	if err := dev.Halt(); err != nil {
		t.Fatalf("second Halt: %v", err)
	}
	if _, err := dev.Status(context.Background()); !errors.Is(err, shuffler.ErrHalted) {
		t.Fatalf("status after halt: %v", err)
	}
	if st := sim.Stats(); st.Executed[shuffler.CmdHalt] != 1 {
		t.Fatalf("HALT ran %d times", st.Executed[shuffler.CmdHalt])
	}
	// The device is halted too: a new connection sees it (SYNC clears the halt, as at power-up).
	dev.Close()
	dev2, err := shuffler.Open(sim.Port(), shuffler.Opts{})
	if err != nil {
		t.Fatal(err)
	}
	defer dev2.Close()
	n, err := dev2.Unload(ctxT(t, 5*time.Second))
	if err != nil || n != 416 {
		t.Fatalf("unload after halt: %d, %v", n, err)
	}
}

// TestCloseDuringCommand: Close returns promptly and the command in flight fails with ErrClosed.
func TestCloseDuringCommand(t *testing.T) {
	sim, dev := newPair(t, shufflertest.Opts{CardTime: 10 * time.Millisecond}, shuffler.Opts{})
	sim.Insert(decks(8))
	errc := make(chan error, 1)
	go func() {
		_, err := dev.Shuffle(context.Background(), shuffler.Program{Decks: 8})
		errc <- err
	}()
	waitFor(t, func() bool { return sim.Stats().Executed[shuffler.CmdShuffle] == 1 }) // in flight
	start := time.Now()
	dev.Close()
	select {
	case err := <-errc:
		if !errors.Is(err, shuffler.ErrClosed) {
			t.Fatalf("shuffle: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the command in flight did not end with Close")
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("Close took %v", el)
	}
}
