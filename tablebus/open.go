package tablebus

import (
	"bytes"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"
)

// entry finds kid for use, refusing a revoked or unknown key.
func (k *Keyring) entry(kid, use string) (KeyEntry, ed25519.PublicKey, error) {
	if slices.Contains(k.Revoked, kid) {
		return KeyEntry{}, nil, fmt.Errorf("%w %s (%s)", ErrRevokedKey, kid, k)
	}
	for _, e := range k.Keys {
		if e.Kid == kid {
			if e.Use != use {
				return e, nil, fmt.Errorf("%w: key %s is a %s key, not a %s key", ErrKeyNotValid, kid, e.Use, use)
			}
			return e, k.pubs[kid], nil
		}
	}
	return KeyEntry{}, nil, fmt.Errorf("%w %s (%s)", ErrUnknownKey, kid, k)
}

func (e KeyEntry) validAt(at time.Time) error {
	if at.Before(e.NotBefore) || e.NotAfter != nil && !at.Before(*e.NotAfter) {
		return fmt.Errorf("%w: key %s is valid from %s%s, not at %s", ErrKeyNotValid, e.Kid,
			e.NotBefore.UTC().Format(time.RFC3339), until(e.NotAfter), at.UTC().Format(time.RFC3339))
	}
	return nil
}

// Opened is a verified event with the facts of its seal.
type Opened struct {
	Event Event
	Seal  Sealed
}

// OpenEvent checks a sealed event payload received on topic and decodes it: the signature with
// the key the keyring holds for the key id (before anything else of the payload is read), then
// the strict schema, then that the key belongs to the event's table and was valid at the
// event's time, and that the topic is the table's. A verifier needs nothing but the bytes, the
// topic and the keyring.
func OpenEvent(kr *Keyring, topic string, payload []byte) (Opened, error) {
	if len(payload) > MaxPayload {
		return Opened{}, fmt.Errorf("tablebus: payload of %d bytes exceeds %d", len(payload), MaxPayload)
	}
	s, err := ParseSeal(payload, true)
	if err != nil {
		return Opened{}, err
	}
	ent, pub, err := kr.entry(s.KeyID, UseEvents)
	if err != nil {
		return Opened{}, err
	}
	if err := s.Verify(DomainEvent, topic, pub); err != nil {
		return Opened{}, err
	}
	e, err := Decode(payload)
	if err != nil {
		return Opened{}, err
	}
	if e.Table != ent.Table {
		return Opened{}, fmt.Errorf("%w: key %s belongs to table %s, the event says %s", ErrKeyNotValid, s.KeyID, ent.Table, e.Table)
	}
	if TableOf(topic) != e.Table {
		return Opened{}, fmt.Errorf("tablebus: event of table %s on topic %s", e.Table, topic)
	}
	if err := ent.validAt(e.TS); err != nil {
		return Opened{}, err
	}
	return Opened{Event: e, Seal: s}, nil
}

// SealStatus seals a status message for topic.
func SealStatus(s *Signer, topic string, st Status) ([]byte, error) {
	st.Kid, st.Sig = "", ""
	body, err := json.Marshal(st)
	if err != nil {
		return nil, fmt.Errorf("tablebus: status: %w", err)
	}
	return s.Seal(DomainStatus, topic, body)
}

// OpenStatus checks and decodes a sealed status message received on topic.
func OpenStatus(kr *Keyring, topic string, payload []byte) (Status, error) {
	if len(payload) > MaxPayload {
		return Status{}, fmt.Errorf("tablebus: status of %d bytes exceeds %d", len(payload), MaxPayload)
	}
	s, err := ParseSeal(payload, false)
	if err != nil {
		return Status{}, err
	}
	ent, pub, err := kr.entry(s.KeyID, UseEvents)
	if err != nil {
		return Status{}, err
	}
	if err := s.Verify(DomainStatus, topic, pub); err != nil {
		return Status{}, err
	}
	var st Status
	if err := strict(payload, &st); err != nil {
		return Status{}, fmt.Errorf("tablebus: bad status: %w", err)
	}
	if st.V != SchemaVersion || st.Table != ent.Table || TableOf(topic) != st.Table {
		return Status{}, fmt.Errorf("tablebus: status of table %q (v%d) on %s signed by table %s's key", st.Table, st.V, topic, ent.Table)
	}
	if err := ent.validAt(st.TS); err != nil {
		return Status{}, err
	}
	return st, nil
}

func strict(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return errors.New("data after the message")
	}
	return nil
}

