package shuffler

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
	"github.com/sabot-tables/sabot/shoe/card"
)

// Opts configures a Dev. The zero value is usable.
type Opts struct {
	Baud         int           // line speed, 8N1; default 38400
	AckTimeout   time.Duration // wait for an ACK before sending again; default 250 ms
	Retries      int           // sends after the first before giving up; default 3 (negative: none)
	ReplyTimeout time.Duration // wait for a command's answer after its ACK; default 5 min (8 decks at 25 s a deck)
	// Poll is how often the driver sends a command again while it waits for the answer, in case
	// the reply was lost after the device's own retries: the device never runs a repeated command
	// twice and answers it from its reply cache. Default 1 s.
	Poll       time.Duration
	BackoffMin time.Duration // first wait before reopening a vanished port; default 50 ms
	BackoffMax time.Duration // longest wait between reopen attempts; default 2 s
	Logger     *slog.Logger  // default: discard
	// Record, when set, receives a transcript of every byte in both directions (see
	// driver/internal/transcript); `sabot shuffler … --record FILE` writes one.
	Record io.Writer
}

func (o Opts) withDefaults() Opts {
	if o.Baud == 0 {
		o.Baud = 38400
	}
	if o.AckTimeout <= 0 {
		o.AckTimeout = 250 * time.Millisecond
	}
	if o.Retries == 0 {
		o.Retries = 3
	} else if o.Retries < 0 {
		o.Retries = 0
	}
	if o.ReplyTimeout <= 0 {
		o.ReplyTimeout = 5 * time.Minute
	}
	if o.Poll <= 0 {
		o.Poll = time.Second
	}
	if o.BackoffMin <= 0 {
		o.BackoffMin = 50 * time.Millisecond
	}
	if o.BackoffMax < o.BackoffMin {
		o.BackoffMax = max(2*time.Second, o.BackoffMin)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return o
}

// Errors of the link and the driver. Device refusals come back as *DeviceError.
var (
	ErrNoAnswer = errors.New("shuffler: no answer") // no ACK after every retry
	ErrNoReply  = errors.New("shuffler: no reply")  // ACKed, but no answer within ReplyTimeout
	ErrNak      = errors.New("shuffler: command refused by the link")
	ErrLinkDown = errors.New("shuffler: link down")
	ErrHalted   = errors.New("shuffler: halted")
	ErrClosed   = errors.New("shuffler: closed")
	// ErrUnreadable is returned by LoadVerify and Count, with the counts of the cards that were
	// read, when some cards in the tray could not be read (a foreign card, a damaged one).
	ErrUnreadable = errors.New("shuffler: unreadable cards in the tray")
)

// readPoll is the serial read timeout: how often the reader looks up from a quiet line.
const readPoll = 50 * time.Millisecond

// staleAfter is how many quiet polls in a row make a pending partial frame stale.
const staleAfter = 3

// Dev is a shuffler on a serial port.
type Dev struct {
	path string
	opts Opts
	log  *slog.Logger
	rec  *transcript.Writer

	portMu sync.Mutex
	port   serial.Port // nil while the link is down

	cmdMu sync.Mutex // one command at a time (the protocol is stop-and-wait)
	seq   uint8      // sequence number of the last command sent

	mu        sync.Mutex
	ackSeq    int            // sequence number awaiting ACK, or -1
	ack       chan Frame     // ACK or NAK for ackSeq
	replySeq  int            // command sequence number awaiting its reply, or -1
	reply     chan Frame     // the reply for replySeq
	last      Frame          // last device frame accepted, for the duplicate filter
	haveLast  bool           //
	up        chan struct{}  // closed when the link comes back, then replaced
	dropped   int            // events dropped because nobody read Events
	events    chan Event     //
	halt      chan struct{}  // closed by Halt
	haltOnce  sync.Once      //
	haltErr   error          //
	done      chan struct{}  // closed by Close
	closeOnce sync.Once      //
	wg        sync.WaitGroup // the reader
	wmu       sync.Mutex     // serialises writes to the port
	_         [0]func()      // not comparable
}

// Open opens the shuffler on the serial port at path, starts the reader and synchronises with
// the device (SYNC). A device that does not answer is an error: ErrNoAnswer.
func Open(path string, opts Opts) (*Dev, error) {
	opts = opts.withDefaults()
	p, err := openPort(path, opts.Baud)
	if err != nil {
		return nil, err
	}
	d := &Dev{
		path: path, opts: opts, port: p,
		log:    opts.Logger.With("device", "shuffler", "port", path),
		ackSeq: -1, replySeq: -1,
		ack: make(chan Frame, 1), reply: make(chan Frame, 1),
		up: make(chan struct{}), events: make(chan Event, 64),
		halt: make(chan struct{}), done: make(chan struct{}),
	}
	if opts.Record != nil {
		d.rec = transcript.NewWriter(opts.Record, "shuffler", path)
	}
	d.wg.Add(1)
	go d.readLoop()
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(opts.Retries+1)*opts.AckTimeout+2*time.Second)
	defer cancel()
	d.mu.Lock()
	d.haveLast = false
	d.mu.Unlock()
	if _, err := d.do(ctx, d.done, CmdSync, nil); err != nil {
		d.Close()
		return nil, fmt.Errorf("shuffler: %s: %w", path, err)
	}
	d.log.Info("shuffler connected")
	return d, nil
}

