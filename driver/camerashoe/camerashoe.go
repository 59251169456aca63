package camerashoe

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"periph.io/x/conn/v3"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpioreg"
	"periph.io/x/host/v3"
)

// Pins are the camera shoe's GPIO lines. Every input is required; LED may be nil (no LED).
type Pins struct {
	Exit    gpio.PinIn  // card-exit sensor: an optical gate at the shoe's mouth
	Lid     gpio.PinIn  // lid switch
	Confirm gpio.PinIn  // dealer button: confirm the round's result
	Manual  gpio.PinIn  // dealer button: enter a held card by hand
	Void    gpio.PinIn  // dealer button: void the round
	LED     gpio.PinOut // status LED
}

// Names are GPIO names as periph's gpioreg knows them ("GPIO17", "P1_11"), for OpenByName.
type Names struct {
	Exit, Lid, Confirm, Manual, Void, LED string
}

// Opts configures a Dev. The zero value is the wiring described in the package documentation.
type Opts struct {
	ExitActiveLow bool // the gate reads low while a card blocks it (default: high)
	LidOpenLow    bool // the lid switch reads low when open (default: high)
	ButtonsHigh   bool // buttons read high when pressed, with pull-downs (default: low, pull-ups)
	// Gap: the gate must stay clear this long before a card counts as out, so a card edge that
	// makes the beam flicker is one card, never two. Default 15 ms.
	Gap time.Duration
	// Debounce: a button or the lid must hold its new level this long. Default 20 ms.
	Debounce time.Duration
	// StuckAfter: a card blocking the gate this long raises CardStuck. Default 2 s.
	StuckAfter time.Duration
	// Poll bounds every WaitForEdge (periph's backends disagree on what -1 and 0 mean; STYLE.md
	// habit 7). Default 100 ms.
	Poll   time.Duration
	Logger *slog.Logger
	Now    func() time.Time // default time.Now
}

