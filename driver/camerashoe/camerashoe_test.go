package camerashoe_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"periph.io/x/conn/v3/gpio"

	"github.com/sabot-tables/sabot/driver/camerashoe"
	"github.com/sabot-tables/sabot/driver/camerashoe/camerashoetest"
)

// want is an expected event, its time relative to the start of the bubble.
type want struct {
	kind camerashoe.Kind
	at   time.Duration
	dur  time.Duration
}

// drain returns every event that is waiting, once everything in the bubble is blocked.
func drain(dev *camerashoe.Dev) []camerashoe.Event {
	synctest.Wait()
	var out []camerashoe.Event
	for {
		// Next picks at random between ready cases: a context that is already done could
		// hide a waiting event. One that ends a (bubble) microsecond later cannot.
		ctx, cancel := context.WithTimeout(context.Background(), time.Microsecond)
		e, err := dev.Next(ctx)
		cancel()
		if err != nil {
			return out
		}
		out = append(out, e)
	}
}

func check(t *testing.T, start time.Time, got []camerashoe.Event, want []want) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d events %v, want %d %v", len(got), got, len(want), want)
	}
	for i, w := range want {
		g := got[i]
		if g.Kind != w.kind || g.At.Sub(start) != w.at || g.Dur != w.dur || g.Seq != uint64(i+1) {
			t.Fatalf("event %d: %v at %v dur %v seq %d; want %v at %v dur %v", i, g.Kind, g.At.Sub(start), g.Dur, g.Seq, w.kind, w.at, w.dur)
		}
	}
}

func TestExitGateAndSwitches(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name  string
		setup func(*camerashoetest.Sim) // before New
		act   func(*camerashoetest.Sim)
		want  []want
	}{
		{"one card", nil, func(s *camerashoetest.Sim) { s.PassCard(80 * ms) }, []want{
			{camerashoe.CardEnter, 0, 0},
			{camerashoe.CardExit, 80 * ms, 80 * ms},
		}},
		{"flicker at the card's edge is one card", nil, func(s *camerashoetest.Sim) { s.PassCardFlicker(80*ms, 5*ms) }, []want{
			{camerashoe.CardEnter, 0, 0},
			{camerashoe.CardExit, 85 * ms, 85 * ms},
		}},
		{"two cards 30 ms apart", nil, func(s *camerashoetest.Sim) {
			s.PassCard(60 * ms)
			time.Sleep(30 * ms)
			s.PassCard(70 * ms)
		}, []want{
			{camerashoe.CardEnter, 0, 0},
			{camerashoe.CardExit, 60 * ms, 60 * ms},
			{camerashoe.CardEnter, 90 * ms, 0},
			{camerashoe.CardExit, 160 * ms, 70 * ms},
		}},
		{"a card that sticks", nil, func(s *camerashoetest.Sim) { s.PassCard(2500 * ms) }, []want{
			{camerashoe.CardEnter, 0, 0},
			{camerashoe.CardStuck, 2000 * ms, 2000 * ms},
			{camerashoe.CardExit, 2500 * ms, 2500 * ms},
		}},
		{"a card in the gate at start", func(s *camerashoetest.Sim) { s.Exit.L = gpio.High }, func(s *camerashoetest.Sim) {
			time.Sleep(100 * ms)
			s.Clear()
		}, []want{
			{camerashoe.CardInGate, 0, 0},
			{camerashoe.CardExit, 100 * ms, 100 * ms},
		}},
		{"lid opened and closed with bounce", nil, func(s *camerashoetest.Sim) {
			s.OpenLid()
			time.Sleep(2 * ms)
			s.CloseLid()
			time.Sleep(2 * ms)
			s.OpenLid()
			time.Sleep(500 * ms)
			s.CloseLid()
		}, []want{
			{camerashoe.LidOpen, 4 * ms, 0},
			{camerashoe.LidClosed, 504 * ms, 0},
		}},
		{"lid open at start", func(s *camerashoetest.Sim) { s.Lid.L = gpio.High }, nil, []want{
			{camerashoe.LidOpen, 0, 0},
		}},
		{"buttons with bounce", nil, func(s *camerashoetest.Sim) {
			s.Press(s.Confirm, 100*ms)
			time.Sleep(50 * ms)
			s.Press(s.Void, 100*ms)
			time.Sleep(50 * ms)
			s.Press(s.Manual, 100*ms)
		}, []want{
			{camerashoe.Confirm, 6 * ms, 0},
			{camerashoe.Void, 162 * ms, 0}, // 106 ms of press, 50 ms, then the last bounce at +6 ms
			{camerashoe.Manual, 318 * ms, 0},
		}},
		{"a blip shorter than the bounce is no press", nil, func(s *camerashoetest.Sim) {
			s.Press(s.Confirm, 5*ms)
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				sim := camerashoetest.NewSim()
				if tt.setup != nil {
					tt.setup(sim)
				}
				start := time.Now()
				dev, err := camerashoe.New(sim.Pins(), camerashoe.Opts{})
				if err != nil {
					t.Fatal(err)
				}
				defer dev.Close()
				if tt.act != nil {
					tt.act(sim)
				}
				time.Sleep(time.Second) // let every timer run out
				check(t, start, drain(dev), tt.want)
			})
		})
	}
}

func TestLED(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sim := camerashoetest.NewSim()
		dev, err := camerashoe.New(sim.Pins(), camerashoe.Opts{})
		if err != nil {
			t.Fatal(err)
		}
		defer dev.Close()
		sample := func(n int, every time.Duration) (out []bool) {
			for range n {
				synctest.Wait()
				out = append(out, sim.LEDLit())
				time.Sleep(every)
			}
			return out
		}
		eq := func(a, b []bool) bool {
			for i := range a {
				if a[i] != b[i] {
					return false
				}
			}
			return len(a) == len(b)
		}
		if got := sample(2, 100*time.Millisecond); !eq(got, []bool{false, false}) {
			t.Fatalf("off: %v", got)
		}
		dev.SetLED(camerashoe.LEDReady)
		if got := sample(3, 300*time.Millisecond); !eq(got, []bool{true, true, true}) {
			t.Fatalf("ready: %v", got)
		}
		dev.SetLED(camerashoe.LEDHeld) // toggles every 500 ms
		time.Sleep(250 * time.Millisecond)
		if got := sample(4, 500*time.Millisecond); !eq(got, []bool{false, true, false, true}) {
			t.Fatalf("held: %v", got)
		}
		dev.SetLED(camerashoe.LEDFault) // toggles every 125 ms
		time.Sleep(60 * time.Millisecond)
		if got := sample(4, 125*time.Millisecond); !eq(got, []bool{false, true, false, true}) && !eq(got, []bool{true, false, true, false}) {
			t.Fatalf("fault: %v", got)
		}
		if err := dev.SetLED(9); err == nil {
			t.Fatal("LED state 9 accepted")
		}
		if err := dev.Halt(); err != nil {
			t.Fatal(err)
		}
		if sim.LEDLit() {
			t.Fatal("LED lit after Halt")
		}
		if err := dev.Halt(); err != nil {
			t.Fatalf("second Halt: %v", err)
		}
		if _, err := dev.Next(context.Background()); !errors.Is(err, camerashoe.ErrHalted) {
			t.Fatalf("Next after Halt: %v", err)
		}
	})
}

func TestNewNeedsEveryInput(t *testing.T) {
	sim := camerashoetest.NewSim()
	p := sim.Pins()
	p.Lid = nil
	if _, err := camerashoe.New(p, camerashoe.Opts{}); !errors.Is(err, camerashoe.ErrPins) {
		t.Fatalf("err = %v", err)
	}
}