func openPort(path string, baud int) (serial.Port, error) {
	p, err := serialport.Open(path, baud, readPoll)
	if err != nil {
		return nil, fmt.Errorf("shuffler: %w", err)
	}
	return p, nil
}

// String names the device: "shuffler on /dev/ttyUSB0".
func (d *Dev) String() string { return "shuffler on " + d.path }

// Events returns the channel of asynchronous events: the device's (jam, door open, misfeed, card
// count mismatch, shuffle done) and the link's (down, up, errors). It is never closed; if nobody
// reads it, events beyond 64 are dropped with an error in the log.
func (d *Dev) Events() <-chan Event { return d.events }

// Status asks the device for its state.
func (d *Dev) Status(ctx context.Context) (Status, error) {
	f, err := d.command(ctx, CmdStatus, nil)
	if err != nil {
		return Status{}, err
	}
	return ParseStatus(f.Payload[1:])
}

// SelfTest runs the device's self-test. A failed test is a SelfTest with Passed false, not an error.
func (d *Dev) SelfTest(ctx context.Context) (SelfTest, error) {
	f, err := d.command(ctx, CmdSelfTest, nil)
	if err != nil {
		return SelfTest{}, err
	}
	p := f.Payload[1:]
	if len(p) < 1 {
		return SelfTest{}, fmt.Errorf("%w: self-test reply empty", ErrPayload)
	}
	return SelfTest{Passed: p[0] == 0, Code: Code(p[0]), Text: printable(string(p[1:]))}, nil
}

// LoadVerify has the device read every card in its input tray and keep that as the verified load
// (RULES.md §1 "Deck verification"). The caller compares the counts with the composition it
// expects (card.Diff). Unreadable cards return the counts read and an error wrapping ErrUnreadable.
func (d *Dev) LoadVerify(ctx context.Context) (card.Counts, error) {
	return d.counts(ctx, CmdLoadVerify)
}

// Count has the device read every card in its input tray without changing its state: the
// end-of-shoe accounting puts the cards left behind the cut card in the shuffler and counts them
// (RULES.md §1 "Counting").
func (d *Dev) Count(ctx context.Context) (card.Counts, error) {
	return d.counts(ctx, CmdCount)
}

func (d *Dev) counts(ctx context.Context, cmd Cmd) (card.Counts, error) {
	f, err := d.command(ctx, cmd, nil)
	if err != nil {
		return card.Counts{}, err
	}
	c, unreadable, err := ParseCounts(f.Payload[1:])
	if err != nil {
		return card.Counts{}, err
	}
	if unreadable > 0 {
		return c, fmt.Errorf("%w: %d card(s) not read", ErrUnreadable, unreadable)
	}
	return c, nil
}

// Shuffle runs a program on the verified load and returns what came out.
func (d *Dev) Shuffle(ctx context.Context, p Program) (Report, error) {
	b, err := p.MarshalBinary()
	if err != nil {
		return Report{}, err
	}
	f, err := d.command(ctx, CmdShuffle, b)
	if err != nil {
		return Report{}, err
	}
	r, err := ParseReport(f.Payload[1:])
	if err != nil {
		return Report{}, err
	}
	if r.Cards != p.Cards() {
		// The device should have refused with a count mismatch; never trust a short pack.
		return r, fmt.Errorf("%w: the device put out %d cards for a program of %d", ErrCountMismatch, r.Cards, p.Cards())
	}
	return r, nil
}

