package shufflertest

import (
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/sabot-tables/sabot/driver/internal/ptyline"
	"github.com/sabot-tables/sabot/driver/shuffler"
	"github.com/sabot-tables/sabot/shoe/card"
)

// LineFaults are per-byte fault probabilities for one direction of the simulated line.
type LineFaults = ptyline.Faults

// LineStats counts what the simulated line did to the bytes that crossed it.
type LineStats = ptyline.Stats

// What a corrupted byte becomes (see LineFaults.As).
const (
	FramingError = ptyline.FramingError // the byte arrives as NUL, as Linux delivers a framing error
	RandomByte   = ptyline.RandomByte   // the byte becomes a random different byte
)

// Opts configures a Sim. The zero value is usable.
type Opts struct {
	// Seed seeds the shuffle order and the line faults: the same seed and the same calls give the
	// same simulation. The simulator's math/rand/v2 PCG is for simulation only; a real
	// random-slot shuffler uses a cryptographic RNG (RULES.md §1 "Shuffle").
	Seed uint64
	// NoOrder: the device never reports the order of a shuffle, even when asked.
	NoOrder bool
	// CardTime is how long reading or shuffling one card takes; default 0 (instant).
	CardTime time.Duration
	// AckTimeout and Retries govern the device's own resending of replies and events; defaults
	// 250 ms and 3.
	AckTimeout time.Duration
	Retries    int
	// Serial and Firmware are reported by STATUS; defaults "SIM-0001" and "sabot-sim 1".
	Serial, Firmware string
	Logger           *slog.Logger
}

// Stats counts what the simulated device did.
type Stats struct {
	Executed   map[shuffler.Cmd]int // commands run (a retransmitted command is not run again)
	Duplicates int                  // commands received again and answered from the reply cache
	Resent     int                  // frames the device sent again for lack of an ACK
	GaveUp     int                  // frames the device stopped sending after every retry
	Line       LineStats
}

// Sim is a simulated shuffler on a pseudo-terminal.
type Sim struct {
	line *ptyline.Line
	opts Opts
	log  *slog.Logger

	mu        sync.Mutex
	rng       *rand.Rand
	input     []card.Card // the input tray; card.None is a card the reader cannot read
	inside    []card.Card // in the machine: a pack being shuffled, or cards left by a fault
	output    []card.Card // the output tray
	door      bool        // open
	jammed    bool
	jamAt     int // the next shuffle jams after this many cards; -1: no jam
	misfeedAt int
	loseNext  bool
	lost      []card.Card
	fault     shuffler.Code
	halted    bool
	busy      bool
	abort     chan struct{} // closed to stop the running operation
	shuffles  uint32
	mute      bool
	stats     Stats

	// protocol state
	lastCmd   shuffler.Frame // the last command run, for the duplicate filter
	haveCmd   bool
	cached    []byte // the encoded reply to lastCmd, once sent
	txSeq     uint8
	out       chan queued // frames to send reliably, one at a time
	session   int         // incremented by SYNC: frames queued for an earlier host are dropped
	kick      chan struct{}
	ack       chan shuffler.Frame
	ackSeq    int
	done      chan struct{}
	closeOnce sync.Once
	wg        sync.WaitGroup
}

// NewSim starts a simulated shuffler. Port returns the path for shuffler.Open.
func NewSim(opts Opts) (*Sim, error) {
	if opts.AckTimeout <= 0 {
		opts.AckTimeout = 250 * time.Millisecond
	}
	if opts.Retries == 0 {
		opts.Retries = 3
	}
	if opts.Serial == "" {
		opts.Serial = "SIM-0001"
	}
	if opts.Firmware == "" {
		opts.Firmware = "sabot-sim 1"
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	line, err := ptyline.New("ttyShuffler", opts.Seed)
	if err != nil {
		return nil, fmt.Errorf("shufflertest: %w", err)
	}
	s := &Sim{
		line: line, opts: opts, log: opts.Logger.With("sim", "shuffler"),
		rng:   rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x5f3759df)),
		jamAt: -1, misfeedAt: -1, ackSeq: -1,
		out: make(chan queued, 64), kick: make(chan struct{}, 1), ack: make(chan shuffler.Frame, 1), done: make(chan struct{}),
		stats: Stats{Executed: map[shuffler.Cmd]int{}},
	}
	s.wg.Add(2)
	go s.readLoop()
	go s.sendLoop()
	return s, nil
}

