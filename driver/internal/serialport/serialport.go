// Package serialport opens the drivers' serial ports (go.bug.st/serial) the same way, and
// reopens a port that vanished (a cable pulled, a USB adapter replugged) with backoff.
package serialport

import (
	"fmt"
	"log/slog"
	"time"

	"go.bug.st/serial"
)

// Open opens path at baud, 8N1, with a short read timeout so that a reader loop can check for
// its stop (a timeout returns 0, nil: STYLE.md habit 7).
func Open(path string, baud int, poll time.Duration) (serial.Port, error) {
	p, err := serial.Open(path, &serial.Mode{BaudRate: baud, DataBits: 8, Parity: serial.NoParity, StopBits: serial.OneStopBit})
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if err := p.SetReadTimeout(poll); err != nil {
		p.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Backoff is the wait between two attempts to reopen a port: from Min, doubling to Max.
type Backoff struct {
	Min, Max time.Duration
	cur      time.Duration
}

// Reopen waits the backoff (or until done closes: nil, false), then tries to open the port once.
// A failure doubles the backoff and returns nil, true (try again); a success resets it.
func Reopen(done <-chan struct{}, b *Backoff, log *slog.Logger, open func() (serial.Port, error)) (serial.Port, bool) {
	if b.cur < b.Min {
		b.cur = b.Min
	}
	t := time.NewTimer(b.cur)
	select {
	case <-done:
		t.Stop()
		return nil, false
	case <-t.C:
	}
	p, err := open()
	if err != nil {
		b.cur = min(b.cur*2, b.Max)
		log.Debug("reconnect failed", "err", err, "next", b.cur)
		return nil, true
	}
	b.cur = b.Min
	return p, true
}
