package readershoetest

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"

	"github.com/sabot-tables/sabot/driver/internal/ptyline"
	"github.com/sabot-tables/sabot/driver/readershoe"
	"github.com/sabot-tables/sabot/shoe/card"
)

// LineFaults are per-byte fault probabilities on the line from the shoe.
type LineFaults = ptyline.Faults

// LineStats counts what the simulated line did to the bytes that crossed it.
type LineStats = ptyline.Stats

// What a corrupted byte becomes (see LineFaults.As).
const (
	FramingError = ptyline.FramingError // the byte arrives as NUL, as Linux delivers a framing error
	RandomByte   = ptyline.RandomByte   // the byte becomes a random different byte
)

// Item is one thing in the shoe: a card, or the cut card. Card None without Cut is a card the
// shoe cannot read (a foreign card, a damaged one): it comes out as [Game]<Game>.
type Item struct {
	Card card.Card
	Cut  bool
}

// String shows the item: "4s", "CUT", "??".
func (it Item) String() string {
	if it.Cut {
		return "CUT"
	}
	return it.Card.String()
}

// Stack builds a shoe's stack: the cards in order, with the cut card inserted before index cutAt
// (cutAt < 0: no cut card).
func Stack(cards []card.Card, cutAt int) []Item {
	out := make([]Item, 0, len(cards)+1)
	for i, c := range cards {
		if i == cutAt {
			out = append(out, Item{Cut: true})
		}
		out = append(out, Item{Card: c})
	}
	if cutAt == len(cards) {
		out = append(out, Item{Cut: true})
	}
	return out
}

// Opts configures a Sim. The zero value is usable.
type Opts struct {
	Seed uint64 // seeds the line faults
	// SilentCut: the shoe says nothing when the cut card leaves (the public protocol has no
	// cut-card line); by default it sends the Sabot extension [Game]<Cut Card>.
	SilentCut bool
	// Ten10 writes the ten as "10" instead of "T" (both are in the public grammar).
	Ten10 bool
	// Buffer: lines written while the cable is out are kept and sent when it is plugged back (a
	// shoe with an output buffer); by default they are lost, as on a plain RS-232 shoe.
	Buffer bool
	Logger *slog.Logger
}

// Errors from the physical side.
var (
	ErrEmpty = errors.New("readershoetest: the shoe is empty")
	ErrStuck = errors.New("readershoetest: the card is stuck")
)

// Sim is a simulated card-reading shoe on a pseudo-terminal.
type Sim struct {
	line *ptyline.Line
	opts Opts
	log  *slog.Logger

	mu      sync.Mutex
	stack   []Item
	burn    bool
	notRead int
	stuck   int
	drawn   []Item
	pending [][]byte // lines kept while unplugged (Opts.Buffer)
	lost    int      // lines written while unplugged and lost
}

// NewSim starts a simulated reading shoe. Port returns the path for readershoe.Open.
func NewSim(opts Opts) (*Sim, error) {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	line, err := ptyline.New("ttyShoe", opts.Seed)
	if err != nil {
		return nil, fmt.Errorf("readershoetest: %w", err)
	}
	return &Sim{line: line, opts: opts, log: opts.Logger.With("sim", "readershoe")}, nil
}

// Port returns the path the driver opens (a stable symlink to the pseudo-terminal).
func (s *Sim) Port() string { return s.line.Path() }

// String names the simulator.
func (s *Sim) String() string { return "simulated reading shoe on " + s.line.Path() }

// Load puts a stack in the shoe, behind what is left in it; the first item is drawn first.
func (s *Sim) Load(stack []Item) {
	s.mu.Lock()
	s.stack = append(s.stack, stack...)
	s.mu.Unlock()
}

// Remaining returns how many items (cards and the cut card) are left in the shoe.
func (s *Sim) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.stack)
}

// Drawn returns every item that has left the shoe, in order.
func (s *Sim) Drawn() []Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Item(nil), s.drawn...)
}