// Unload returns every card inside the machine (a rejected load, the cards left after a jam) to
// the output tray and reports how many.
func (d *Dev) Unload(ctx context.Context) (int, error) {
	f, err := d.command(ctx, CmdUnload, nil)
	if err != nil {
		return 0, err
	}
	p := f.Payload[1:]
	if len(p) != 2 {
		return 0, fmt.Errorf("%w: unload reply of %d bytes", ErrPayload, len(p))
	}
	return int(p[0])<<8 | int(p[1]), nil
}

// Halt stops the device's motors (HALT) and leaves the driver inert: every later command returns
// ErrHalted. A command in flight returns ErrHalted at once. It is idempotent and returns the
// first call's result.
func (d *Dev) Halt() error {
	d.haltOnce.Do(func() {
		close(d.halt)
		ctx, cancel := context.WithTimeout(context.Background(), time.Duration(d.opts.Retries+1)*d.opts.AckTimeout+time.Second)
		defer cancel()
		_, err := d.do(ctx, d.done, CmdHalt, nil)
		if err != nil {
			d.haltErr = fmt.Errorf("shuffler: halt: %w", err)
			d.log.Error("shuffler halt not confirmed", "err", err)
		} else {
			d.log.Info("shuffler halted")
		}
	})
	return d.haltErr
}

// Close stops the reader and closes the port. It does not halt the device (a shuffle in progress
// finishes); call Halt first for that.
func (d *Dev) Close() error {
	d.closeOnce.Do(func() {
		close(d.done)
		d.portMu.Lock()
		if d.port != nil {
			d.port.Close()
			d.port = nil
		}
		d.portMu.Unlock()
		d.wg.Wait()
	})
	return nil
}

// command runs one command unless the driver is halted.
func (d *Dev) command(ctx context.Context, cmd Cmd, payload []byte) (Frame, error) {
	select {
	case <-d.halt:
		return Frame{}, ErrHalted
	default:
	}
	return d.do(ctx, d.halt, cmd, payload)
}

// do sends a command reliably and waits for its reply. stop aborts it (Halt, or Close).
func (d *Dev) do(ctx context.Context, stop <-chan struct{}, cmd Cmd, payload []byte) (Frame, error) {
	d.cmdMu.Lock()
	defer d.cmdMu.Unlock()
	select {
	case <-d.done:
		return Frame{}, ErrClosed
	default:
	}
	if cmd == CmdSync {
		d.seq = 0
	} else {
		d.seq++
		if d.seq == 0 {
			d.seq = 1 // 0 belongs to SYNC
		}
	}
	seq := d.seq
	b, err := AppendFrame(nil, Frame{Seq: seq, Cmd: cmd, Payload: payload})
	if err != nil {
		return Frame{}, err
	}
	d.mu.Lock()
	d.replySeq = int(seq)
	select {
	case <-d.reply:
	default:
	}
	if cmd == CmdSync {
		d.haveLast = false
	}
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.replySeq = -1
		d.mu.Unlock()
	}()

	if err := d.send(ctx, stop, seq, cmd, b); err != nil {
		return Frame{}, err
	}
	timer := time.NewTimer(d.opts.ReplyTimeout)
	defer timer.Stop()
	poll := time.NewTicker(d.opts.Poll)
	defer poll.Stop()
	for {
		d.mu.Lock()
		up := d.up
		d.mu.Unlock()
		select {
		case f := <-d.reply:
			if f.Cmd == ReplyError {
				de, err := ParseError(f.Payload[1:])
				if err != nil {
					return Frame{}, err
				}
				return Frame{}, de
			}
			if f.Cmd != cmd|ReplyBit {
				return Frame{}, fmt.Errorf("%w: %s answered %s", ErrPayload, f.Cmd, cmd)
			}
			return f, nil
		case <-up:
			// The link dropped and came back while the device worked: its reply may have been
			// lost. Send the same frame again: the device recognises the sequence number,
			// never runs the command twice, and sends its reply again.
			d.log.Warn("link back while waiting: asking again", "cmd", cmd.String(), "seq", seq)
			if err := d.send(ctx, stop, seq, cmd, b); err != nil {
				return Frame{}, err
			}
		case <-poll.C:
			d.portMu.Lock()
			down := d.port == nil
			d.portMu.Unlock()
			if down {
				continue // asked again when the link is back (the case above)
			}
			d.log.Debug("asking again for the reply", "cmd", cmd.String(), "seq", seq)
			if err := d.send(ctx, stop, seq, cmd, b); err != nil {
				return Frame{}, err
			}
		case <-timer.C:
			return Frame{}, fmt.Errorf("%w to %s within %v", ErrNoReply, cmd, d.opts.ReplyTimeout)
		case <-ctx.Done():
			return Frame{}, fmt.Errorf("shuffler: %s: %w", cmd, ctx.Err())
		case <-stop:
			return Frame{}, d.stopErr()
		case <-d.done:
			return Frame{}, ErrClosed
		}
	}
}