// Port returns the path the driver opens (a stable symlink to the pseudo-terminal).
func (s *Sim) Port() string { return s.line.Path() }

// String names the simulator.
func (s *Sim) String() string { return "simulated shuffler on " + s.line.Path() }

// Insert puts cards in the input tray. card.None stands for a card the reader cannot read (a
// foreign card, a joker).
func (s *Sim) Insert(cards []card.Card) {
	s.mu.Lock()
	s.input = append(s.input, cards...)
	s.mu.Unlock()
}

// TakeOutput takes the cards out of the output tray, in the order they lie (the first card is the
// first the shoe will deal).
func (s *Sim) TakeOutput() []card.Card {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.output
	s.output = nil
	return out
}

// Input returns a copy of the cards in the input tray.
func (s *Sim) Input() []card.Card {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]card.Card(nil), s.input...)
}

// Jam makes the next shuffle jam after n cards. The jam stays until ClearJam.
func (s *Sim) Jam(n int) {
	s.mu.Lock()
	s.jamAt = n
	s.mu.Unlock()
}

// ClearJam is the technician clearing the jam; the cards stay inside until UNLOAD.
func (s *Sim) ClearJam() {
	s.mu.Lock()
	s.jammed = false
	if s.fault == shuffler.CodeJam {
		s.fault = shuffler.CodeNone
	}
	s.mu.Unlock()
}

// Misfeed makes the next shuffle misfeed after n cards; UNLOAD recovers the cards.
func (s *Sim) Misfeed(n int) {
	s.mu.Lock()
	s.misfeedAt = n
	s.mu.Unlock()
}

// LoseCard makes the next shuffle lose one card inside the machine: the device counts one card
// short, reports a count mismatch, and the card comes back on UNLOAD.
func (s *Sim) LoseCard() {
	s.mu.Lock()
	s.loseNext = true
	s.mu.Unlock()
}

// OpenDoor opens the door: EV_DOOR_OPEN, and a running operation stops with a door-open fault.
func (s *Sim) OpenDoor() {
	s.mu.Lock()
	was := s.door
	s.door = true
	if s.abort != nil {
		close(s.abort)
		s.abort = nil
	}
	s.mu.Unlock()
	if !was {
		s.event(shuffler.Event{Kind: shuffler.DoorOpen})
	}
}

// CloseDoor closes the door: EV_DOOR_CLOSED.
func (s *Sim) CloseDoor() {
	s.mu.Lock()
	was := s.door
	s.door = false
	if s.fault == shuffler.CodeDoorOpen {
		s.fault = shuffler.CodeNone
	}
	s.mu.Unlock()
	if was {
		s.event(shuffler.Event{Kind: shuffler.DoorClosed})
	}
}

// Mute makes the device deaf (true) or answer again (false): a device that never answers.
func (s *Sim) Mute(on bool) {
	s.mu.Lock()
	s.mute = on
	s.mu.Unlock()
}

// SetLineFaults sets byte faults on what the device sends (out) and receives (in).
func (s *Sim) SetLineFaults(out, in LineFaults) { s.line.SetFaults(out, in) }

// Unplug pulls the cable; Plug puts it back at the same path.
func (s *Sim) Unplug() error { return s.line.Unplug() }

// Plug plugs the cable back in.
func (s *Sim) Plug() error { return s.line.Plug() }