// SetBurnMode switches the shoe's panel to Manual Burn Cards (true) or back to Game.
func (s *Sim) SetBurnMode(on bool) {
	s.mu.Lock()
	s.burn = on
	s.mu.Unlock()
}

// NotRead makes the next n cards leave unread: [Game]<Game>.
func (s *Sim) NotRead(n int) {
	s.mu.Lock()
	s.notRead += n
	s.mu.Unlock()
}

// Stick makes the next n Draws fail with ErrStuck: the card sticks and nothing leaves the shoe.
func (s *Sim) Stick(n int) {
	s.mu.Lock()
	s.stuck += n
	s.mu.Unlock()
}

// Draw slides the next item out of the shoe, which writes its line. It fails with ErrEmpty on an
// empty shoe and ErrStuck when a stuck card was injected.
func (s *Sim) Draw() error {
	_, err := s.DrawItem()
	return err
}

// DrawItem is Draw, returning the item that left the shoe.
func (s *Sim) DrawItem() (Item, error) {
	s.mu.Lock()
	if s.stuck > 0 {
		s.stuck--
		s.mu.Unlock()
		return Item{}, ErrStuck
	}
	if len(s.stack) == 0 {
		s.mu.Unlock()
		return Item{}, ErrEmpty
	}
	it := s.stack[0]
	s.stack = s.stack[1:]
	s.drawn = append(s.drawn, it)
	mode := readershoe.Game
	if s.burn {
		mode = readershoe.Burn
	}
	var line string
	switch {
	case it.Cut && s.opts.SilentCut:
	case it.Cut:
		line = fmt.Sprintf(" [%s]<Cut Card> ", mode)
	case !it.Card.Valid() || s.notRead > 0:
		if it.Card.Valid() {
			s.notRead--
		}
		line = fmt.Sprintf(" [%s]<Game> ", mode)
	default:
		line = readershoe.FormatCard(mode, it.Card, s.opts.Ten10)
	}
	s.mu.Unlock()
	if line != "" {
		s.writeLine(line)
	}
	return it, nil
}

// Alarm makes the shoe send [Game]<Alarm:CODE TEXT>, or [GameAlarm]<…> when gameAlarm is set.
func (s *Sim) Alarm(gameAlarm bool, code, text string) {
	m := readershoe.Game
	if gameAlarm {
		m = readershoe.GameAlarm
	}
	body := code
	if text != "" {
		body += " " + text
	}
	s.writeLine(fmt.Sprintf(" [%s]<Alarm:%s> ", m, body))
}

// Warning makes the shoe send <W0xNN>.
func (s *Sim) Warning(code byte) { s.writeLine(fmt.Sprintf(" <W0x%02X> ", code)) }

// WriteRaw writes bytes on the line as they are: garbage, a half line.
func (s *Sim) WriteRaw(b []byte) { s.line.Write(b) }

func (s *Sim) writeLine(line string) {
	b := []byte(line + "\r\n")
	s.mu.Lock()
	if !s.line.Plugged() {
		if s.opts.Buffer {
			s.pending = append(s.pending, b)
		} else {
			s.lost++
		}
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	s.line.Write(b)
}

// Lost returns how many lines were written while the cable was out and lost.
func (s *Sim) Lost() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lost
}

// SetLineFaults sets byte faults on the line from the shoe.
func (s *Sim) SetLineFaults(f LineFaults) { s.line.SetFaults(f, LineFaults{}) }

// LineStats returns what the line has done to the bytes.
func (s *Sim) LineStats() LineStats { return s.line.Stats() }

// Unplug pulls the cable.
func (s *Sim) Unplug() error { return s.line.Unplug() }

// Plug plugs the cable back in; with Opts.Buffer the lines kept meanwhile are sent.
func (s *Sim) Plug() error {
	if err := s.line.Plug(); err != nil {
		return err
	}
	s.mu.Lock()
	p := s.pending
	s.pending = nil
	s.mu.Unlock()
	for _, b := range p {
		s.line.Write(b)
	}
	return nil
}

// Close removes the simulator and its port.
func (s *Sim) Close() error { return s.line.Close() }