func (d *Dev) stopErr() error {
	select {
	case <-d.done:
		return ErrClosed
	default:
		return ErrHalted
	}
}

// send writes a frame and waits for its ACK, sending it again on a NAK or a timeout.
func (d *Dev) send(ctx context.Context, stop <-chan struct{}, seq uint8, cmd Cmd, b []byte) error {
	d.mu.Lock()
	d.ackSeq = int(seq)
	select {
	case <-d.ack:
	default:
	}
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		d.ackSeq = -1
		d.mu.Unlock()
	}()
	var last error
	timer := time.NewTimer(0)
	<-timer.C
	for try := 0; try <= d.opts.Retries; try++ {
		if try > 0 {
			d.log.Warn("sending again", "cmd", cmd.String(), "seq", seq, "try", try+1, "why", last)
		}
		if err := d.write(b); err != nil {
			last = err
		}
		timer.Reset(d.opts.AckTimeout)
		select {
		case a := <-d.ack:
			timer.Stop()
			if a.Cmd == CmdAck {
				return nil
			}
			r := NakReason(0)
			if len(a.Payload) == 1 {
				r = NakReason(a.Payload[0])
			}
			if r == NakUnknown || r == NakPayload {
				return fmt.Errorf("%w: %s: %s", ErrNak, cmd, r)
			}
			last = fmt.Errorf("NAK: %s", r)
		case <-timer.C:
			if last == nil || !errors.Is(last, ErrLinkDown) {
				last = fmt.Errorf("no ACK within %v", d.opts.AckTimeout)
			}
		case <-ctx.Done():
			timer.Stop()
			return fmt.Errorf("shuffler: %s: %w", cmd, ctx.Err())
		case <-stop:
			timer.Stop()
			return d.stopErr()
		case <-d.done:
			timer.Stop()
			return ErrClosed
		}
	}
	err := fmt.Errorf("%w to %s after %d tries (last: %v)", ErrNoAnswer, cmd, d.opts.Retries+1, last)
	d.log.Error("shuffler does not answer", "err", err)
	d.emit(Event{Kind: LinkError, Err: err})
	return err
}

func (d *Dev) write(b []byte) error {
	d.portMu.Lock()
	p := d.port
	d.portMu.Unlock()
	if p == nil {
		return ErrLinkDown
	}
	d.wmu.Lock()
	defer d.wmu.Unlock()
	d.rec.Out(b)
	if _, err := p.Write(b); err != nil {
		return fmt.Errorf("%w: %v", ErrLinkDown, err)
	}
	return nil
}

func (d *Dev) answer(seq uint8, cmd Cmd, payload []byte) {
	b, _ := AppendFrame(nil, Frame{Seq: seq, Cmd: cmd, Payload: payload})
	if err := d.write(b); err != nil {
		d.log.Debug("could not answer", "cmd", cmd.String(), "err", err)
	}
}

func (d *Dev) emit(e Event) {
	select {
	case d.events <- e:
	default:
		d.mu.Lock()
		d.dropped++
		n := d.dropped
		d.mu.Unlock()
		d.log.Error("event dropped: nobody reads Events", "event", e.String(), "dropped", n)
	}
}

