package shuffler

import (
	"errors"
	"fmt"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Cmd is a frame's command or response code.
type Cmd uint8

// Commands, host → device.
const (
	CmdSync       Cmd = 0x00 // reset both sides' duplicate filters; sent by Open
	CmdStatus     Cmd = 0x01
	CmdSelfTest   Cmd = 0x02
	CmdLoadVerify Cmd = 0x03 // read every card in the input tray and keep it as the verified load
	CmdShuffle    Cmd = 0x04 // payload: a Program (5 bytes)
	CmdUnload     Cmd = 0x05 // return every card inside the machine to the output tray
	CmdHalt       Cmd = 0x06 // stop every motor now; the device stays halted until power-up or Sync
	CmdCount      Cmd = 0x07 // read every card in the input tray, changing nothing
)

// Replies, device → host: the command's code with the high bit set, or ReplyError.
const (
	ReplyBit   Cmd = 0x80
	ReplyError Cmd = 0xEE // payload: host seq, command, error code, ASCII text
)

// Events, device → host, unsolicited.
const (
	EvShuffleDone   Cmd = 0x40 // payload: cards shuffled (u16)
	EvJam           Cmd = 0x41 // payload: cards processed when it jammed (u16)
	EvDoorOpen      Cmd = 0x42
	EvDoorClosed    Cmd = 0x43
	EvMisfeed       Cmd = 0x44 // payload: cards processed when it misfed (u16)
	EvCountMismatch Cmd = 0x45 // payload: cards expected (u16), cards counted (u16)
)

// Link-level answers, either direction. Their SEQ is the sequence number of the frame answered.
const (
	CmdAck Cmd = 0xF0
	CmdNak Cmd = 0xF1 // payload: NakReason
)

// NakReason is the one payload byte of a NAK.
type NakReason uint8

// NAK reasons.
const (
	NakCRC     NakReason = 1 // CRC or end byte wrong: send it again
	NakLength  NakReason = 2 // reserved: a bad length is not NAKed (it is most likely not a frame)
	NakUnknown NakReason = 3 // the command is not known: do not send it again
	NakPayload NakReason = 4 // the payload does not fit the command: do not send it again
)

func (r NakReason) String() string {
	switch r {
	case NakCRC:
		return "bad CRC"
	case NakLength:
		return "bad length"
	case NakUnknown:
		return "unknown command"
	case NakPayload:
		return "bad payload"
	}
	return fmt.Sprintf("NAK reason %d", uint8(r))
}

var cmdNames = map[Cmd]string{
	CmdSync: "SYNC", CmdStatus: "STATUS", CmdSelfTest: "SELFTEST", CmdLoadVerify: "LOADVERIFY",
	CmdShuffle: "SHUFFLE", CmdUnload: "UNLOAD", CmdHalt: "HALT", CmdCount: "COUNT",
	ReplyError: "ERROR", EvShuffleDone: "EV_SHUFFLE_DONE", EvJam: "EV_JAM", EvDoorOpen: "EV_DOOR_OPEN",
	EvDoorClosed: "EV_DOOR_CLOSED", EvMisfeed: "EV_MISFEED", EvCountMismatch: "EV_COUNT_MISMATCH",
	CmdAck: "ACK", CmdNak: "NAK",
}

// String names the code: "STATUS", "STATUS_REPLY", "0x3f".
func (c Cmd) String() string {
	if s, ok := cmdNames[c]; ok {
		return s
	}
	if c&ReplyBit != 0 {
		if s, ok := cmdNames[c&^ReplyBit]; ok && c&^ReplyBit <= CmdCount {
			return s + "_REPLY"
		}
	}
	return fmt.Sprintf("%#02x", uint8(c))
}

// IsCommand reports whether c is a host → device command.
func (c Cmd) IsCommand() bool { return c <= CmdCount }

// IsEvent reports whether c is an unsolicited device event.
func (c Cmd) IsEvent() bool { return c >= EvShuffleDone && c <= EvCountMismatch }

// IsReply reports whether c answers a command.
func (c Cmd) IsReply() bool {
	return c == ReplyError || (c&ReplyBit != 0 && (c &^ ReplyBit).IsCommand())
}

// State is the machine's state in a status reply.
type State uint8

// Machine states.
const (
	Idle   State = 0
	Busy   State = 1
	Fault  State = 2
	Halted State = 3
)

func (s State) String() string {
	switch s {
	case Idle:
		return "idle"
	case Busy:
		return "busy"
	case Fault:
		return "fault"
	case Halted:
		return "halted"
	}
	return fmt.Sprintf("state %d", uint8(s))
}

// Status is the answer to STATUS.
type Status struct {
	State       State
	DoorOpen    bool
	Jammed      bool
	InputCards  int    // cards in the input tray
	OutputCards int    // cards in the output tray
	Fault       Code   // the fault that put it in State Fault, or 0
	Shuffles    uint32 // shuffles completed since manufacture (a meter, WAC 230-16-152)
	Serial      string // the machine's serial number (deck-check receipts name it, NJ 13:69E-1.18A)
	Firmware    string
}

// Status flags byte.
const (
	flagDoorOpen = 1 << 0
	flagJammed   = 1 << 1
)

// AppendStatus encodes s after the host sequence number (used by the simulator).
func AppendStatus(b []byte, s Status) []byte {
	var fl byte
	if s.DoorOpen {
		fl |= flagDoorOpen
	}
	if s.Jammed {
		fl |= flagJammed
	}
	b = append(b, byte(s.State), fl)
	b = be16(b, s.InputCards)
	b = be16(b, s.OutputCards)
	b = append(b, byte(s.Fault), byte(s.Shuffles>>24), byte(s.Shuffles>>16), byte(s.Shuffles>>8), byte(s.Shuffles))
	b = appendStr(b, s.Serial)
	return appendStr(b, s.Firmware)
}

// ParseStatus decodes a status payload (after the host sequence number).
func ParseStatus(p []byte) (Status, error) {
	r := reader{b: p}
	var s Status
	s.State = State(r.u8())
	fl := r.u8()
	s.DoorOpen, s.Jammed = fl&flagDoorOpen != 0, fl&flagJammed != 0
	s.InputCards, s.OutputCards = r.u16(), r.u16()
	s.Fault = Code(r.u8())
	s.Shuffles = uint32(r.u16())<<16 | uint32(r.u16())
	s.Serial, s.Firmware = r.str(), r.str()
	if err := r.done("status"); err != nil {
		return Status{}, err
	}
	return s, nil
}

// SelfTest is the answer to SELFTEST.
type SelfTest struct {
	Passed bool
	Code   Code   // 0 when passed
	Text   string // the device's own words
}

// Mode is a shuffle program's kind.
type Mode uint8

// Shuffle modes.
const (
	Batch        Mode = 0 // the whole load into one shoe (baccarat, blackjack: RULES.md §1)
	DeckPerRound Mode = 1 // one deck, shuffled before every round (poker family: RULES.md §1)
	HandForming  Mode = 2 // Hands hands of CardsPerHand cards each
)

func (m Mode) String() string {
	switch m {
	case Batch:
		return "batch"
	case DeckPerRound:
		return "deck-per-round"
	case HandForming:
		return "hand-forming"
	}
	return fmt.Sprintf("mode %d", uint8(m))
}

// Program is what SHUFFLE is asked to do.
type Program struct {
	Decks        int  // decks loaded, 1…8 (RULES.md §0: 1, 2, 4, 6 or 8)
	Mode         Mode // batch, deck per round, hand forming
	Hands        int  // hand forming: hands to form, 1…20
	CardsPerHand int  // hand forming: cards in each hand, 1…13
	// ReportOrder asks the device to send the order of the shuffled cards. The order is a secret
	// that never leaves the daemon (RULES.md §1 "Shuffle"); ask for it only where the host needs it.
	ReportOrder bool
}

// ErrProgram is wrapped by Program.Validate errors.
var ErrProgram = errors.New("shuffler: bad program")

// Validate checks the program's ranges.
func (p Program) Validate() error {
	switch {
	case p.Decks < 1 || p.Decks > 8:
		return fmt.Errorf("%w: %d decks (1…8)", ErrProgram, p.Decks)
	case p.Mode > HandForming:
		return fmt.Errorf("%w: unknown %v", ErrProgram, p.Mode)
	case p.Mode == DeckPerRound && p.Decks != 1:
		return fmt.Errorf("%w: deck per round with %d decks", ErrProgram, p.Decks)
	case p.Mode != HandForming && (p.Hands != 0 || p.CardsPerHand != 0):
		return fmt.Errorf("%w: hands given for %v", ErrProgram, p.Mode)
	case p.Mode == HandForming && (p.Hands < 1 || p.Hands > 20 || p.CardsPerHand < 1 || p.CardsPerHand > 13):
		return fmt.Errorf("%w: %d hands of %d cards (1…20 of 1…13)", ErrProgram, p.Hands, p.CardsPerHand)
	case p.Mode == HandForming && p.Hands*p.CardsPerHand > p.Decks*52:
		return fmt.Errorf("%w: %d hands of %d cards from %d decks", ErrProgram, p.Hands, p.CardsPerHand, p.Decks)
	}
	return nil
}

// Cards returns how many cards the program puts out.
func (p Program) Cards() int {
	if p.Mode == HandForming {
		return p.Hands * p.CardsPerHand
	}
	return p.Decks * 52
}

// MarshalBinary encodes the 5-byte SHUFFLE payload.
func (p Program) MarshalBinary() ([]byte, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	var fl byte
	if p.ReportOrder {
		fl = 1
	}
	return []byte{byte(p.Decks), byte(p.Mode), byte(p.Hands), byte(p.CardsPerHand), fl}, nil
}

// UnmarshalBinary decodes and validates a SHUFFLE payload.
func (p *Program) UnmarshalBinary(b []byte) error {
	if len(b) != 5 {
		return fmt.Errorf("%w: %d bytes, want 5", ErrProgram, len(b))
	}
	if b[4]&^1 != 0 {
		return fmt.Errorf("%w: unknown flags %#02x", ErrProgram, b[4])
	}
	q := Program{Decks: int(b[0]), Mode: Mode(b[1]), Hands: int(b[2]), CardsPerHand: int(b[3]), ReportOrder: b[4]&1 != 0}
	if err := q.Validate(); err != nil {
		return err
	}
	*p = q
	return nil
}

// Report is the answer to SHUFFLE.
type Report struct {
	Cards int         // cards shuffled and put out
	Order []card.Card // the order they come out in, when asked for and reported; nil otherwise
}

// String reports the count only: the order is a secret (RULES.md §1 "Shuffle").
func (r Report) String() string {
	if r.Order != nil {
		return fmt.Sprintf("%d cards shuffled (order reported)", r.Cards)
	}
	return fmt.Sprintf("%d cards shuffled", r.Cards)
}

// Wire encoding of a card: one byte, 1…52 = card.Index()+1 (As=1, Ah=2, Ad=3, Ac=4, 2s=5 … Kc=52),
// 0 = a card the reader could not read.

// CardByte encodes c; None (an unreadable card) is 0.
func CardByte(c card.Card) byte {
	if !c.Valid() {
		return 0
	}
	return byte(c.Index() + 1)
}

// ByteCard decodes a card byte; ok is false for 0 and for bytes over 52.
func ByteCard(b byte) (c card.Card, ok bool) {
	if b == 0 || b > 52 {
		return card.None, false
	}
	return card.FromIndex(int(b) - 1), true
}

// AppendCounts encodes a composition: 52 big-endian u16 counts in card.Index order, then the
// number of unreadable cards (u16). Counts are clamped to 65535.
func AppendCounts(b []byte, c card.Counts, unreadable int) []byte {
	for _, n := range c {
		b = be16(b, n)
	}
	return be16(b, unreadable)
}

// ParseCounts decodes AppendCounts's bytes.
func ParseCounts(p []byte) (c card.Counts, unreadable int, err error) {
	r := reader{b: p}
	for i := range c {
		c[i] = r.u16()
	}
	unreadable = r.u16()
	return c, unreadable, r.done("counts")
}

// AppendReport encodes a shuffle report: the count (u16), then the order (one byte per card) when
// reported.
func AppendReport(b []byte, r Report) []byte {
	b = be16(b, r.Cards)
	for _, c := range r.Order {
		b = append(b, CardByte(c))
	}
	return b
}

// ParseReport decodes a shuffle report. An order, when present, must hold exactly Cards cards,
// every one readable: a wrong card is worse than no card.
func ParseReport(p []byte) (Report, error) {
	if len(p) < 2 {
		return Report{}, fmt.Errorf("%w: report: %d bytes", ErrPayload, len(p))
	}
	r := Report{Cards: int(p[0])<<8 | int(p[1])}
	order := p[2:]
	if len(order) == 0 {
		return r, nil
	}
	if len(order) != r.Cards {
		return Report{}, fmt.Errorf("%w: report of %d cards carries an order of %d", ErrPayload, r.Cards, len(order))
	}
	r.Order = make([]card.Card, len(order))
	for i, x := range order {
		c, ok := ByteCard(x)
		if !ok {
			return Report{}, fmt.Errorf("%w: report: card byte %#02x at position %d", ErrPayload, x, i)
		}
		r.Order[i] = c
	}
	return r, nil
}

// ErrPayload is wrapped when a frame's payload does not fit its code.
var ErrPayload = errors.New("shuffler: bad payload")

func be16(b []byte, n int) []byte {
	n = min(max(n, 0), 0xFFFF)
	return append(b, byte(n>>8), byte(n))
}

func appendStr(b []byte, s string) []byte {
	if len(s) > 255 {
		s = s[:255]
	}
	b = append(b, byte(len(s)))
	return append(b, s...)
}

// reader decodes a payload; the first short read sets err and every later read returns zero.
type reader struct {
	b   []byte
	err bool
}

func (r *reader) u8() int {
	if len(r.b) < 1 {
		r.err = true
		return 0
	}
	x := r.b[0]
	r.b = r.b[1:]
	return int(x)
}

func (r *reader) u16() int { return r.u8()<<8 | r.u8() }

func (r *reader) str() string {
	n := r.u8()
	if len(r.b) < n {
		r.err = true
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	for _, c := range []byte(s) {
		if c < 0x20 || c > 0x7E {
			r.err = true
			return ""
		}
	}
	return s
}

func (r *reader) done(what string) error {
	if r.err {
		return fmt.Errorf("%w: %s too short", ErrPayload, what)
	}
	if len(r.b) != 0 {
		return fmt.Errorf("%w: %s has %d extra bytes", ErrPayload, what, len(r.b))
	}
	return nil
}

// Code is a device error or fault code, carried by ERROR replies, status and self-test answers.
type Code uint8

// Device codes.
const (
	CodeNone          Code = 0
	CodeBusy          Code = 1 // another command is running
	CodeDoorOpen      Code = 2
	CodeJam           Code = 3
	CodeMisfeed       Code = 4
	CodeCountMismatch Code = 5 // the cards counted are not the cards the program needs
	CodeEmpty         Code = 6 // no cards in the input tray
	CodeBadProgram    Code = 7
	CodeHalted        Code = 8
	CodeSensor        Code = 9 // self-test: a sensor failed
	CodeNotVerified   Code = 10
)

var codeNames = map[Code]string{
	CodeNone: "none", CodeBusy: "busy", CodeDoorOpen: "door open", CodeJam: "jam", CodeMisfeed: "misfeed",
	CodeCountMismatch: "card count mismatch", CodeEmpty: "input tray empty", CodeBadProgram: "bad program",
	CodeHalted: "halted", CodeSensor: "sensor failure", CodeNotVerified: "load not verified",
}

func (c Code) String() string {
	if s, ok := codeNames[c]; ok {
		return s
	}
	return fmt.Sprintf("code %d", uint8(c))
}

// Sentinels that DeviceError matches with errors.Is, so callers can branch on the device's code.
var (
	ErrBusy          = errors.New("shuffler: busy")
	ErrDoorOpen      = errors.New("shuffler: door open")
	ErrJam           = errors.New("shuffler: jam")
	ErrMisfeed       = errors.New("shuffler: misfeed")
	ErrCountMismatch = errors.New("shuffler: card count mismatch")
	ErrEmpty         = errors.New("shuffler: input tray empty")
	ErrDeviceHalted  = errors.New("shuffler: device halted")
)

var codeErrs = map[Code]error{
	CodeBusy: ErrBusy, CodeDoorOpen: ErrDoorOpen, CodeJam: ErrJam, CodeMisfeed: ErrMisfeed,
	CodeCountMismatch: ErrCountMismatch, CodeEmpty: ErrEmpty, CodeBadProgram: ErrProgram, CodeHalted: ErrDeviceHalted,
}

// DeviceError is an ERROR reply: the device refused or failed a command.
type DeviceError struct {
	Cmd  Cmd
	Code Code
	Text string // the device's own words
}

func (e *DeviceError) Error() string {
	if e.Text == "" {
		return fmt.Sprintf("shuffler: %s failed: %s", e.Cmd, e.Code)
	}
	return fmt.Sprintf("shuffler: %s failed: %s: %s", e.Cmd, e.Code, e.Text)
}

// Is matches the sentinel of the error's code (ErrJam for CodeJam, …).
func (e *DeviceError) Is(target error) bool { return codeErrs[e.Code] == target && target != nil }

// AppendError encodes an ERROR payload after the host sequence number.
func AppendError(b []byte, e DeviceError) []byte {
	b = append(b, byte(e.Cmd), byte(e.Code))
	return append(b, printable(e.Text)...)
}

// ParseError decodes an ERROR payload (after the host sequence number).
func ParseError(p []byte) (*DeviceError, error) {
	if len(p) < 2 {
		return nil, fmt.Errorf("%w: error reply of %d bytes", ErrPayload, len(p))
	}
	return &DeviceError{Cmd: Cmd(p[0]), Code: Code(p[1]), Text: printable(string(p[2:]))}, nil
}

// printable replaces bytes outside printable ASCII with '?', so device text is safe to log.
func printable(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7E {
			b[i] = '?'
		}
	}
	if len(b) > 200 {
		b = b[:200]
	}
	return string(b)
}

// EventKind says what happened.
type EventKind uint8

// Event kinds: the device's own (ShuffleDone … CountMismatch) and the driver's view of the link.
const (
	ShuffleDone EventKind = iota + 1
	Jam
	DoorOpen
	DoorClosed
	Misfeed
	CountMismatch
	LinkDown  // the port went away: the driver is reconnecting
	LinkUp    // the port is back
	LinkError // garbage, a damaged frame, a NAK or a frame that made no sense: Err says which
)

func (k EventKind) String() string {
	switch k {
	case ShuffleDone:
		return "shuffle done"
	case Jam:
		return "jam"
	case DoorOpen:
		return "door open"
	case DoorClosed:
		return "door closed"
	case Misfeed:
		return "misfeed"
	case CountMismatch:
		return "card count mismatch"
	case LinkDown:
		return "link down"
	case LinkUp:
		return "link up"
	case LinkError:
		return "link error"
	}
	return fmt.Sprintf("event %d", uint8(k))
}

// Event is an asynchronous event from the device or the link.
type Event struct {
	Kind     EventKind
	Cards    int   // ShuffleDone: cards shuffled; Jam, Misfeed: cards processed; CountMismatch: counted
	Expected int   // CountMismatch: cards expected
	Err      error // LinkDown, LinkError: what went wrong
}

func (e Event) String() string {
	switch e.Kind {
	case ShuffleDone:
		return fmt.Sprintf("shuffle done: %d cards", e.Cards)
	case Jam, Misfeed:
		return fmt.Sprintf("%s after %d cards", e.Kind, e.Cards)
	case CountMismatch:
		return fmt.Sprintf("card count mismatch: %d counted, %d expected", e.Cards, e.Expected)
	case LinkDown, LinkError:
		if e.Err != nil {
			return fmt.Sprintf("%s: %v", e.Kind, e.Err)
		}
	}
	return e.Kind.String()
}

// ParseEvent decodes an event frame.
func ParseEvent(f Frame) (Event, error) {
	r := reader{b: f.Payload}
	var e Event
	switch f.Cmd {
	case EvShuffleDone:
		e = Event{Kind: ShuffleDone, Cards: r.u16()}
	case EvJam:
		e = Event{Kind: Jam, Cards: r.u16()}
	case EvDoorOpen:
		e = Event{Kind: DoorOpen}
	case EvDoorClosed:
		e = Event{Kind: DoorClosed}
	case EvMisfeed:
		e = Event{Kind: Misfeed, Cards: r.u16()}
	case EvCountMismatch:
		e = Event{Kind: CountMismatch}
		e.Expected, e.Cards = r.u16(), r.u16()
	default:
		return Event{}, fmt.Errorf("%w: %s is not an event", ErrPayload, f.Cmd)
	}
	if err := r.done(f.Cmd.String()); err != nil {
		return Event{}, err
	}
	return e, nil
}

// EventFrame encodes an event's payload (used by the simulator).
func EventFrame(e Event) (Cmd, []byte) {
	switch e.Kind {
	case ShuffleDone:
		return EvShuffleDone, be16(nil, e.Cards)
	case Jam:
		return EvJam, be16(nil, e.Cards)
	case DoorOpen:
		return EvDoorOpen, nil
	case DoorClosed:
		return EvDoorClosed, nil
	case Misfeed:
		return EvMisfeed, be16(nil, e.Cards)
	case CountMismatch:
		return EvCountMismatch, be16(be16(nil, e.Expected), e.Cards)
	}
	return 0, nil
}