// Stats returns what the device has done so far.
func (s *Sim) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Executed = make(map[shuffler.Cmd]int, len(s.stats.Executed))
	for k, v := range s.stats.Executed {
		st.Executed[k] = v
	}
	st.Line = s.line.Stats()
	return st
}

// Close stops the simulator and removes its port.
func (s *Sim) Close() error {
	var err error
	s.closeOnce.Do(func() {
		close(s.done)
		s.mu.Lock()
		if s.abort != nil {
			close(s.abort)
			s.abort = nil
		}
		s.mu.Unlock()
		err = s.line.Close()
		s.wg.Wait()
	})
	return err
}

// readLoop reads the host's frames and answers them.
func (s *Sim) readLoop() {
	defer s.wg.Done()
	buf := make([]byte, 1024)
	var sc shuffler.Scanner
	s.line.SetReadTimeout(50 * time.Millisecond)
	quiet := 0
	for {
		n, err := s.line.Read(buf)
		if err != nil {
			if !errors.Is(err, ptyline.ErrClosed) {
				s.log.Error("reading the line", "err", err)
			}
			return
		}
		if n == 0 {
			// As the driver does: a partial frame that stays incomplete through 150 ms of
			// silence had a damaged length; give up its STX.
			if sc.Pending() > 0 {
				if quiet++; quiet >= 3 {
					sc.Stale()
					quiet = 0
				} else {
					continue
				}
			} else {
				continue
			}
		} else {
			quiet = 0
		}
		sc.Write(buf[:n])
		for {
			it, ok := sc.Next()
			if !ok {
				break
			}
			s.mu.Lock()
			mute := s.mute
			s.mu.Unlock()
			switch {
			case mute:
			case it.Skipped > 0:
				s.log.Debug("garbage from the host", "bytes", it.Skipped)
			case it.Err != nil:
				if errors.Is(it.Err, shuffler.ErrCRC) || errors.Is(it.Err, shuffler.ErrEnd) {
					s.send(it.Err.Seq, shuffler.CmdNak, []byte{byte(shuffler.NakCRC)})
				}
			default:
				s.handle(it.Frame)
			}
		}
	}
}

// send writes a link frame (ACK, NAK) once; it is never acknowledged.
func (s *Sim) send(seq uint8, cmd shuffler.Cmd, payload []byte) {
	b, _ := shuffler.AppendFrame(nil, shuffler.Frame{Seq: seq, Cmd: cmd, Payload: payload})
	s.line.Write(b)
}

type queued struct {
	b       []byte
	session int
}

// queue encodes a reply or event with the next device sequence number and sends it reliably.
func (s *Sim) queue(cmd shuffler.Cmd, payload []byte) []byte {
	s.mu.Lock()
	s.txSeq++
	b, _ := shuffler.AppendFrame(nil, shuffler.Frame{Seq: s.txSeq, Cmd: cmd, Payload: payload})
	s.mu.Unlock()
	s.enqueue(b)
	return b
}

func (s *Sim) enqueue(b []byte) {
	s.mu.Lock()
	q := queued{b: b, session: s.session}
	s.mu.Unlock()
	select {
	case s.out <- q:
	case <-s.done:
	}
}

// current reports whether q belongs to the host session now connected.
func (s *Sim) current(q queued) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return q.session == s.session
}

func (s *Sim) event(e shuffler.Event) {
	cmd, p := shuffler.EventFrame(e)
	s.queue(cmd, p)
}