// readLoop reads the port, reconnecting with backoff when it vanishes, until Close.
func (d *Dev) readLoop() {
	defer d.wg.Done()
	buf := make([]byte, 1024)
	var sc Scanner
	quiet := 0
	backoff := &serialport.Backoff{Min: d.opts.BackoffMin, Max: d.opts.BackoffMax}
	for {
		select {
		case <-d.done:
			return
		default:
		}
		d.portMu.Lock()
		p := d.port
		d.portMu.Unlock()
		if p == nil {
			if !d.reconnect(backoff) {
				return
			}
			sc = Scanner{}
			continue
		}
		n, err := p.Read(buf)
		if err != nil {
			select {
			case <-d.done:
				return
			default:
			}
			d.portMu.Lock()
			if d.port == p {
				d.port = nil
			}
			d.portMu.Unlock()
			p.Close()
			if sc.Pending() > 0 {
				d.log.Warn("partial frame lost with the link", "bytes", sc.Pending())
			}
			d.log.Error("shuffler link down", "err", err)
			d.emit(Event{Kind: LinkDown, Err: fmt.Errorf("%w: %v", ErrLinkDown, err)})
			continue
		}
		if n == 0 {
			if sc.Pending() > 0 {
				if quiet++; quiet >= staleAfter {
					k := sc.Stale()
					d.linkError(fmt.Errorf("shuffler: incomplete frame of %d bytes timed out", k))
					d.drain(&sc)
				}
			}
			continue
		}
		quiet = 0
		d.rec.In(buf[:n])
		sc.Write(buf[:n])
		d.drain(&sc)
	}
}

func (d *Dev) reconnect(backoff *serialport.Backoff) bool {
	p, ok := serialport.Reopen(d.done, backoff, d.log, func() (serial.Port, error) { return openPort(d.path, d.opts.Baud) })
	if p == nil {
		return ok
	}
	d.portMu.Lock()
	select {
	case <-d.done:
		d.portMu.Unlock()
		p.Close()
		return false
	default:
	}
	d.port = p
	d.portMu.Unlock()
	d.log.Info("shuffler link up")
	d.mu.Lock()
	close(d.up)
	d.up = make(chan struct{})
	d.mu.Unlock()
	d.emit(Event{Kind: LinkUp})
	return true
}

func (d *Dev) linkError(err error) {
	d.log.Warn("shuffler link error", "err", err)
	d.emit(Event{Kind: LinkError, Err: err})
}

func (d *Dev) drain(sc *Scanner) {
	for {
		it, ok := sc.Next()
		if !ok {
			return
		}
		switch {
		case it.Skipped > 0:
			d.linkError(fmt.Errorf("shuffler: %d bytes of garbage on the line", it.Skipped))
		case it.Err != nil:
			d.linkError(it.Err)
			// Only a frame whose length held up and whose CRC or end byte failed was a frame:
			// NAK it so that its sender need not wait for the timeout. A bad length is most
			// likely an 0x02 inside garbage, not a frame.
			if errors.Is(it.Err, ErrCRC) || errors.Is(it.Err, ErrEnd) {
				d.answer(it.Err.Seq, CmdNak, []byte{byte(NakCRC)})
			}
		default:
			d.handle(it.Frame)
		}
	}
}

// handle acts on one good frame from the device.
func (d *Dev) handle(f Frame) {
	switch {
	case f.Cmd == CmdAck || f.Cmd == CmdNak:
		d.mu.Lock()
		if d.ackSeq == int(f.Seq) {
			select {
			case d.ack <- f:
			default:
			}
		}
		d.mu.Unlock()
		return
	case !f.Cmd.IsReply() && !f.Cmd.IsEvent():
		d.answer(f.Seq, CmdNak, []byte{byte(NakUnknown)})
		d.linkError(fmt.Errorf("shuffler: unexpected frame %s from the device", f))
		return
	}
	d.answer(f.Seq, CmdAck, nil)
	d.mu.Lock()
	if d.haveLast && d.last.Seq == f.Seq && d.last.Cmd == f.Cmd && string(d.last.Payload) == string(f.Payload) {
		d.mu.Unlock()
		return // a retransmission of a frame already taken: ACKed again, not used twice
	}
	d.last, d.haveLast = f, true
	if f.Cmd.IsReply() {
		if len(f.Payload) < 1 {
			d.mu.Unlock()
			d.linkError(fmt.Errorf("%w: %s without the command's sequence number", ErrPayload, f.Cmd))
			return
		}
		if d.replySeq == int(f.Payload[0]) {
			select {
			case d.reply <- f:
			default:
			}
			d.mu.Unlock()
			return
		}
		d.mu.Unlock()
		d.log.Warn("reply to no command in flight", "frame", f.String(), "for_seq", f.Payload[0])
		return
	}
	d.mu.Unlock()
	e, err := ParseEvent(f)
	if err != nil {
		d.linkError(err)
		return
	}
	d.log.Info("shuffler event", "event", e.String())
	d.emit(e)
}

// A physical resource in the periph sense (conn.Resource): a name and an idempotent Halt.
var _ interface {
	String() string
	Halt() error
} = (*Dev)(nil)