// CommandWindow is how far a signed command's time may be from the daemon's clock: a command
// is an action of now, so an old one is a replay (unlike events, which may legitimately be
// re-published long after).
const CommandWindow = 30 * time.Second

// CommandRoles lists who may give each command. The croupier runs the round; the jefe de
// mesa supervises it (seed 000: "Cada mesa de juego debe ser atendida por un croupier,
// debiendo ser supervisada por un jefe de mesa") and alone brings new cards, which are left on
// the table for him to inspect (seed 000: "las cartas se dejan sobre la mesa para que el jefe
// de mesa ... puedan inspeccionarlas"). What a dealer alone may not do is the supervisor's to
// approve (issue 18): voiding a round, opening and closing the table, changing its limits, and
// (the shoe machine's rule, RULES.md §1) entering a foreign card's place by hand. A supervisor
// may give every command.
var CommandRoles = map[string][]string{
	"new-shoe":    {RoleSupervisor},
	"cut":         {RoleDealer, RoleSupervisor},
	"cutcard":     {RoleDealer, RoleSupervisor},
	"bets":        {RoleDealer, RoleSupervisor},
	"decision":    {RoleDealer, RoleSupervisor},
	"manual":      {RoleDealer, RoleSupervisor},
	"void":        {RoleSupervisor},
	"count":       {RoleDealer, RoleSupervisor},
	"cutcard-out": {RoleDealer, RoleSupervisor},
	"table":       {RoleDealer, RoleSupervisor},
	"open":        {RoleSupervisor},
	"close":       {RoleSupervisor},
	"sign-in":     {RoleDealer, RoleSupervisor},
	"sign-out":    {RoleDealer, RoleSupervisor},
	"limits":      {RoleSupervisor},
	"end-shoe":    {RoleDealer, RoleSupervisor},
}

// SealCommand seals a command for topic, stamping it with the time now.
func SealCommand(s *Signer, topic string, c Command, now time.Time) ([]byte, error) {
	c.Kid, c.Sig, c.TS = "", "", now.UTC()
	body, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("tablebus: command: %w", err)
	}
	return s.Seal(DomainCommand, topic, body)
}

// ErrCommandRefused wraps every reason a signed command is refused.
var ErrCommandRefused = errors.New("tablebus: command refused")

// CommandGuard checks signed commands for one table: signature, role, freshness, and that
// none is applied twice. Its methods are safe for concurrent use.
type CommandGuard struct {
	mu    sync.Mutex
	kr    *Keyring
	seen  map[string]time.Time // signatures within the window
	since time.Time            // commands signed before this are refused
}

// NewCommandGuard returns a guard checking commands against kr.
func NewCommandGuard(kr *Keyring) *CommandGuard {
	return &CommandGuard{kr: kr, seen: map[string]time.Time{}}
}

// Since refuses every command signed before t: a daemon sets its start time, because the
// signatures it saw before a restart are forgotten and a command re-sent across the restart
// (a dealer terminal's client re-sending after a reconnect) must not be applied twice.
func (g *CommandGuard) Since(t time.Time) {
	g.mu.Lock()
	g.since = t
	g.mu.Unlock()
}

// SetKeyring replaces the keyring (rotation).
func (g *CommandGuard) SetKeyring(kr *Keyring) {
	g.mu.Lock()
	g.kr = kr
	g.mu.Unlock()
}