// sendLoop sends queued frames one at a time, each until ACKed or out of retries.
func (s *Sim) sendLoop() {
	defer s.wg.Done()
	for {
		var q queued
		select {
		case q = <-s.out:
		case <-s.done:
			return
		}
		b := q.b
		f, _, _ := shuffler.Decode(b)
		s.mu.Lock()
		s.ackSeq = int(f.Seq)
		select {
		case <-s.ack:
		default:
		}
		s.mu.Unlock()
		acked := false
		for try := 0; try <= s.opts.Retries && !acked && s.current(q); try++ {
			if try > 0 {
				s.mu.Lock()
				s.stats.Resent++
				s.mu.Unlock()
			}
			s.line.Write(b)
			t := time.NewTimer(s.opts.AckTimeout)
		wait:
			select {
			case a := <-s.ack:
				acked = a.Cmd == shuffler.CmdAck
				if !acked && len(a.Payload) == 1 && (shuffler.NakReason(a.Payload[0]) == shuffler.NakUnknown) {
					try = s.opts.Retries // the host will never take it
				}
			case <-t.C:
			case <-s.kick: // a new host: stop sending the old one's frames
				if s.current(q) {
					goto wait // this frame is the new host's: keep waiting for its ACK
				}
			case <-s.done:
				t.Stop()
				return
			}
			t.Stop()
		}
		s.mu.Lock()
		s.ackSeq = -1
		stale := q.session != s.session
		if !acked && !stale {
			s.stats.GaveUp++
		}
		s.mu.Unlock()
		if !acked && !stale {
			s.log.Warn("host never acknowledged", "frame", f.String())
		}
	}
}

// handle acts on one good frame from the host.
func (s *Sim) handle(f shuffler.Frame) {
	if f.Cmd == shuffler.CmdAck || f.Cmd == shuffler.CmdNak {
		s.mu.Lock()
		if s.ackSeq == int(f.Seq) {
			select {
			case s.ack <- f:
			default:
			}
		}
		s.mu.Unlock()
		return
	}
	if !f.Cmd.IsCommand() {
		s.send(f.Seq, shuffler.CmdNak, []byte{byte(shuffler.NakUnknown)})
		return
	}
	wantPayload := 0
	if f.Cmd == shuffler.CmdShuffle {
		wantPayload = 5
	}
	if len(f.Payload) != wantPayload {
		s.send(f.Seq, shuffler.CmdNak, []byte{byte(shuffler.NakPayload)})
		return
	}
	s.send(f.Seq, shuffler.CmdAck, nil)

	s.mu.Lock()
	if f.Cmd != shuffler.CmdSync && s.haveCmd && s.lastCmd.Seq == f.Seq && s.lastCmd.Cmd == f.Cmd && string(s.lastCmd.Payload) == string(f.Payload) {
		// The same command again: the host missed our ACK or our reply. Never run it twice;
		// send the reply again if there is one (a running command replies when it finishes).
		s.stats.Duplicates++
		cached := s.cached
		s.mu.Unlock()
		if cached != nil {
			s.enqueue(cached)
		}
		return
	}
	s.lastCmd, s.haveCmd, s.cached = f, true, nil
	s.stats.Executed[f.Cmd]++
	s.mu.Unlock()

	switch f.Cmd {
	case shuffler.CmdSync:
		s.mu.Lock()
		s.haveCmd = false // a new host: forget its sequence numbers and its pending frames
		s.halted = false
		s.session++
		s.mu.Unlock()
		select {
		case s.kick <- struct{}{}:
		default:
		}
		s.reply(f, nil)
	case shuffler.CmdStatus:
		s.reply(f, shuffler.AppendStatus(nil, s.status()))
	case shuffler.CmdHalt:
		s.mu.Lock()
		s.halted = true
		if s.abort != nil {
			close(s.abort)
			s.abort = nil
		}
		s.mu.Unlock()
		s.reply(f, nil)
	default:
		s.mu.Lock()
		code := shuffler.CodeNone
		switch {
		case s.halted:
			code = shuffler.CodeHalted
		case s.busy:
			code = shuffler.CodeBusy
		}
		if code != shuffler.CodeNone {
			s.mu.Unlock()
			s.fail(f, code, "")
			return
		}
		s.busy = true
		abort := make(chan struct{})
		s.abort = abort
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.run(f, abort)
			s.mu.Lock()
			s.busy = false
			if s.abort == abort {
				s.abort = nil
			}
			s.mu.Unlock()
		}()
	}
}

