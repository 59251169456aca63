package tablebus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Status is the retained birth/death message on Topics.Status (Sparkplug B's NBIRTH/NDEATH
// idea, in JSON, at QoS 1 and retained). The daemon publishes it online when it connects; the
// broker publishes the offline copy, registered as the connection's last will, when the
// connection dies. Session increases with every daemon start (persisted in the journal) and
// Conn with every connection attempt within a session (Sparkplug's bdSeq), so (Session, Conn)
// orders births and deaths: a consumer ignores a death older than the birth it holds (a will
// can overtake a rebirth). Status messages are sealed like events, without a chain.
type Status struct {
	V       int       `json:"v"`
	Table   string    `json:"table"`
	Online  bool      `json:"online"`
	Session uint64    `json:"session"`
	Conn    uint64    `json:"conn,omitempty"`
	Game    string    `json:"game,omitempty"`
	Seq     uint64    `json:"seq"` // the last event's seq at the time of the message
	TS      time.Time `json:"ts"`
	Kid     string    `json:"kid,omitempty"`
	Sig     string    `json:"sig,omitempty"`
}

// Before reports whether s is an older connection of the daemon than t.
func (s Status) Before(t Status) bool {
	return s.Session < t.Session || s.Session == t.Session && s.Conn < t.Conn
}

// Command is a message on Topics.Commands: the dealer terminal (or a simulator) asking the
// daemon to do something.
type Command struct {
	V      int    `json:"v"`
	ID     string `json:"id,omitempty"`     // correlation id, echoed in log lines
	Cmd    string `json:"cmd"`              // see Commands
	Dealer string `json:"dealer,omitempty"` // who: recorded with manual cards and voids
	// Supervisor is the supervisor who approves the command: the signer, whose key must be a
	// supervisor's; Dealer then names the dealer at the terminal (CommandGuard.Check).
	Supervisor string     `json:"supervisor,omitempty"`
	At         int        `json:"at,omitempty"`     // cut
	Behind     int        `json:"behind,omitempty"` // cutcard
	Bets       []Bet      `json:"bets,omitempty"`   // bets
	Seat       int        `json:"seat,omitempty"`   // decision
	Choice     string     `json:"decision,omitempty"`
	Card       *card.Card `json:"card,omitempty"`   // manual
	Reason     string     `json:"reason,omitempty"` // void
	Action     string     `json:"action,omitempty"` // table: the chemin de fer bank's "withdraw", "accept", …
	Amount     int64      `json:"amount,omitempty"` // table
	Limits     []Limit    `json:"limits,omitempty"` // limits: every spot's
	// Attest: new-shoe on a table whose shuffler reads no card: how the dealer shuffled the
	// decks they attest ("hand", "pre-shuffled", "csm").
	Attest string `json:"attest,omitempty"`
	// The seal: when it was signed (a command further than CommandWindow from the daemon's
	// clock is refused), the signing key's id and the signature (seal.go).
	TS  time.Time `json:"ts,omitzero"`
	Kid string    `json:"kid,omitempty"`
	Sig string    `json:"sig,omitempty"`
}

// The commands a daemon accepts.
var Commands = map[string]string{
	"new-shoe":    "the cards are in the shuffler: read and verify them, then shuffle",
	"cut":         "the player's cut: at = cards moved from the front to the back",
	"cutcard":     "the stop card is placed: behind = cards behind it",
	"bets":        "no more bets: the round opens with these bets",
	"decision":    "a player's decision: seat, decision",
	"manual":      "the dealer enters the held card by hand: card, dealer",
	"void":        "void the held round: reason, dealer",
	"count":       "the cards left in the shoe are in the shuffler: count them (end of shoe)",
	"cutcard-out": "the stop card came out (for a shoe whose reader does not report it)",
	"table":       "a between-rounds action on the game's state: action, seat, amount (the chemin de fer bank)",
	"open":        "the table opens for play (a supervisor)",
	"close":       "the table closes: no round opens until it opens again (a supervisor)",
	"sign-in":     "the dealer signed in at the terminal",
	"sign-out":    "the dealer signed out (reason: signed out, inactive, relieved)",
	"limits":      "the table's limits change between rounds: limits = every spot's (a supervisor)",
	"end-shoe":    "end a continuous shuffler's shoe between rounds, to count its cards",
}

// Reply answers one command on Topics.Replies.
type Reply struct {
	V     int    `json:"v"`
	ID    string `json:"id,omitempty"`
	Cmd   string `json:"cmd"`
	OK    bool   `json:"ok"`
	Error string `json:"error,omitempty"`
}

// DecodeCommand reads a command payload strictly.
func DecodeCommand(b []byte) (Command, error) {
	var c Command
	if len(b) > MaxPayload {
		return c, fmt.Errorf("tablebus: command of %d bytes exceeds %d", len(b), MaxPayload)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(&c); err != nil {
		return Command{}, fmt.Errorf("tablebus: bad command: %w", err)
	}
	if d.More() {
		return Command{}, fmt.Errorf("tablebus: bad command: data after the command")
	}
	if c.V != SchemaVersion {
		return Command{}, fmt.Errorf("tablebus: command schema version %d, want %d", c.V, SchemaVersion)
	}
	if _, ok := Commands[c.Cmd]; !ok {
		return Command{}, fmt.Errorf("tablebus: unknown command %q", c.Cmd)
	}
	return c, nil
}