func (o Opts) withDefaults() Opts {
	if o.Gap <= 0 {
		o.Gap = 15 * time.Millisecond
	}
	if o.Debounce <= 0 {
		o.Debounce = 20 * time.Millisecond
	}
	if o.StuckAfter <= 0 {
		o.StuckAfter = 2 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = 100 * time.Millisecond
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Kind says what happened.
type Kind uint8

// Event kinds.
const (
	CardEnter  Kind = iota + 1 // a card started to block the gate: its frames start here
	CardExit                   // the card cleared the gate: one card left the shoe (a draw)
	CardStuck                  // a card has blocked the gate for StuckAfter: it sticks
	CardInGate                 // at start the gate was already blocked: a card in flight, raised
	LidOpen
	LidClosed
	Confirm // a dealer button was pressed
	Manual
	Void
)

func (k Kind) String() string {
	switch k {
	case CardEnter:
		return "card enter"
	case CardExit:
		return "card exit"
	case CardStuck:
		return "card stuck"
	case CardInGate:
		return "card in gate"
	case LidOpen:
		return "lid open"
	case LidClosed:
		return "lid closed"
	case Confirm:
		return "confirm"
	case Manual:
		return "manual entry"
	case Void:
		return "void round"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Event is one thing that happened at the shoe.
type Event struct {
	Kind Kind
	At   time.Time     // when the edge that decided it was seen (CardExit: when the gate cleared)
	Dur  time.Duration // CardExit: how long the card blocked the gate; CardStuck: so far
	Seq  uint64        // 1, 2, 3… in order
}

func (e Event) String() string {
	if e.Kind == CardExit || e.Kind == CardStuck {
		return fmt.Sprintf("%s after %v", e.Kind, e.Dur.Round(time.Millisecond))
	}
	return e.Kind.String()
}

// LED is the status LED's state.
type LED uint8

// LED states.
const (
	LEDOff   LED = iota
	LEDReady     // steady: dealing may go on
	LEDHeld      // slow blink (1 Hz): the round is held, the dealer must act
	LEDFault     // fast blink (4 Hz): a fault
)

func (l LED) String() string {
	switch l {
	case LEDOff:
		return "off"
	case LEDReady:
		return "ready"
	case LEDHeld:
		return "held"
	case LEDFault:
		return "fault"
	}
	return fmt.Sprintf("LED(%d)", uint8(l))
}

// Errors.
var (
	ErrHalted = errors.New("camerashoe: halted")
	ErrClosed = errors.New("camerashoe: closed")
	ErrPins   = errors.New("camerashoe: bad pins")
)

// Dev is the GPIO side of a camera shoe. Its frames come from the vision package's frame source;
// the daemon pairs them with CardEnter and CardExit.
type Dev struct {
	pins Pins
	opts Opts
	log  *slog.Logger

	mu     sync.Mutex
	seq    uint64
	led    LED
	ledSet chan struct{}

	events    chan Event
	halt      chan struct{}
	haltOnce  sync.Once
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// OpenByName initialises periph's host drivers and opens the pins by name.
func OpenByName(n Names, opts Opts) (*Dev, error) {
	if _, err := host.Init(); err != nil {
		return nil, fmt.Errorf("camerashoe: initialising GPIO: %w", err)
	}
	get := func(what, name string) (gpio.PinIO, error) {
		if name == "" {
			return nil, nil
		}
		p := gpioreg.ByName(name)
		if p == nil {
			return nil, fmt.Errorf("%w: %s pin %q not found", ErrPins, what, name)
		}
		return p, nil
	}
	var p Pins
	var err error
	var x gpio.PinIO
	for _, f := range []struct {
		what, name string
		in         *gpio.PinIn
	}{{"exit", n.Exit, &p.Exit}, {"lid", n.Lid, &p.Lid}, {"confirm", n.Confirm, &p.Confirm}, {"manual", n.Manual, &p.Manual}, {"void", n.Void, &p.Void}} {
		if x, err = get(f.what, f.name); err != nil {
			return nil, err
		}
		if x != nil {
			*f.in = x
		}
	}
	if x, err = get("led", n.LED); err != nil {
		return nil, err
	}
	if x != nil {
		p.LED = x
	}
	return New(p, opts)
}

// New configures the pins and starts watching them.
func New(p Pins, opts Opts) (*Dev, error) {
	opts = opts.withDefaults()
	for _, c := range []struct {
		what string
		pin  gpio.PinIn
	}{{"exit", p.Exit}, {"lid", p.Lid}, {"confirm", p.Confirm}, {"manual", p.Manual}, {"void", p.Void}} {
		if c.pin == nil {
			return nil, fmt.Errorf("%w: no %s pin", ErrPins, c.what)
		}
	}
	btnPull := gpio.PullUp
	if opts.ButtonsHigh {
		btnPull = gpio.PullDown
	}
	for _, c := range []struct {
		pin  gpio.PinIn
		pull gpio.Pull
	}{{p.Exit, gpio.Float}, {p.Lid, gpio.Float}, {p.Confirm, btnPull}, {p.Manual, btnPull}, {p.Void, btnPull}} {
		if err := c.pin.In(c.pull, gpio.BothEdges); err != nil {
			return nil, fmt.Errorf("camerashoe: %s: %w", c.pin, err)
		}
	}
	if p.LED != nil {
		if err := p.LED.Out(gpio.Low); err != nil {
			return nil, fmt.Errorf("camerashoe: LED %s: %w", p.LED, err)
		}
	}
	d := &Dev{
		pins: p, opts: opts, log: opts.Logger.With("device", "camerashoe"),
		ledSet: make(chan struct{}, 1),
		events: make(chan Event, 256), halt: make(chan struct{}), done: make(chan struct{}),
	}
	exitActive := gpio.High
	if opts.ExitActiveLow {
		exitActive = gpio.Low
	}
	lidOpen := gpio.High
	if opts.LidOpenLow {
		lidOpen = gpio.Low
	}
	pressed := gpio.Low
	if opts.ButtonsHigh {
		pressed = gpio.High
	}
	d.wg.Add(5)
	go d.watchExit(exitActive)
	go d.watchSwitch(p.Lid, lidOpen, LidOpen, LidClosed)
	go d.watchSwitch(p.Confirm, pressed, Confirm, 0)
	go d.watchSwitch(p.Manual, pressed, Manual, 0)
	go d.watchSwitch(p.Void, pressed, Void, 0)
	if p.LED != nil {
		d.wg.Add(1)
		go d.driveLED()
	}
	return d, nil
}

// String names the device.
func (d *Dev) String() string {
	return fmt.Sprintf("camera shoe (exit %s, lid %s)", d.pins.Exit, d.pins.Lid)
}

// Next returns the next event. It returns ErrHalted after Halt, ErrClosed after Close.
func (d *Dev) Next(ctx context.Context) (Event, error) {
	select {
	case <-d.halt:
		return Event{}, ErrHalted
	default:
	}
	select {
	case e := <-d.events:
		return e, nil
	case <-ctx.Done():
		return Event{}, fmt.Errorf("camerashoe: %w", ctx.Err())
	case <-d.halt:
		return Event{}, ErrHalted
	case <-d.done:
		return Event{}, ErrClosed
	}
}

// SetLED sets the status LED (a no-op without an LED pin).
func (d *Dev) SetLED(l LED) error {
	if l > LEDFault {
		return fmt.Errorf("camerashoe: no LED state %d", l)
	}
	select {
	case <-d.done:
		return ErrClosed
	default:
	}
	d.mu.Lock()
	d.led = l
	d.mu.Unlock()
	select {
	case d.ledSet <- struct{}{}:
	default:
	}
	return nil
}

// Halt stops watching the pins and turns the LED off: the device is inert. Idempotent.
func (d *Dev) Halt() error {
	var err error
	d.haltOnce.Do(func() {
		close(d.halt)
		d.stop()
		if d.pins.LED != nil {
			err = d.pins.LED.Out(gpio.Low)
		}
		for _, p := range []gpio.PinIn{d.pins.Exit, d.pins.Lid, d.pins.Confirm, d.pins.Manual, d.pins.Void} {
			if e := p.Halt(); e != nil && err == nil {
				err = e
			}
		}
		if err != nil {
			err = fmt.Errorf("camerashoe: halt: %w", err)
		}
	})
	return err
}

// Close stops watching the pins.
func (d *Dev) Close() error {
	d.stop()
	return nil
}

func (d *Dev) stop() {
	d.closeOnce.Do(func() {
		close(d.done)
		d.wg.Wait()
	})
}

func (d *Dev) closing() bool {
	select {
	case <-d.done:
		return true
	default:
		return false
	}
}

func (d *Dev) emit(k Kind, at time.Time, dur time.Duration) {
	d.mu.Lock()
	d.seq++
	e := Event{Kind: k, At: at, Dur: dur, Seq: d.seq}
	d.mu.Unlock()
	switch k {
	case CardStuck, CardInGate:
		d.log.Warn("camera shoe "+k.String(), "blocked", dur)
	case LidOpen:
		d.log.Info("camera shoe lid open")
	}
	select {
	case d.events <- e:
	case <-d.done:
	}
}

// watchExit turns the gate's edges into CardEnter, CardExit and CardStuck. A card is out when the
// gate has stayed clear for Gap: flicker at a card's edge is one card.
func (d *Dev) watchExit(active gpio.Level) {
	defer d.wg.Done()
	p := d.pins.Exit
	blocked := p.Read() == active
	var enter, cleared time.Time // when the card entered; when the gate last cleared (while pending)
	pending := false             // the gate is clear but not yet for Gap
	stuck := false
	if blocked {
		// A card in the gate when we start (a restart with a card in flight): raised, and
		// counted when it clears, never dropped.
		enter = d.opts.Now()
		d.emit(CardInGate, enter, 0)
	}
	for !d.closing() {
		wait := d.opts.Poll
		now := d.opts.Now()
		if pending {
			wait = min(wait, max(d.opts.Gap-now.Sub(cleared), 0))
		}
		if blocked && !stuck {
			wait = min(wait, max(d.opts.StuckAfter-now.Sub(enter), 0))
		}
		edge := wait > 0 && p.WaitForEdge(wait)
		now = d.opts.Now()
		if edge {
			lvl := p.Read() == active
			if lvl == blocked {
				continue // an edge that came back: nothing changed
			}
			blocked = lvl
			if blocked {
				if pending {
					pending = false // flicker: the same card
					continue
				}
				enter, stuck = now, false
				d.emit(CardEnter, now, 0)
				continue
			}
			pending, cleared = true, now
			continue
		}
		if pending && now.Sub(cleared) >= d.opts.Gap {
			pending = false
			d.emit(CardExit, cleared, cleared.Sub(enter))
		}
		if blocked && !stuck && now.Sub(enter) >= d.opts.StuckAfter {
			stuck = true
			d.emit(CardStuck, now, now.Sub(enter))
		}
	}
}

// watchSwitch debounces a button or the lid: on is the event when it reaches level act, off (if
// not 0) when it leaves it.
func (d *Dev) watchSwitch(p gpio.PinIn, act gpio.Level, on, off Kind) {
	defer d.wg.Done()
	state := p.Read() == act // the debounced state
	if state && off != 0 {
		d.emit(on, d.opts.Now(), 0) // the lid is open at start: say so
	}
	var changed time.Time
	pending := false
	for !d.closing() {
		wait := d.opts.Poll
		if pending {
			wait = min(wait, max(d.opts.Debounce-d.opts.Now().Sub(changed), 0))
		}
		if wait > 0 && p.WaitForEdge(wait) {
			lvl := p.Read() == act
			switch {
			case lvl == state:
				pending = false // bounced back
			case !pending:
				pending, changed = true, d.opts.Now()
			}
			continue
		}
		if pending && d.opts.Now().Sub(changed) >= d.opts.Debounce {
			pending = false
			state = !state
			switch {
			case state:
				d.emit(on, changed, 0)
			case off != 0:
				d.emit(off, changed, 0)
			}
		}
	}
}

// driveLED shows the LED state: steady, or blinking at 1 Hz or 4 Hz.
func (d *Dev) driveLED() {
	defer d.wg.Done()
	lit := false
	for {
		d.mu.Lock()
		l := d.led
		d.mu.Unlock()
		var period time.Duration
		want := false
		switch l {
		case LEDReady:
			want = true
		case LEDHeld:
			period = 500 * time.Millisecond
			want = !lit
		case LEDFault:
			period = 125 * time.Millisecond
			want = !lit
		}
		if want != lit {
			if err := d.pins.LED.Out(gpio.Level(want)); err != nil {
				d.log.Error("status LED", "err", err)
			}
			lit = want
		}
		var tick <-chan time.Time
		var t *time.Timer
		if period > 0 {
			t = time.NewTimer(period)
			tick = t.C
		}
		select {
		case <-d.done:
		case <-d.ledSet:
		case <-tick:
		}
		if t != nil {
			t.Stop()
		}
		if d.closing() {
			return
		}
	}
}

var _ conn.Resource = (*Dev)(nil)