// reply sends a command's reply and keeps it for a repeated command.
func (s *Sim) reply(f shuffler.Frame, payload []byte) {
	b := s.queue(f.Cmd|shuffler.ReplyBit, append([]byte{f.Seq}, payload...))
	s.cache(f, b)
}

func (s *Sim) fail(f shuffler.Frame, code shuffler.Code, text string) {
	p := shuffler.AppendError([]byte{f.Seq}, shuffler.DeviceError{Cmd: f.Cmd, Code: code, Text: text})
	b := s.queue(shuffler.ReplyError, p)
	s.cache(f, b)
}

func (s *Sim) cache(f shuffler.Frame, b []byte) {
	s.mu.Lock()
	if s.haveCmd && s.lastCmd.Seq == f.Seq && s.lastCmd.Cmd == f.Cmd {
		s.cached = b
	}
	s.mu.Unlock()
}

func (s *Sim) status() shuffler.Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := shuffler.Status{
		DoorOpen: s.door, Jammed: s.jammed, InputCards: len(s.input), OutputCards: len(s.output),
		Fault: s.fault, Shuffles: s.shuffles, Serial: s.opts.Serial, Firmware: s.opts.Firmware,
	}
	switch {
	case s.halted:
		st.State = shuffler.Halted
	case s.fault != shuffler.CodeNone || s.jammed:
		st.State = shuffler.Fault
	case s.busy:
		st.State = shuffler.Busy
	}
	return st
}

// wait spends n card times; false if the operation was aborted.
func (s *Sim) wait(n int, abort chan struct{}) bool {
	if s.opts.CardTime <= 0 || n <= 0 {
		select {
		case <-abort:
			return false
		default:
			return true
		}
	}
	t := time.NewTimer(time.Duration(n) * s.opts.CardTime)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-abort:
		return false
	}
}

// stopped turns an abort into the matching error reply.
func (s *Sim) stopped(f shuffler.Frame) {
	s.mu.Lock()
	code := shuffler.CodeHalted
	if s.door {
		code = shuffler.CodeDoorOpen
		s.fault = code
	}
	s.mu.Unlock()
	s.fail(f, code, "stopped")
}

// run executes a slow command on its own goroutine.
func (s *Sim) run(f shuffler.Frame, abort chan struct{}) {
	s.mu.Lock()
	door, jammed := s.door, s.jammed
	s.mu.Unlock()
	switch {
	case door && f.Cmd != shuffler.CmdSelfTest:
		s.fail(f, shuffler.CodeDoorOpen, "")
		return
	case jammed && f.Cmd != shuffler.CmdSelfTest:
		s.fail(f, shuffler.CodeJam, "clear the jam first")
		return
	}
	switch f.Cmd {
	case shuffler.CmdSelfTest:
		if !s.wait(10, abort) {
			s.stopped(f)
			return
		}
		switch {
		case door:
			s.reply(f, append([]byte{byte(shuffler.CodeDoorOpen)}, "door open"...))
		case jammed:
			s.reply(f, append([]byte{byte(shuffler.CodeJam)}, "card path blocked"...))
		default:
			s.reply(f, append([]byte{0}, "all sensors and motors pass"...))
		}
	case shuffler.CmdLoadVerify, shuffler.CmdCount:
		s.mu.Lock()
		tray := append([]card.Card(nil), s.input...)
		s.mu.Unlock()
		if !s.wait(len(tray), abort) {
			s.stopped(f)
			return
		}
		var c card.Counts
		bad := 0
		for _, x := range tray {
			if x.Valid() {
				c.Add(x)
			} else {
				bad++
			}
		}
		s.reply(f, shuffler.AppendCounts(nil, c, bad))
	case shuffler.CmdUnload:
		s.mu.Lock()
		n := len(s.inside) + len(s.lost) + len(s.input)
		s.output = append(append(append(s.output, s.inside...), s.lost...), s.input...)
		s.inside, s.lost, s.input = nil, nil, nil
		s.fault = shuffler.CodeNone
		s.mu.Unlock()
		if !s.wait(n, abort) {
			s.stopped(f)
			return
		}
		s.reply(f, []byte{byte(n >> 8), byte(n)})
	case shuffler.CmdShuffle:
		s.shuffle(f, abort)
	}
}

