package shoe

import (
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

// Input is one thing that happened at the table, fed to Machine.Step. Every input carries its
// time: the machine never reads a clock.
type Input interface{ when() time.Time }

// NewCards: the shuffler read every card put in it (the new-cards deck verification of
// RULES.md §1, and the start of every shoe).
type NewCards struct {
	Counts card.Counts
	By     string // who brought the new cards (the supervisor at the terminal), or ""
	// Attested: no device read the cards; the dealer attests N complete decks (a table without
	// a shuffler's link, or a continuous shuffler): the decks are verified by the cards that
	// pass through the reading shoe, at the shoe's count (RULES.md §1 "Deck verification").
	Attested bool
	Time     time.Time
}

// ShuffleDone: the shuffler shuffled the cards.
type ShuffleDone struct {
	Cards int
	By    string // "shuffler", or "host" where the daemon chose the order
	Time  time.Time
}

// CutDone: the player cut the pack, moving At cards from the front to the back.
type CutDone struct {
	At     int
	Dealer string
	Time   time.Time
}

// CutCardPlaced: the dealer placed the stop card with Behind cards behind it.
type CutCardPlaced struct {
	Behind int
	Dealer string
	Time   time.Time
}

// ReadKind is what the shoe's reader saw.
type ReadKind uint8

// What a read can be.
const (
	ReadCard       ReadKind = iota + 1 // a card, identified
	ReadCut                            // the cut (stop) card
	ReadUnreadable                     // a card left the shoe but could not be read with confidence
)

// Read: a card (or the cut card) left the shoe.
type Read struct {
	Kind     ReadKind
	Card     card.Card // ReadCard
	BurnMode bool      // the shoe was in its burn mode
	// ReadUnreadable: why, in words that name no card; the cards the reader saw without
	// agreeing on one (a camera's frames); the device's damaged line, as it came.
	Detail string
	Seen   []card.Card
	Raw    string
	Time   time.Time
}

// OpenRound: no more bets; the round starts with these bets.
type OpenRound struct {
	Bets   []games.Bet
	Dealer string // who closed the bets at the terminal, or ""
	Time   time.Time
}

// PlayerDecision: a player's decision, entered at the dealer terminal.
type PlayerDecision struct {
	Seat   int
	Choice string
	Dealer string // who entered it, or ""
	Time   time.Time
}

// ManualCard: the dealer entered the held card by hand (RULES.md §1 "Misread").
type ManualCard struct {
	Card   card.Card
	Dealer string
	// Supervisor approves the entry where the dealer alone may not make it: the place of a
	// card the shoe cannot hold (a foreign card read where the card dealt is a genuine one).
	Supervisor string
	Time       time.Time
}

// VoidRound: the dealer voids the held round (or dismisses a hold outside a round).
type VoidRound struct {
	Reason     string
	Dealer     string
	Supervisor string // who approved it, or ""
	Time       time.Time
}

// TableAction: a between-rounds action on the game's state (the chemin de fer bank).
type TableAction struct {
	Action games.Action
	Dealer string
	Time   time.Time
}

// LeftCounted: the cards left in the shoe at its end were counted (by the shuffler).
type LeftCounted struct {
	Counts card.Counts
	By     string // who asked for the count, or ""
	Time   time.Time
}

// Table operations (TableOp.Op).
const (
	OpOpen    = "open"     // the table opens for play
	OpClose   = "close"    // the table closes: no round opens until it opens again
	OpSignIn  = "sign-in"  // a dealer signed in at the terminal
	OpSignOut = "sign-out" // and out
)

// TableOp: a table operation given at the dealer terminal.
type TableOp struct {
	Op       string
	By       string // the dealer or supervisor who gave it
	Approved string // the supervisor who approved it, or ""
	Reason   string // sign-out: "signed out", "inactive", "relieved"
	Time     time.Time
}

// EndShoe: the dealer ends a shoe that has no stop card to end it (a continuous shuffler's),
// to count its cards.
type EndShoe struct {
	By   string
	Time time.Time
}

// ChangeLimits: new limits between rounds, every spot's (a supervisor's change, seed 003).
type ChangeLimits struct {
	Limits     []games.Limit
	Dealer     string
	Supervisor string
	Time       time.Time
}

// DeviceFault: a device reported a fault (a jam, the lid opened, a link lost).
type DeviceFault struct {
	Device string
	Code   string
	Detail string
	Time   time.Time
}

func (i NewCards) when() time.Time       { return i.Time }
func (i ShuffleDone) when() time.Time    { return i.Time }
func (i CutDone) when() time.Time        { return i.Time }
func (i CutCardPlaced) when() time.Time  { return i.Time }
func (i Read) when() time.Time           { return i.Time }
func (i OpenRound) when() time.Time      { return i.Time }
func (i PlayerDecision) when() time.Time { return i.Time }
func (i ManualCard) when() time.Time     { return i.Time }
func (i VoidRound) when() time.Time      { return i.Time }
func (i LeftCounted) when() time.Time    { return i.Time }
func (i TableAction) when() time.Time    { return i.Time }
func (i DeviceFault) when() time.Time    { return i.Time }
func (i TableOp) when() time.Time        { return i.Time }
func (i ChangeLimits) when() time.Time   { return i.Time }
func (i EndShoe) when() time.Time        { return i.Time }
