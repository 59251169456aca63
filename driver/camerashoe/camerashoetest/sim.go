// Package camerashoetest is the physical side of a simulated camera shoe: periph gpiotest pins
// wired as camerashoe's default wiring expects, with the actions of a dealer and of faults: a
// card sliding through the exit gate (with flicker at its edges), a card that sticks, the lid,
// the buttons (with contact bounce), and the status LED to look at. Its frames come from the
// vision package's simulated source, not from here.
package camerashoetest

import (
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"

	"github.com/sabot-tables/sabot/driver/camerashoe"
)

// Sim holds the pins. Create it where its users run (inside a testing/synctest bubble for timed
// tests: its channels belong to the bubble).
type Sim struct {
	Exit, Lid, Confirm, Manual, Void, LED *gpiotest.Pin
}

// NewSim returns pins in their resting state: gate clear, lid closed, buttons up, LED off.
func NewSim() *Sim {
	pin := func(name string, n int) *gpiotest.Pin {
		return &gpiotest.Pin{N: name, Num: n, EdgesChan: make(chan gpio.Level, 64)}
	}
	return &Sim{
		Exit: pin("EXIT", 17), Lid: pin("LID", 27), Confirm: pin("CONFIRM", 22),
		Manual: pin("MANUAL", 23), Void: pin("VOID", 24), LED: pin("LED", 25),
	}
}

// Pins returns the pins for camerashoe.New.
func (s *Sim) Pins() camerashoe.Pins {
	return camerashoe.Pins{Exit: s.Exit, Lid: s.Lid, Confirm: s.Confirm, Manual: s.Manual, Void: s.Void, LED: s.LED}
}

// set drives a pin to l and signals the edge. If nobody has taken 64 edges, the level is set
// without an edge (a real pin's edge queue overflows the same way).
func set(p *gpiotest.Pin, l gpio.Level) {
	select {
	case p.EdgesChan <- l:
	default:
		p.Out(l)
	}
}

// Block puts a card in the exit gate; Clear takes it out.
func (s *Sim) Block() { set(s.Exit, gpio.High) }

// Clear clears the exit gate.
func (s *Sim) Clear() { set(s.Exit, gpio.Low) }

// PassCard slides one card through the gate: blocked for d (time.Sleep: use it in a synctest
// bubble or accept real time).
func (s *Sim) PassCard(d time.Duration) {
	s.Block()
	time.Sleep(d)
	s.Clear()
}

// PassCardFlicker slides one card whose edge makes the beam flicker: blocked d/2, clear for
// flicker, blocked d/2.
func (s *Sim) PassCardFlicker(d, flicker time.Duration) {
	s.Block()
	time.Sleep(d / 2)
	s.Clear()
	time.Sleep(flicker)
	s.Block()
	time.Sleep(d / 2)
	s.Clear()
}

// OpenLid opens the lid; CloseLid closes it.
func (s *Sim) OpenLid() { set(s.Lid, gpio.High) }

// CloseLid closes the lid.
func (s *Sim) CloseLid() { set(s.Lid, gpio.Low) }

// Press presses a button for hold, with contact bounce (three 1 ms flips) on the way down.
func (s *Sim) Press(b *gpiotest.Pin, hold time.Duration) {
	for range 3 {
		set(b, gpio.Low)
		time.Sleep(time.Millisecond)
		set(b, gpio.High)
		time.Sleep(time.Millisecond)
	}
	set(b, gpio.Low)
	time.Sleep(hold)
	set(b, gpio.High)
}

// Hold presses a button cleanly (no bounce) for d.
func (s *Sim) Hold(b *gpiotest.Pin, d time.Duration) {
	set(b, gpio.Low)
	time.Sleep(d)
	set(b, gpio.High)
}

// LEDLit reports whether the status LED is lit.
func (s *Sim) LEDLit() bool { return s.LED.Read() == gpio.High }