func (s *Sim) shuffle(f shuffler.Frame, abort chan struct{}) {
	var p shuffler.Program
	if err := p.UnmarshalBinary(f.Payload); err != nil {
		s.fail(f, shuffler.CodeBadProgram, err.Error())
		return
	}
	s.mu.Lock()
	n := len(s.input)
	want := p.Decks * 52
	unreadable := 0
	for _, x := range s.input {
		if !x.Valid() {
			unreadable++
		}
	}
	if n == 0 {
		s.mu.Unlock()
		s.fail(f, shuffler.CodeEmpty, "")
		return
	}
	if n != want || unreadable > 0 {
		s.fault = shuffler.CodeCountMismatch
		s.mu.Unlock()
		s.event(shuffler.Event{Kind: shuffler.CountMismatch, Expected: want, Cards: n - unreadable})
		s.fail(f, shuffler.CodeCountMismatch, fmt.Sprintf("%d cards read of %d, %d unreadable", n-unreadable, want, unreadable))
		return
	}
	pack := s.input
	s.input = nil
	jamAt, misAt := s.jamAt, s.misfeedAt
	s.jamAt, s.misfeedAt = -1, -1
	lose := s.loseNext
	s.loseNext = false
	s.mu.Unlock()

	for i := range pack {
		if !s.wait(1, abort) {
			s.mu.Lock()
			s.inside = append(s.inside, pack[i:]...)
			s.mu.Unlock()
			s.stopped(f)
			return
		}
		s.mu.Lock()
		s.inside = append(s.inside, pack[i])
		s.mu.Unlock()
		if i+1 == jamAt || i+1 == misAt {
			s.mu.Lock()
			s.inside = append(s.inside, pack[i+1:]...)
			ev, code := shuffler.Misfeed, shuffler.CodeMisfeed
			if i+1 == jamAt {
				s.jammed = true
				ev, code = shuffler.Jam, shuffler.CodeJam
			}
			s.fault = code
			s.mu.Unlock()
			s.event(shuffler.Event{Kind: ev, Cards: i + 1})
			s.fail(f, code, fmt.Sprintf("after %d cards", i+1))
			return
		}
	}
	s.mu.Lock()
	mixed := s.inside
	s.inside = nil
	s.rng.Shuffle(len(mixed), func(i, j int) { mixed[i], mixed[j] = mixed[j], mixed[i] })
	if lose {
		k := s.rng.IntN(len(mixed))
		s.lost = append(s.lost, mixed[k])
		mixed = append(mixed[:k:k], mixed[k+1:]...)
	}
	out := mixed
	if p.Mode == shuffler.HandForming {
		out = mixed[:p.Cards()]
		s.input = append(s.input, mixed[p.Cards():]...) // the rest waits for the next round
	}
	s.output = append(s.output, out...)
	if len(out) != p.Cards() {
		s.fault = shuffler.CodeCountMismatch
		s.mu.Unlock()
		s.event(shuffler.Event{Kind: shuffler.CountMismatch, Expected: p.Cards(), Cards: len(out)})
		s.fail(f, shuffler.CodeCountMismatch, fmt.Sprintf("%d cards out of %d", len(out), p.Cards()))
		return
	}
	s.shuffles++
	s.mu.Unlock()
	r := shuffler.Report{Cards: len(out)}
	if p.ReportOrder && !s.opts.NoOrder {
		r.Order = out
	}
	s.event(shuffler.Event{Kind: shuffler.ShuffleDone, Cards: len(out)})
	s.reply(f, shuffler.AppendReport(nil, r))
}
