package readershoe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"go.bug.st/serial"

	"github.com/sabot-tables/sabot/driver/internal/serialport"
	"github.com/sabot-tables/sabot/driver/internal/transcript"
)

// Opts configures a Dev. The zero value is usable.
type Opts struct {
	Baud       int           // default 9600 (8N1)
	BackoffMin time.Duration // first wait before reopening a vanished port; default 50 ms
	BackoffMax time.Duration // longest wait between attempts; default 2 s
	// LineIdle: a line without its CR LF is taken as ended after this long without a byte (noise
	// ate the line ending, and the dealer waits for the card); default 250 ms. At 9600 baud the
	// bytes of one line arrive about 1 ms apart.
	LineIdle time.Duration
	// JoinWindow: a damaged line followed this soon by a damaged piece that starts no frame is one
	// line cut by a stray CR or LF (one Malformed read, not two); default 30 ms. Two cards' lines
	// never come this close: the dealer draws cards by hand. Negative: never join.
	JoinWindow time.Duration
	Logger     *slog.Logger
	// Record, when set, receives a transcript of every byte received (driver/internal/transcript);
	// `sabot shoe watch --record FILE` writes one.
	Record io.Writer
	Now    func() time.Time // default time.Now
}

func (o Opts) withDefaults() Opts {
	if o.Baud == 0 {
		o.Baud = 9600
	}
	if o.BackoffMin <= 0 {
		o.BackoffMin = 50 * time.Millisecond
	}
	if o.BackoffMax < o.BackoffMin {
		o.BackoffMax = max(2*time.Second, o.BackoffMin)
	}
	if o.LineIdle <= 0 {
		o.LineIdle = 250 * time.Millisecond
	}
	if o.JoinWindow == 0 {
		o.JoinWindow = 30 * time.Millisecond
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o
}

// Errors.
var (
	ErrHalted   = errors.New("readershoe: halted")
	ErrClosed   = errors.New("readershoe: closed")
	ErrLinkDown = errors.New("readershoe: link down")
	// ErrCutByLink is wrapped by the Err of a Malformed read holding the part of a line that was
	// on the way when the link dropped: a card in flight, raised, never dropped silently.
	ErrCutByLink = errors.New("readershoe: line cut by the link going down")
)

const readPoll = 50 * time.Millisecond

// Dev is a card-reading shoe on a serial port.
type Dev struct {
	path string
	opts Opts
	log  *slog.Logger
	rec  *transcript.Writer

	mu   sync.Mutex
	port serial.Port // nil while the link is down
	seq  uint64

	reads     chan Read
	halt      chan struct{}
	haltOnce  sync.Once
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// Open opens the shoe on the serial port at path and starts reading. If the port vanishes later,
// the driver reports LinkDown, reopens it with backoff, and reports LinkUp.
func Open(path string, opts Opts) (*Dev, error) {
	opts = opts.withDefaults()
	p, err := openPort(path, opts.Baud)
	if err != nil {
		return nil, err
	}
	d := &Dev{
		path: path, opts: opts, port: p,
		log:   opts.Logger.With("device", "readershoe", "port", path),
		reads: make(chan Read, 256),
		halt:  make(chan struct{}), done: make(chan struct{}),
	}
	if opts.Record != nil {
		d.rec = transcript.NewWriter(opts.Record, "readershoe", path)
	}
	d.wg.Add(1)
	go d.readLoop()
	return d, nil
}

func openPort(path string, baud int) (serial.Port, error) {
	p, err := serialport.Open(path, baud, readPoll)
	if err != nil {
		return nil, fmt.Errorf("readershoe: %w", err)
	}
	return p, nil
}

// String names the device: "reading shoe on /dev/ttyUSB0".
func (d *Dev) String() string { return "reading shoe on " + d.path }

// Next returns the next read, in the order the shoe sent them. It returns ErrHalted after Halt,
// ErrClosed after Close, or the context's error.
func (d *Dev) Next(ctx context.Context) (Read, error) {
	select {
	case <-d.halt:
		return Read{}, ErrHalted
	default:
	}
	select {
	case r := <-d.reads:
		return r, nil
	case <-ctx.Done():
		return Read{}, fmt.Errorf("readershoe: %w", ctx.Err())
	case <-d.halt:
		return Read{}, ErrHalted
	case <-d.done:
		return Read{}, ErrClosed
	}
}

// Halt stops reading and closes the port: the driver is inert (Next returns ErrHalted). The shoe
// itself takes no commands on this line. Idempotent.
func (d *Dev) Halt() error {
	d.haltOnce.Do(func() {
		close(d.halt)
		d.stop()
		d.log.Info("reading shoe halted")
	})
	return nil
}

// Close stops the reader and closes the port.
func (d *Dev) Close() error {
	d.stop()
	return nil
}

func (d *Dev) stop() {
	d.closeOnce.Do(func() {
		close(d.done)
		d.mu.Lock()
		if d.port != nil {
			d.port.Close()
			d.port = nil
		}
		d.mu.Unlock()
		d.wg.Wait()
	})
}

// emit numbers a read and hands it to Next; false when the driver is closing.
func (d *Dev) emit(r Read) bool {
	d.seq++
	r.Seq = d.seq
	r.At = d.opts.Now()
	switch r.Kind {
	case Malformed:
		d.log.Error("malformed line from the shoe", "raw", fmt.Sprintf("%q", r.Raw), "err", r.Err)
	case LinkDown:
		d.log.Error("reading shoe link down", "err", r.Err)
	case Alarm, Warning:
		d.log.Warn("reading shoe "+r.Kind.String(), "code", r.Code, "text", r.Text)
	}
	select {
	case d.reads <- r:
		return true
	case <-d.done:
		return false
	}
}

func (d *Dev) readLoop() {
	defer d.wg.Done()
	buf := make([]byte, 256)
	a := assembler{lineIdle: d.opts.LineIdle, window: d.opts.JoinWindow}
	backoff := &serialport.Backoff{Min: d.opts.BackoffMin, Max: d.opts.BackoffMax}
	for {
		select {
		case <-d.done:
			return
		default:
		}
		d.mu.Lock()
		p := d.port
		d.mu.Unlock()
		if p == nil {
			if !d.reconnect(backoff) {
				return
			}
			continue
		}
		n, err := p.Read(buf)
		if err != nil {
			select {
			case <-d.done:
				return
			default:
			}
			d.mu.Lock()
			if d.port == p {
				d.port = nil
			}
			d.mu.Unlock()
			p.Close()
			d.rec.Note("link down: " + err.Error())
			// A card in flight: what arrived of its line is raised, not dropped.
			if !a.cut(d.emit) || !d.emit(Read{Kind: LinkDown, Err: fmt.Errorf("%w: %v", ErrLinkDown, err)}) {
				return
			}
			continue
		}
		if n == 0 {
			if !a.tick(time.Now(), d.emit) {
				return
			}
			continue
		}
		d.rec.In(buf[:n])
		now := time.Now()
		if !a.feed(buf[:n], now, d.emit) || !a.tick(now, d.emit) {
			return
		}
	}
}

func (d *Dev) reconnect(backoff *serialport.Backoff) bool {
	p, ok := serialport.Reopen(d.done, backoff, d.log, func() (serial.Port, error) { return openPort(d.path, d.opts.Baud) })
	if p == nil {
		return ok
	}
	d.mu.Lock()
	select {
	case <-d.done:
		d.mu.Unlock()
		p.Close()
		return false
	default:
	}
	d.port = p
	d.mu.Unlock()
	d.rec.Note("link up")
	d.log.Info("reading shoe link up")
	return d.emit(Read{Kind: LinkUp})
}

// A physical resource in the periph sense (conn.Resource): a name and an idempotent Halt.
var _ interface {
	String() string
	Halt() error
} = (*Dev)(nil)