// Check opens a command received on topic at time now. It returns the command with Dealer set
// to the signer's name (a supervisor's command may name the dealer at the terminal instead, and
// has Supervisor set to the supervisor's), and the signing key's entry.
func (g *CommandGuard) Check(topic string, payload []byte, now time.Time) (Command, KeyEntry, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	refuse := func(err error) (Command, KeyEntry, error) {
		return Command{}, KeyEntry{}, fmt.Errorf("%w: %w", ErrCommandRefused, err)
	}
	if len(payload) > MaxPayload {
		return refuse(fmt.Errorf("command of %d bytes exceeds %d", len(payload), MaxPayload))
	}
	s, err := ParseSeal(payload, false)
	if err != nil {
		return refuse(err)
	}
	ent, pub, err := g.kr.entry(s.KeyID, UseCommands)
	if err != nil {
		return refuse(err)
	}
	if err := s.Verify(DomainCommand, topic, pub); err != nil {
		return refuse(err)
	}
	c, err := DecodeCommand(payload)
	if err != nil {
		return refuse(err)
	}
	table := TableOf(topic)
	if ent.Table != "*" && ent.Table != table {
		return refuse(fmt.Errorf("%w: key %s (%s) may command table %s, not %s", ErrKeyNotValid, ent.Kid, ent.Name, ent.Table, table))
	}
	if err := ent.validAt(c.TS); err != nil {
		return refuse(err)
	}
	if !g.since.IsZero() && c.TS.Before(g.since) {
		return refuse(fmt.Errorf("command signed at %s, before this daemon started (%s): it may have been applied already; send it again",
			c.TS.Format(time.RFC3339Nano), g.since.Format(time.RFC3339Nano)))
	}
	if d := now.Sub(c.TS); d > CommandWindow || d < -CommandWindow {
		return refuse(fmt.Errorf("command signed at %s, %v from now (window %v): a replay or a wrong clock",
			c.TS.Format(time.RFC3339Nano), d.Round(time.Millisecond), CommandWindow))
	}
	if !slices.Contains(CommandRoles[c.Cmd], ent.Role) {
		return refuse(fmt.Errorf("%s (%s) may not give the command %q (allowed: %v)", ent.Name, ent.Role, c.Cmd, CommandRoles[c.Cmd]))
	}
	switch {
	case ent.Role == RoleSupervisor:
		// The supervisor approves, and signs for, what the dealer at the terminal does: Dealer
		// names that dealer (the supervisor's signature covers it), or the supervisor.
		if c.Supervisor != "" && c.Supervisor != ent.Name {
			return refuse(fmt.Errorf("the command names supervisor %q but is signed by %s's key", c.Supervisor, ent.Name))
		}
		c.Supervisor = ent.Name
	case c.Supervisor != "":
		return refuse(fmt.Errorf("the command names supervisor %q but is signed by %s (%s), not a supervisor", c.Supervisor, ent.Name, ent.Role))
	case c.Dealer != "" && c.Dealer != ent.Name:
		return refuse(fmt.Errorf("the command names %q but is signed by %s's key", c.Dealer, ent.Name))
	}
	for k, t := range g.seen {
		if now.Sub(t) > 2*CommandWindow {
			delete(g.seen, k)
		}
	}
	key := string(s.sig)
	if _, dup := g.seen[key]; dup {
		return refuse(errors.New("the same signed command was already applied (a replay)"))
	}
	g.seen[key] = now
	if c.Dealer == "" || ent.Role != RoleSupervisor {
		c.Dealer = ent.Name
	}
	return c, ent, nil
}

// Ack is a consumer's acknowledgement, retained on Topics.Ack: it has processed every event of
// the table up to Seq.
type Ack struct {
	V        int       `json:"v"`
	Table    string    `json:"table"`
	Consumer string    `json:"consumer"`
	Seq      uint64    `json:"seq"`
	TS       time.Time `json:"ts"`
}

// DecodeAck reads an acknowledgement strictly and checks that it belongs to topic.
func DecodeAck(topic string, b []byte) (Ack, error) {
	var a Ack
	if len(b) > 1024 {
		return a, fmt.Errorf("tablebus: ack of %d bytes", len(b))
	}
	if err := strict(b, &a); err != nil {
		return Ack{}, fmt.Errorf("tablebus: bad ack: %w", err)
	}
	if a.V != SchemaVersion || topic != (Topics{Table: a.Table}).Ack(a.Consumer) {
		return Ack{}, fmt.Errorf("tablebus: ack for %s/%s (v%d) on %s", a.Table, a.Consumer, a.V, topic)
	}
	return a, nil
}

// ReplayRequest asks the daemon to publish events From to To (inclusive) again, on both feeds.
type ReplayRequest struct {
	V        int       `json:"v"`
	Table    string    `json:"table"`
	Consumer string    `json:"consumer"`
	From     uint64    `json:"from"`
	To       uint64    `json:"to"`
	TS       time.Time `json:"ts"`
}

// DecodeReplay reads a replay request strictly and checks that it belongs to topic.
func DecodeReplay(topic string, b []byte) (ReplayRequest, error) {
	var r ReplayRequest
	if len(b) > 1024 {
		return r, fmt.Errorf("tablebus: replay request of %d bytes", len(b))
	}
	if err := strict(b, &r); err != nil {
		return ReplayRequest{}, fmt.Errorf("tablebus: bad replay request: %w", err)
	}
	if r.V != SchemaVersion || topic != (Topics{Table: r.Table}).Replay(r.Consumer) {
		return ReplayRequest{}, fmt.Errorf("tablebus: replay request for %s/%s (v%d) on %s", r.Table, r.Consumer, r.V, topic)
	}
	if r.From == 0 || r.To < r.From {
		return ReplayRequest{}, fmt.Errorf("tablebus: replay request for events %d to %d", r.From, r.To)
	}
	return r, nil
}
