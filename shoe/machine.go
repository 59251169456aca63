package shoe

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// Phase is where a shoe is in its life.
type Phase uint8

// The phases of a shoe, in order.
const (
	Idle     Phase = iota // no shoe: waiting for the cards to be read (new-shoe)
	Verified              // the cards are complete: waiting for the shuffle
	Shuffled              // waiting for the player's cut
	CutDown               // cut: waiting for the stop card
	Burning               // burning at the start of the shoe
	Between               // between rounds: waiting for bets or the first card
	InRound               // a round is being dealt
	Counting              // the shoe is over: waiting for the count of the cards left
)

var phaseNames = [...]string{"idle", "verified", "shuffled", "cut", "burning", "between-rounds", "in-round", "counting"}

func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return fmt.Sprintf("Phase(%d)", uint8(p))
}

// Fault codes carried by fault events.
const (
	FaultDeck         = "deck"              // the cards read on load are not N complete decks
	FaultMisread      = "misread"           // a card could not be read with confidence
	FaultOutOfTurn    = "out-of-turn"       // a card the game's rules do not allow here
	FaultForeign      = "foreign-card"      // a card the shoe cannot contain any more
	FaultCutCard      = "cut-card-position" // the stop card seen where it cannot be
	FaultUnexpected   = "unexpected-card"   // a card drawn when the shoe is not being dealt
	FaultCardWhenHeld = "card-while-held"   // a card drawn while the round was held
	FaultAccounting   = "accounting"        // dealt + burned + left is not the shoe
	FaultCount        = "shuffle-count"     // the shuffler shuffled a different number of cards
	FaultStopMissing  = "stop-card-missing" // cards came out past the stop card without it
	FaultNoRound      = "no-round"          // a card came out before a round could open
	FaultEngine       = "engine"            // the game engine failed: the round cannot be settled
)

// Config is a machine's configuration.
type Config struct {
	Proc   Procedure
	Engine games.Engine // the table's game, the machine's dealing guide
	Table  string       // for shoe ids
	// FirstShoe and FirstRound number the next shoe and round (restored after a restart).
	FirstShoe  uint64
	FirstRound uint64
	// Manage applies between-rounds actions to the engine's state (catalog.Manage); nil
	// refuses them.
	Manage func(games.Engine, games.Action) (any, error)
	// Progressive is the pool the table's progressive bets feed at a floor's controller
	// (RULES.md §7; the engine a games.Claimer); "" takes no progressive bet.
	Progressive string
	// HandCount: no device counts the cards left at the shoe's end (a table without a
	// shuffler's link); the dealer passes them through the reading shoe, each a card.counted,
	// and the count verifies the decks (RULES.md §1 "Deck verification").
	HandCount bool
}

// ErrRefused wraps every error Step returns: the input is refused, nothing changed, nothing to
// publish (a command out of place, a bet the table refuses). Faults are events, not errors.
var ErrRefused = errors.New("refused")

// Machine is one table's shoe: the rules of RULES.md §1 as a pure state machine. Step takes one
// input and returns the events to journal and publish, in order. It does no I/O.
type Machine struct {
	cfg  Config
	eng  games.Engine
	game string

	phase  Phase
	held   *hold
	closed bool // the table is closed (TableOp close): no round opens

	shoeNo, roundNo uint64
	shoe            string
	round           uint64 // the round in progress, 0 between rounds

	verified  card.Counts // the shoe's composition, verified on load
	remaining card.Counts // verified minus every card seen
	dealt     int
	burned    int
	unknown   int // cards dealt that were never identified (a misread in a voided round)
	foreign   []card.Card
	pos       int // cards out of the shoe so far (burns included; the stop card not)
	behind    int
	cutSeenAt int

	burnLeft   int
	firstShown bool

	roundPos   []int             // the shoe position of each card of the round in progress, by round index
	roundCards []card.Card       // and the card (None where unknown)
	hidden     map[int]card.Card // face-down cards of the round not yet turned up, by position
	bets       []games.Bet
	pending    int  // the unread card held by a misread, at this shoe position
	stopLate   bool // the stop card was missed and reported late
	lastSay    []games.Msg

	counted   card.Counts // HandCount: the cards left read so far at the count
	returned  int         // Continuous: the cards the shuffler took back after each round
	returnPos int         // Continuous: m.pos at the last return

	progOpen  bool      // the controller is online: progressive bets are taken (progressive.go)
	progWait  *progWait // the round dealt, waiting for its award
	replaying bool      // Replay: the journal's inputs were taken once, they are taken again
}

type hold struct {
	code   string
	detail string
	msg    games.Msg // the guidance while it holds (holdMsg)
	manual bool      // manual entry resolves it
	// approvable: a manual entry approved by a supervisor resolves it (a foreign card, the
	// only card fault of the hold: the supervisor saw a genuine card read wrongly).
	approvable bool
}

// snapshot returns a copy of the machine's own state (not the engine's: an engine leaves
// itself unchanged when it refuses), for Step to put back when it refuses an input.
func (m *Machine) snapshot() Machine {
	c := *m
	c.foreign = append([]card.Card(nil), m.foreign...)
	c.roundPos = append([]int(nil), m.roundPos...)
	c.roundCards = append([]card.Card(nil), m.roundCards...)
	c.bets = append([]games.Bet(nil), m.bets...)
	c.lastSay = append([]games.Msg(nil), m.lastSay...)
	if m.hidden != nil {
		c.hidden = make(map[int]card.Card, len(m.hidden))
		for k, v := range m.hidden {
			c.hidden[k] = v
		}
	}
	if m.held != nil {
		h := *m.held
		c.held = &h
	}
	return c
}

// NewMachine returns an idle machine.
func NewMachine(cfg Config) (*Machine, error) {
	if cfg.Engine == nil {
		return nil, fmt.Errorf("shoe: no game engine")
	}
	if cfg.Proc.Decks <= 0 {
		return nil, fmt.Errorf("shoe: procedure without decks")
	}
	return &Machine{cfg: cfg, eng: cfg.Engine, game: cfg.Engine.Game(), shoeNo: cfg.FirstShoe, roundNo: cfg.FirstRound}, nil
}

// Phase returns the shoe's phase.
func (m *Machine) Phase() Phase { return m.phase }

// Held returns the fault holding the table, or "".
func (m *Machine) Held() string {
	if m.held == nil {
		return ""
	}
	return m.held.code
}

// Shoe returns the current shoe id, or "".
func (m *Machine) Shoe() string { return m.shoe }

// Round returns the round in progress, or 0.
func (m *Machine) Round() uint64 { return m.round }

// Need returns what the game needs next while a round is in progress.
func (m *Machine) Need() games.Need {
	if m.phase != InRound {
		return games.Need{}
	}
	return m.eng.Need()
}

// Left returns how many cards are still in the shoe (the stop card not counted).
func (m *Machine) Left() int {
	if m.phase < Burning {
		return 0
	}
	return m.cfg.Proc.Total() - (m.pos - m.returnPos)
}

// Counted returns the cards left counted so far through the reading shoe (Config.HandCount).
func (m *Machine) Counted() card.Counts { return m.counted }

// Remaining returns the composition of the cards not yet seen: in the shoe, or in a pack not
// yet dealt. Burns, dealt cards and unread cards are not in it.
func (m *Machine) Remaining() card.Counts { return m.remaining }

// Verified returns the composition verified when the shoe was loaded.
func (m *Machine) Verified() card.Counts { return m.verified }

// StopCard returns where the stop card was placed (cards behind it) and whether it has come out.
func (m *Machine) StopCard() (behind int, seen bool) { return m.behind, m.cutSeenAt > 0 }

// out collects a step's events.
type out struct {
	m   *Machine
	t   time.Time
	evs []tablebus.Event
}

func (o *out) add(e tablebus.Event) *tablebus.Event {
	if e.Shoe == "" {
		e.Shoe = o.m.shoe
	}
	if e.Round == 0 {
		e.Round = o.m.round
	}
	e.TS = o.t
	o.evs = append(o.evs, e)
	return &o.evs[len(o.evs)-1]
}

func refused(format string, a ...any) error {
	return fmt.Errorf("shoe: %w: %s", ErrRefused, fmt.Sprintf(format, a...))
}

func ptr[T any](v T) *T { return &v }

// Step applies one input. It returns the events to journal and publish, or an error wrapping
// ErrRefused when the input is refused; a refused input changes nothing.
func (m *Machine) Step(in Input) ([]tablebus.Event, error) {
	saved := m.snapshot()
	o := &out{m: m, t: in.when().UTC()}
	var err error
	guide := true
	switch in := in.(type) {
	case TableOp: // at any moment, held or not
		guide, err = m.tableOp(o, in)
	case ChangeLimits:
		guide, err = false, m.changeLimits(o, in)
	default:
		if m.held != nil {
			err = m.stepHeld(o, in)
		} else {
			err = m.step(o, in)
		}
	}
	if err != nil {
		*m = saved
		return nil, err
	}
	if len(o.evs) > 0 && guide {
		o.add(m.guidance())
		m.lastSay = nil
	}
	return o.evs, nil
}

// engineState returns the engine's state to publish, for an engine that keeps one.
func (m *Machine) engineState() json.RawMessage {
	p, ok := m.eng.(games.Persistent)
	if !ok {
		return nil
	}
	b, err := p.Snapshot()
	if err != nil || string(b) == "null" {
		return nil
	}
	return b
}

// RestoreEngine gives the engine back the state a journaled event carried (EngineState), before
// a restarted daemon replays its open shoe.
func (m *Machine) RestoreEngine(state json.RawMessage) error {
	if len(state) == 0 {
		return nil
	}
	p, ok := m.eng.(games.Persistent)
	if !ok {
		return fmt.Errorf("shoe: the journal holds a state for %s, which keeps none", m.game)
	}
	return p.Restore(state)
}

func (m *Machine) step(o *out, in Input) error {
	switch in := in.(type) {
	case NewCards:
		return m.newCards(o, in)
	case ShuffleDone:
		if m.phase != Verified {
			return refused("shuffle reported while the shoe is %s", m.phase)
		}
		o.add(tablebus.Event{Type: tablebus.Shuffled, Count: in.Cards, By: in.By})
		if in.Cards != m.cfg.Proc.Total() {
			m.fault(o, FaultCount, fmt.Sprintf("the shuffler shuffled %d cards, the shoe has %d", in.Cards, m.cfg.Proc.Total()), false)
			m.phase = Idle
			return nil
		}
		m.phase = Shuffled
		if m.cfg.Proc.BehindMax == 0 { // poker: no cut card, no burn (RULES.md §1)
			m.phase = Between
		}
	case CutDone:
		if m.phase != Shuffled {
			return refused("cut while the shoe is %s", m.phase)
		}
		p := m.cfg.Proc
		if in.At < p.CutMinEnd || p.Total()-in.At < p.CutMinEnd {
			// RULES.md §1: the player's cut leaves at least CutMinEnd cards (52 in baccarat, 10
			// in blackjack); Sabot reads it as "at each end", the stricter reading.
			return refused("cut at %d: the cut must leave at least %d cards at each end of the %d (RULES.md §1)", in.At, p.CutMinEnd, p.Total())
		}
		o.add(tablebus.Event{Type: tablebus.Cut, At: in.At, By: in.Dealer})
		m.phase = CutDown
	case CutCardPlaced:
		if m.phase != CutDown {
			return refused("stop card placed while the shoe is %s", m.phase)
		}
		p := m.cfg.Proc
		if in.Behind < p.BehindMin || in.Behind > p.BehindMax {
			if p.BehindMin == p.BehindMax {
				return refused("stop card with %d cards behind it: the rule is exactly %d (RULES.md §1)", in.Behind, p.BehindMin)
			}
			return refused("stop card with %d cards behind it: the rule is %d to %d (RULES.md §1)", in.Behind, p.BehindMin, p.BehindMax)
		}
		m.behind = in.Behind
		o.add(tablebus.Event{Type: tablebus.CutCardPlaced, Behind: in.Behind, By: in.Dealer})
		m.startBurn()
	case Read:
		return m.read(o, in)
	case OpenRound:
		if m.phase != Between {
			return refused("bets while the shoe is %s", m.phase)
		}
		if err := m.openRound(o, in.Bets, in.Dealer); err != nil {
			return fmt.Errorf("shoe: %w: %w", ErrRefused, err)
		}
	case PlayerDecision:
		return m.decide(o, in)
	case ManualCard:
		return refused("manual entry: no card is held")
	case VoidRound:
		return refused("void: nothing is held")
	case TableAction:
		if m.phase == InRound {
			return refused("%s: the game's state changes between rounds, not during one", in.Action.Action)
		}
		if m.cfg.Manage == nil {
			return refused("%s: this table takes no between-rounds actions", in.Action.Action)
		}
		detail, err := m.cfg.Manage(m.eng, in.Action)
		if err != nil {
			return fmt.Errorf("shoe: %w: %w", ErrRefused, err)
		}
		d, err := tablebus.DetailOf(detail)
		o.add(tablebus.Event{Type: tablebus.TableAction, Seat: in.Action.Seat, Choice: in.Action.Action, Amount: in.Action.Amount,
			By: in.Dealer, Detail: d, EngineState: m.engineState()})
		if err != nil {
			m.fault(o, FaultEngine, fmt.Sprintf("the game's state after %s cannot be published: %v", in.Action.Action, err), false)
		}
	case ProgressiveLink:
		return m.progressiveLink(o, in)
	case ProgressiveAward:
		return m.progressiveAward(o, in)
	case ProgressiveTimeout:
		return m.progressiveTimeout(o, in)
	case LeftCounted:
		if m.phase != Counting {
			return refused("count of the cards left while the shoe is %s", m.phase)
		}
		m.account(o, in.Counts, in.By)
	case EndShoe:
		return m.endShoe(o, in)
	case DeviceFault:
		hold := m.phase >= Burning && m.phase <= InRound
		m.fault(o, in.Code, fmt.Sprintf("%s: %s", in.Device, in.Detail), hold)
	default:
		return refused("unknown input %T", in)
	}
	return nil
}

func (m *Machine) newCards(o *out, in NewCards) error {
	if m.phase != Idle {
		return refused("new cards while the shoe is %s", m.phase)
	}
	m.held = nil
	m.shoeNo++
	m.shoe = fmt.Sprintf("%s-%06d", m.cfg.Table, m.shoeNo)
	m.reset()
	want := card.Decks(m.cfg.Proc.Decks)
	o.add(tablebus.Event{Type: tablebus.ShoeLoaded, Game: m.game, Decks: m.cfg.Proc.Decks, Count: in.Counts.Total(), By: in.By, Attested: in.Attested,
		EngineState: m.engineState()})
	if in.Attested {
		// No device read them: the decks are taken as the dealer attests them, and verified
		// by the cards that pass through the reading shoe, at the shoe's count (RULES.md §1).
		if in.By == "" {
			return refused("new cards attested by nobody: the dealer's id is required")
		}
		m.verified, m.remaining = want, want
		m.phase = Verified
		return nil
	}
	// RULES.md §1 "Deck verification": each of the 52 cards exactly N times, nothing else.
	if d := card.Diff(want, in.Counts); len(d) > 0 {
		missing, extra := split(d)
		problem := diffWords(missing, extra)
		o.add(tablebus.Event{Type: tablebus.DecksVerified, Decks: m.cfg.Proc.Decks, Count: in.Counts.Total(), OK: ptr(false), Problem: problem,
			Missing: missing, Extra: extra})
		m.faultEv(o, tablebus.Event{Code: FaultDeck, Problem: fmt.Sprintf("%d cards read, %d expected: %s", in.Counts.Total(), want.Total(), problem),
			Missing: missing, Extra: extra}, true)
		return nil
	}
	o.add(tablebus.Event{Type: tablebus.DecksVerified, Decks: m.cfg.Proc.Decks, Count: in.Counts.Total(), OK: ptr(true)})
	m.verified, m.remaining = want, want
	m.phase = Verified
	return nil
}

func (m *Machine) reset() {
	m.verified, m.remaining = card.Counts{}, card.Counts{}
	m.dealt, m.burned, m.unknown, m.pos, m.behind, m.cutSeenAt = 0, 0, 0, 0, 0, 0
	m.foreign = nil
	m.burnLeft, m.firstShown, m.stopLate = 0, false, false
	m.counted, m.returned, m.returnPos = card.Counts{}, 0, 0
	m.round, m.roundPos, m.roundCards, m.hidden, m.bets = 0, nil, nil, nil, nil
}

func (m *Machine) startBurn() {
	switch m.cfg.Proc.Burn {
	case BurnFixed:
		m.burnLeft = m.cfg.Proc.BurnCount
		m.firstShown = true
		m.phase = Burning
		if m.burnLeft <= 0 { // a table configured to burn nothing
			m.phase = Between
		}
	case BurnFirstValue:
		m.phase = Burning
	default:
		m.phase = Between
	}
}

// take removes a card from the shoe's remaining composition; false means the shoe cannot
// contain it (RULES.md §1: a foreign or counterfeit card).
func (m *Machine) take(c card.Card) bool { return m.remaining.Remove(c) }

// dealing reports whether cards are coming out of the shoe for the game now.
func (m *Machine) dealing() bool { return m.phase >= Burning && m.phase <= InRound }

// stray counts a card that left the shoe without a place in the shoe's procedure: taken from
// the shoe's composition (or recorded as foreign) and counted as dealt, or as burned during the
// burn, so that position and count always agree (pos = dealt + burned + foreign).
func (m *Machine) stray(in Read) *card.Card {
	switch {
	case in.Kind == ReadCard && !m.take(in.Card):
		m.foreign = append(m.foreign, in.Card)
	case in.Kind == ReadCard:
		m.countUnplaced(in.Card)
	default:
		m.countUnplaced(card.None)
		return nil
	}
	return &in.Card
}

func (m *Machine) read(o *out, in Read) error {
	if in.Kind == ReadCut {
		return m.cutCard(o)
	}
	if m.phase == Counting && m.cfg.HandCount && m.held == nil {
		return m.countRead(o, in)
	}
	m.pos++
	if !m.dealing() {
		c := m.stray(in)
		m.faultEv(o, tablebus.Event{Code: FaultUnexpected, Problem: fmt.Sprintf("a card came out of the shoe while it is %s", m.phase),
			Card: c, Pos: m.pos}, m.phase > Idle && m.phase < Counting)
		return nil
	}
	if in.Kind == ReadUnreadable {
		m.pending = m.pos
		detail := "the card could not be read with confidence"
		if in.Detail != "" {
			detail += ": " + in.Detail
		}
		m.faultEv(o, tablebus.Event{Code: FaultMisread, Problem: detail + "; enter it by hand or void the round", Pos: m.pos,
			Cards: in.Seen, Raw: in.Raw}, true)
		if in.Detail != "" {
			m.held.msg = games.M("hold.misread-detail", games.S("detail", in.Detail))
		}
		return nil
	}
	if !m.take(in.Card) {
		m.foreign = append(m.foreign, in.Card)
		m.pending = m.pos
		m.faultEv(o, tablebus.Event{Code: FaultForeign, Card: &in.Card, Pos: m.pos,
			Problem: fmt.Sprintf("the shoe's %d decks hold no more of the card at position %d (a foreign or counterfeit card)", m.cfg.Proc.Decks, m.pos)}, true)
		return nil
	}
	if in.BurnMode && m.phase == InRound && m.eng.Need().Kind != games.NeedBurn {
		// The shoe's panel says the dealer is burning, the game wants a card for a hand: the
		// card is not placed on doubt.
		m.burned++
		m.faultEv(o, tablebus.Event{Code: FaultOutOfTurn, Card: &in.Card, Pos: m.pos,
			Problem: fmt.Sprintf("a card came out in the shoe's burn mode while the game needs %s", m.eng.Need())}, true)
		return nil
	}
	if in.BurnMode && m.phase == Between {
		// A burn between rounds, in the shoe's burn mode: the dealer's discretionary burn.
		m.burned++
		o.add(tablebus.Event{Type: tablebus.Burn, Card: &in.Card, Face: ptr(tablebus.FaceDown), Pos: m.pos})
		m.checkStop(o)
		return nil
	}
	return m.place(o, in.Card, nil)
}

// place applies an identified card (read or entered by hand) at position m.pos.
func (m *Machine) place(o *out, c card.Card, man *tablebus.Manual) error {
	defer m.checkStop(o)
	switch m.phase {
	case Burning:
		m.burned++
		if !m.firstShown {
			// RULES.md §1: the first card is turned face up and as many cards as its value
			// are burned face down.
			m.firstShown = true
			m.burnLeft = m.cfg.Proc.burnCount(c)
			o.add(tablebus.Event{Type: tablebus.Burn, Card: &c, Face: ptr(tablebus.FaceUp), Pos: m.pos, Count: m.burnLeft, Manual: man})
		} else {
			m.burnLeft--
			o.add(tablebus.Event{Type: tablebus.Burn, Card: &c, Face: ptr(tablebus.FaceDown), Pos: m.pos, Count: m.burnLeft, Manual: man})
		}
		if m.burnLeft <= 0 {
			m.phase = Between
			if m.cutSeenAt > 0 { // the stop card came out during the burn: no round opens
				m.phase = Counting
			}
		}
		return nil
	case Between:
		if err := m.openRound(o, nil, ""); err != nil {
			// A card before any round could open (no bets where the game needs them, no
			// bank): it left the shoe, so it is counted, and the table is held.
			m.dealt++
			m.faultEv(o, tablebus.Event{Code: FaultNoRound, Card: &c, Pos: m.pos,
				Problem: fmt.Sprintf("a card came out before a round could open (%v)", err)}, true)
			return nil
		}
		if m.phase != InRound { // the round needed no card
			m.dealt++
			m.faultEv(o, tablebus.Event{Code: FaultOutOfTurn, Card: &c, Pos: m.pos, Problem: "a card came out for a round that needs no card"}, true)
			return nil
		}
	}
	need := m.eng.Need()
	var step games.Step
	var err error
	ev := tablebus.Event{Type: tablebus.CardDealt, Card: &c, Pos: m.pos, Manual: man}
	switch need.Kind {
	case games.NeedCard:
		step, err = m.eng.Card(c)
		ev.To, ev.Face = ptr(tablebus.PlaceOf(need.To)), ptr(tablebus.FaceOf(need.Face))
	case games.NeedDecision:
		// A card while the engine waits for a decision: the engine decides what it means
		// (blackjack: a card to the same hand is a hit).
		step, err = m.eng.Card(c)
		ev.To, ev.Face = &tablebus.Place{Name: "box", Seat: need.Seat, Hand: need.Hand}, ptr(tablebus.FaceUp)
	case games.NeedBurn:
		step, err = m.eng.Burn(c)
		ev.Type, ev.Face = tablebus.Burn, ptr(tablebus.FaceDown)
	default:
		err = games.OutOfTurn(m.game, c, "the round is complete")
	}
	if err != nil {
		var re *games.RuleError
		if !errors.As(err, &re) {
			// Not a rule but a failure of the engine: the card left the shoe all the same, so it
			// is counted, and nothing is settled on doubt.
			m.dealt++
			m.faultEv(o, tablebus.Event{Code: FaultEngine, Card: &c, Pos: m.pos,
				Problem: fmt.Sprintf("the game engine failed on the card: %v; void the round", err)}, true)
			return nil
		}
		// The engine refused the card: it is not one of the round's cards (Step.Reveal counts
		// only the cards the engine took), but it left the shoe and is counted as dealt. The
		// card goes in its field, the rule in words (RuleError.What is the card).
		m.dealt++
		m.faultEv(o, tablebus.Event{Code: FaultOutOfTurn, Card: &c, Pos: m.pos, Problem: ruleWords(re)}, true)
		return nil
	}
	if ev.Type == tablebus.Burn {
		m.burned++
	} else {
		m.dealt++
	}
	m.track(c)
	if *ev.Face == tablebus.FaceDown {
		if m.hidden == nil {
			m.hidden = map[int]card.Card{}
		}
		m.hidden[m.pos] = c
	}
	o.add(ev)
	m.reveal(o, step)
	m.lastSay = step.Say
	if m.eng.Need().Kind == games.NeedDone {
		return m.finishRound(o)
	}
	return nil
}

// errClosed is the refusal of a round while the table is closed.
var errClosed = errors.New("the table is closed: a supervisor opens it")

// Closed reports whether the table is closed (TableOp close).
func (m *Machine) Closed() bool { return m.closed }

// tableOp applies a table operation. Opening and closing change what the table waits for
// (guide: true); a dealer signing in or out does not.
func (m *Machine) tableOp(o *out, in TableOp) (guide bool, err error) {
	if in.By == "" {
		return false, refused("%s: who gives it is required", in.Op)
	}
	switch in.Op {
	case OpSignIn:
		o.add(tablebus.Event{Type: tablebus.DealerSignedIn, By: in.By})
	case OpSignOut:
		reason := in.Reason
		if reason == "" {
			reason = "signed out"
		}
		if len(card.Named(reason)) > 0 {
			return false, refused("sign-out: the reason names a card")
		}
		o.add(tablebus.Event{Type: tablebus.DealerSignedOut, By: in.By, Reason: reason})
	case OpOpen:
		if !m.closed {
			return false, refused("open: the table is open")
		}
		m.closed = false
		o.add(tablebus.Event{Type: tablebus.TableOpened, By: in.By, Approved: in.Approved})
		return true, nil
	case OpClose:
		switch {
		case m.closed:
			return false, refused("close: the table is closed already")
		case m.phase == InRound || m.held != nil:
			return false, refused("close: the table is %s; finish or void the round first", m.guidance().State)
		}
		m.closed = true
		o.add(tablebus.Event{Type: tablebus.TableClosed, By: in.By, Approved: in.Approved})
		return true, nil
	default:
		return false, refused("unknown table operation %q", in.Op)
	}
	return false, nil
}

// changeLimits gives the engine new limits between rounds (seed 003's limits, a supervisor's
// change) and publishes every spot's limit in force.
func (m *Machine) changeLimits(o *out, in ChangeLimits) error {
	l, ok := m.eng.(games.Layout)
	switch {
	case !ok:
		return refused("limits: %s takes no change of its limits", m.game)
	case in.Dealer == "":
		return refused("limits: who changes them is required")
	case m.phase == InRound:
		return refused("limits: the limits change between rounds, not during one")
	}
	if err := l.SetLimits(in.Limits); err != nil {
		return fmt.Errorf("shoe: %w: %w", ErrRefused, err)
	}
	o.add(tablebus.Event{Type: tablebus.LimitsChanged, Limits: tablebus.LimitsOf(l.Limits()), By: in.Dealer, Approved: in.Supervisor})
	return nil
}

// RestoreTable gives a restarted machine the table's state kept across shoes, before it
// replays its open shoe: closed or open, and the limits in force (nil: the configuration's).
func (m *Machine) RestoreTable(closed bool, limits []games.Limit) error {
	m.closed = closed
	if limits == nil {
		return nil
	}
	l, ok := m.eng.(games.Layout)
	if !ok {
		return fmt.Errorf("shoe: the journal holds limits for %s, which takes none", m.game)
	}
	return l.SetLimits(limits)
}

// countRead counts a card left that the dealer passes through the reading shoe at the shoe's
// count (Config.HandCount). A card not read is passed again; a card the decks cannot hold is
// counted all the same, and the count says it.
func (m *Machine) countRead(o *out, in Read) error {
	if in.Kind != ReadCard {
		m.fault(o, FaultMisread, "a card left could not be read at the count: pass it through the shoe again", false)
		return nil
	}
	m.counted.Add(in.Card)
	c := in.Card
	o.add(tablebus.Event{Type: tablebus.CardCounted, Card: &c, Count: m.counted.Total()})
	return nil
}

// endShoe ends a shoe that no stop card ends (a continuous shuffler's): its cards are counted.
func (m *Machine) endShoe(o *out, in EndShoe) error {
	switch {
	case !m.cfg.Proc.Continuous:
		return refused("end of the shoe: this shoe ends when its stop card comes out (RULES.md §1)")
	case m.phase != Between:
		return refused("end of the shoe while the shoe is %s: between rounds only", m.phase)
	case in.By == "":
		return refused("end of the shoe: the dealer's id is required")
	}
	m.phase = Counting
	o.add(tablebus.Event{Type: tablebus.CutCardReached, By: in.By}) // the shoe's end: no card behind a stop card
	return nil
}

// checkStop raises a hold when cards have come out past where the stop card must be without it
// (a shoe whose reader does not report the stop card, and a dealer who did not say so).
func (m *Machine) checkStop(o *out) {
	p := m.cfg.Proc
	if p.BehindMax == 0 || m.cutSeenAt > 0 || m.behind == 0 || !m.dealing() {
		return
	}
	left := p.Total() - m.pos
	limit := p.BehindMin
	if p.BehindMin == p.BehindMax {
		limit = m.behind
	}
	if left < limit {
		m.fault(o, FaultStopMissing, fmt.Sprintf("%d cards left and the stop card, placed %d from the back, has not come out; report it (cutcard-out) or void the round", left, m.behind), true)
	}
}

func (m *Machine) reveal(o *out, step games.Step) {
	for _, i := range step.Reveal {
		if i < 0 || i >= len(m.roundPos) {
			continue
		}
		c := m.roundCards[i]
		e := tablebus.Event{Type: tablebus.Revealed, Pos: m.roundPos[i], Face: ptr(tablebus.FaceUp)}
		if c.Valid() {
			e.Card = &c
		}
		delete(m.hidden, m.roundPos[i])
		o.add(e)
	}
}

// openRound starts a round; the error is the engine's refusal of the bets, as it is, or the
// table being closed.
func (m *Machine) openRound(o *out, bets []games.Bet, by string) error {
	if m.closed {
		return errClosed
	}
	if err := m.checkProgressiveBets(bets); err != nil {
		return err
	}
	if err := m.eng.Begin(bets); err != nil {
		return err
	}
	m.roundNo++
	m.round = m.roundNo
	m.roundPos, m.roundCards, m.hidden = nil, nil, nil
	m.bets = bets
	m.phase = InRound
	o.add(tablebus.Event{Type: tablebus.RoundOpened, Game: m.game, Bets: tablebus.BetsOf(bets), By: by})
	m.progressiveBets(o, bets)
	if m.eng.Need().Kind == games.NeedDone { // nobody plays: the round needs no card
		return m.finishRound(o)
	}
	return nil
}

func (m *Machine) decide(o *out, in PlayerDecision) error {
	if m.phase != InRound {
		return refused("decision while the shoe is %s", m.phase)
	}
	need := m.eng.Need()
	// A decision that names cards (draw poker's exchange) names them in its own field, and
	// never in the words of a refusal.
	choice, cards := tablebus.SplitDecision(in.Choice)
	if need.Kind != games.NeedDecision || need.Seat != in.Seat {
		return refused("seat %d: decision %q not asked for (the game needs: %s)", in.Seat, choice, need)
	}
	step, err := m.eng.Decide(in.Seat, in.Choice)
	if err != nil {
		var re *games.RuleError
		if errors.As(err, &re) {
			w := *re
			w.What, _ = tablebus.SplitDecision(re.What)
			err = &w
		}
		return fmt.Errorf("shoe: %w: %w", ErrRefused, err)
	}
	ev := tablebus.Event{Type: tablebus.Decision, Seat: in.Seat, Hand: need.Hand, Choice: choice, Cards: cards, By: in.Dealer}
	if cards != nil {
		ev.Count = len(cards)
	}
	o.add(ev)
	m.reveal(o, step)
	m.lastSay = step.Say
	if m.eng.Need().Kind == games.NeedDone {
		return m.finishRound(o)
	}
	return nil
}

func (m *Machine) finishRound(o *out) error {
	oc, err := m.eng.Outcome()
	if err != nil {
		// The round is complete but the engine cannot settle it (a configuration it lacks, a
		// defect): hold it; the dealer voids it and every bet pushes (RULES.md §1).
		m.fault(o, FaultEngine, fmt.Sprintf("the round cannot be settled: %v; void the round", err), true)
		return nil
	}
	e, settled, err := tablebus.ResultOf(oc)
	if err != nil {
		m.fault(o, FaultEngine, fmt.Sprintf("the round's result cannot be published: %v; void the round", err), true)
		return nil
	}
	// RULES.md §1 "Hidden cards": cards dealt face down and never turned up (folded or
	// unshown poker hands) are marked where they lie, for the public feed to leave out.
	e.Unshown = markDown(e.Hands, e.Dealer, m.hidden)
	o.add(e)
	if m.awaitAward(o, settled) {
		return nil // settled when the controller's award comes (progressive.go)
	}
	o.add(settled)
	m.endRound(o)
	return nil
}

// markDown marks, in the outcome's hands, the cards still face down (hidden, by shoe position)
// and returns how many there are. A face-down card that no hand shows (draw poker's discards)
// is counted all the same.
func markDown(hands []tablebus.Hand, dealer *tablebus.Hand, hidden map[int]card.Card) int {
	left := card.Counts{}
	for _, c := range hidden {
		left.Add(c)
	}
	mark := func(h *tablebus.Hand) {
		for i, c := range h.Cards {
			if left.Remove(c) {
				h.Down = append(h.Down, i)
			}
		}
	}
	for i := range hands {
		mark(&hands[i])
	}
	if dealer != nil {
		mark(dealer)
	}
	return len(hidden)
}

func (m *Machine) endRound(o *out) {
	m.progWait = nil
	if p := m.cfg.Proc; p.Continuous {
		// RULES.md §1 "Continuous shufflers": the round's cards go back into the machine,
		// identified or not; the shoe holds its whole composition again.
		n := m.pos - m.returnPos
		m.returned += n
		m.returnPos = m.pos
		m.remaining, m.unknown = m.verified, 0
		if n > 0 {
			o.add(tablebus.Event{Type: tablebus.CardsReturned, Count: n})
			m.lastSay = append(m.lastSay, games.M("shoe.returned", games.N("count", n)))
		}
	}
	m.round, m.roundPos, m.roundCards, m.hidden, m.bets = 0, nil, nil, nil, nil
	m.phase = Between
	// RULES.md §1: when the stop card has appeared, the round in progress is completed, then
	// the shoe ends. Poker decks are shuffled before every round.
	if m.cutSeenAt > 0 || m.cfg.Proc.Family == Poker {
		m.phase = Counting
	}
}

func (m *Machine) cutCard(o *out) error {
	p := m.cfg.Proc
	if p.BehindMax == 0 || !m.dealing() || m.cutSeenAt > 0 {
		m.fault(o, FaultCutCard, fmt.Sprintf("the stop card came out while the shoe is %s", m.phase), m.dealing())
		return nil
	}
	m.cutSeenAt = m.pos + 1
	left := p.Total() - m.pos
	o.add(tablebus.Event{Type: tablebus.CutCardReached, Behind: left})
	if m.held != nil && m.held.code == FaultStopMissing {
		// The dealer reports the stop card that the shoe did not: the hold it caused ends.
		o.add(tablebus.Event{Type: tablebus.FaultResolved, Code: FaultStopMissing, Reason: "stop card reported"})
		m.held = nil
		m.stopLate = true
	}
	// Where the stop card may appear: exactly where it was placed when the rule is exact
	// (baccarat: 6 behind), otherwise within the rule's bounds.
	if !m.stopLate && (left < p.BehindMin || left > p.BehindMax || (p.BehindMin == p.BehindMax && left != m.behind)) {
		m.fault(o, FaultCutCard, fmt.Sprintf("the stop card came out with %d cards behind it, placed with %d", left, m.behind), m.phase != Between)
	}
	if m.phase == Burning {
		m.fault(o, FaultCutCard, "the stop card came out during the burn: the shoe ends after it", true)
		return nil
	}
	if m.phase == Between && m.held == nil {
		m.phase = Counting
	}
	return nil
}

func (m *Machine) account(o *out, left card.Counts, by string) {
	// RULES.md §1 "Counting": dealt + burned + left behind the cut card = N × 52.
	p := m.cfg.Proc
	a := &tablebus.Accounting{Dealt: m.dealt, Burned: m.burned, Left: left.Total(), Returned: m.returned, Want: p.Total()}
	var missing, extra []card.Card
	a.Total = a.Dealt + a.Burned + a.Left - a.Returned // a continuous shuffler took its rounds' cards back
	ok := a.Total == a.Want
	var problems []string
	if !ok {
		if a.Returned > 0 {
			problems = append(problems, fmt.Sprintf("dealt %d + burned %d + left %d − returned %d = %d, not %d", a.Dealt, a.Burned, a.Left, a.Returned, a.Total, a.Want))
		} else {
			problems = append(problems, fmt.Sprintf("dealt %d + burned %d + left %d = %d, not %d", a.Dealt, a.Burned, a.Left, a.Total, a.Want))
		}
	}
	// The composition must match too: what is left is exactly what was never seen, less the
	// cards that left the shoe unidentified.
	if d := card.Diff(m.remaining, left); len(d) > 0 {
		short := 0
		for _, x := range d {
			short += x.Want - x.Got
		}
		if short != m.unknown || hasExtra(d) {
			ok = false
			missing, extra = split(d)
			problems = append(problems, "the cards left are not the cards never dealt: "+diffWords(missing, extra))
		}
	}
	if len(m.foreign) > 0 {
		ok = false
		problems = append(problems, fmt.Sprintf("%d foreign card(s) came out of the shoe", len(m.foreign)))
	}
	e := o.add(tablebus.Event{Type: tablebus.ShoeEnded, Account: a, OK: &ok, By: by, EngineState: m.engineState(), Missing: missing, Extra: extra})
	if !ok {
		e.Problem = joinProblems(problems)
		m.faultEv(o, tablebus.Event{Code: FaultAccounting, Problem: e.Problem, Missing: missing, Extra: extra}, false)
	}
	m.phase = Idle
}

// split lists a discrepancy's missing and extra cards, once per card, in card order: the feed
// names them in typed fields, never in words (RULES.md §1 "Hidden cards").
func split(d []card.Discrepancy) (missing, extra []card.Card) {
	for _, x := range d {
		for range x.Want - x.Got {
			missing = append(missing, x.Card)
		}
		for range x.Got - x.Want {
			extra = append(extra, x.Card)
		}
	}
	return missing, extra
}

// diffWords says a discrepancy without naming its cards: "2 cards missing, 1 extra".
func diffWords(missing, extra []card.Card) string {
	var p []string
	if n := len(missing); n > 0 {
		p = append(p, fmt.Sprintf("%d %s missing", n, plural(n, "card")))
	}
	if n := len(extra); n > 0 {
		w := "extra"
		if len(p) == 0 {
			w = plural(n, "card") + " extra"
		}
		p = append(p, fmt.Sprintf("%d %s", n, w))
	}
	return strings.Join(p, ", ")
}

func plural(n int, w string) string {
	if n == 1 {
		return w
	}
	return w + "s"
}

// ruleWords says an engine's refusal of a card without the card, which the fault carries in
// its own field: "punto-banco: card out of turn: player stands on 6".
func ruleWords(re *games.RuleError) string {
	if re.Seat > 0 {
		return fmt.Sprintf("%s: seat %d: %s", re.Game, re.Seat, re.Rule)
	}
	return fmt.Sprintf("%s: %s", re.Game, re.Rule)
}

func hasExtra(d []card.Discrepancy) bool {
	for _, x := range d {
		if x.Got > x.Want {
			return true
		}
	}
	return false
}

func joinProblems(p []string) string {
	s := ""
	for i, x := range p {
		if i > 0 {
			s += "; "
		}
		s += x
	}
	return s
}

// progressiveHolds are the holds the controller's award releases.
var progressiveHolds = map[string]bool{FaultProgressiveUnconfirmed: true, FaultProgressiveRefused: true, FaultProgressiveMismatch: true}

// cardFaults are the holds after which the order of the cards is no longer known: a second one
// makes a manual entry meaningless, and only voiding resolves the round.
var cardFaults = map[string]bool{FaultCardWhenHeld: true, FaultForeign: true, FaultOutOfTurn: true, FaultUnexpected: true, FaultNoRound: true}

// fault emits a fault event and, with hold, holds the table until the dealer resolves it.
func (m *Machine) fault(o *out, code, detail string, holdIt bool) {
	m.faultEv(o, tablebus.Event{Code: code, Problem: detail}, holdIt)
}

// faultEv is fault for a fault that names cards, in their fields (Card, Cards, Missing,
// Extra), never in its words.
func (m *Machine) faultEv(o *out, e tablebus.Event, holdIt bool) {
	e.Type, e.Hold = tablebus.Fault, holdIt
	o.add(e)
	switch {
	case holdIt && m.held == nil:
		m.held = &hold{code: e.Code, detail: e.Problem, msg: m.holdMsg(e), manual: e.Code == FaultMisread, approvable: e.Code == FaultForeign}
	case holdIt && cardFaults[e.Code]:
		m.held.manual, m.held.approvable = false, false // cards out of order: only voiding resolves it
	}
}

func (m *Machine) stepHeld(o *out, in Input) error {
	h := m.held
	switch in := in.(type) {
	case NewCards:
		if h.code == FaultDeck || m.phase == Idle {
			m.held = nil
			m.phase = Idle
			return m.newCards(o, in)
		}
	case Read:
		if in.Kind == ReadCut {
			return m.cutCard(o)
		}
		// RULES.md §1: nothing is settled on doubt. A card drawn while held is counted and
		// the round can now only be voided.
		m.pos++
		c := m.stray(in)
		m.faultEv(o, tablebus.Event{Code: FaultCardWhenHeld, Card: c, Pos: m.pos,
			Problem: fmt.Sprintf("a card came out while the table is held (%s)", h.code)}, true)
		return nil
	case ManualCard:
		// The refusals name no card: a refused command may be journaled as a fault.
		approved := h.approvable && in.Supervisor != ""
		switch {
		case h.approvable && !approved:
			return refused("manual entry: the hold (%s) needs a supervisor's approval: the supervisor inspects the card", h.code)
		case !h.manual && !approved:
			return refused("manual entry: the hold (%s) can only be resolved by voiding the round", h.code)
		}
		if !in.Card.Valid() {
			return refused("manual entry: no card given")
		}
		if m.remaining.Of(in.Card) == 0 {
			return refused("manual entry: the shoe holds no more of the card entered")
		}
		if in.Dealer == "" {
			return refused("manual entry: the dealer's id is required (RULES.md §1: recorded with who and when)")
		}
		m.held = nil
		c := in.Card
		o.add(tablebus.Event{Type: tablebus.FaultResolved, Code: h.code, Reason: "manual entry", Card: &c, By: in.Dealer, Approved: in.Supervisor})
		if approved {
			// RULES.md §1: the supervisor saw the card; the card read was not in the shoe, the
			// card entered is, at the read card's place.
			m.foreign = m.foreign[:len(m.foreign)-1]
		}
		m.take(in.Card)
		cur := m.pos
		m.pos = m.pending
		if err := m.place(o, in.Card, &tablebus.Manual{Dealer: in.Dealer, At: in.Time.UTC()}); err != nil {
			return err
		}
		m.pos = max(m.pos, cur)
		return nil
	case VoidRound:
		if in.Dealer == "" {
			return refused("void: the dealer's id is required")
		}
		if len(card.Named(in.Reason)) > 0 {
			// Words travel on both feeds as they are: a card's identity travels only in a
			// card field (RULES.md §1 "Hidden cards").
			return refused("void: the reason names a card; give it without the card (the public feed carries the reason)")
		}
		m.held = nil
		firstUnread := h.code == FaultMisread && m.phase == Burning && !m.firstShown
		if h.code == FaultMisread {
			m.countUnplaced(card.None)
		}
		o.add(tablebus.Event{Type: tablebus.FaultResolved, Code: h.code, Reason: "void: " + in.Reason, By: in.Dealer, Approved: in.Supervisor})
		switch {
		case firstUnread, m.phase == Burning && m.cutSeenAt > 0:
			// The first card decides the burn and it is unknown (or the stop card came out
			// during the burn): the shoe cannot be dealt; it ends and is counted.
			m.phase = Counting
		case m.phase == InRound:
			m.voidRound(o, in)
		case m.phase == Burning && m.burnLeft <= 0:
			m.phase = Between
		case m.phase == Between && m.cutSeenAt > 0:
			m.phase = Counting
		case h.code == FaultStopMissing && m.phase == Between:
			m.cutSeenAt = m.pos + 1 // the dealer saw no stop card: the shoe ends here
			m.phase = Counting
		}
		return nil
	case DeviceFault:
		m.fault(o, in.Code, fmt.Sprintf("%s: %s", in.Device, in.Detail), true)
		return nil
	case ProgressiveLink:
		return m.progressiveLink(o, in)
	case ProgressiveAward:
		if progressiveHolds[h.code] {
			return m.progressiveAward(o, in)
		}
	}
	return refused("the table is held (%s: %s); resolve it first (manual entry or void)", h.code, h.detail)
}

// countUnplaced counts a card that left the shoe but was never placed in the round: as a burn
// during the burn (one fewer to burn), otherwise as dealt; card.None is a card never identified.
func (m *Machine) countUnplaced(c card.Card) {
	if !c.Valid() {
		m.unknown++
	}
	if m.phase == Burning {
		m.burned++
		m.burnLeft--
		return
	}
	m.dealt++
}

// track records the card at the current position as the round's next card.
func (m *Machine) track(c card.Card) {
	m.roundPos = append(m.roundPos, m.pos)
	m.roundCards = append(m.roundCards, c)
}

func (m *Machine) voidRound(o *out, in VoidRound) {
	// Every bet of a voided round pushes (RULES.md §1: nothing is settled on doubt).
	var zero int64
	st := make([]tablebus.Settlement, len(m.bets))
	for i, b := range m.bets {
		st[i] = tablebus.Settlement{Seat: b.Seat, Spot: b.Spot, Amount: b.Amount}
	}
	o.add(tablebus.Event{Type: tablebus.RoundVoided, Reason: in.Reason, By: in.Dealer, Approved: in.Supervisor, Settle: st, Net: &zero})
	m.endRound(o)
}

// Guidance returns the guidance event for now: what the table waits for. Step appends one
// after every input that changed something; a daemon publishes it at start too.
func (m *Machine) Guidance(at time.Time) tablebus.Event {
	e := m.guidance()
	e.Shoe, e.Round, e.TS = m.shoe, m.round, at.UTC()
	return e
}

func (m *Machine) guidance() tablebus.Event {
	e := tablebus.Event{Type: tablebus.Guide, State: m.phase.String()}
	var msgs []games.Msg
	switch {
	case m.held != nil:
		e.State = "held"
		e.Code = m.held.code
		msgs = []games.Msg{m.held.msg}
	case m.phase == Idle:
		msgs = []games.Msg{games.M("shoe.idle")}
	case m.phase == Verified:
		msgs = []games.Msg{games.M("shoe.verified")}
	case m.phase == Shuffled:
		msgs = []games.Msg{games.M("shoe.cut")}
	case m.phase == CutDown && m.cfg.Proc.BehindMin == m.cfg.Proc.BehindMax:
		msgs = []games.Msg{games.M("shoe.stop-card", games.N("behind", m.cfg.Proc.BehindMin))}
	case m.phase == CutDown:
		msgs = []games.Msg{games.M("shoe.stop-card-range", games.N("min", m.cfg.Proc.BehindMin), games.N("max", m.cfg.Proc.BehindMax))}
	case m.phase == Burning && !m.firstShown:
		msgs = []games.Msg{games.M("shoe.burn-first")}
	case m.phase == Burning:
		msgs = []games.Msg{games.M("shoe.burn", games.N("left", m.burnLeft))}
	case m.closed && m.phase == Between:
		msgs = []games.Msg{games.M("table.closed")}
	case m.phase == Between:
		msgs = []games.Msg{games.M("shoe.bets")}
	case m.phase == InRound && m.progWait != nil:
		n := tablebus.NeedOf(m.eng.Need())
		e.Need = &n
		msgs = []games.Msg{games.M("shoe.progressive-wait")}
	case m.phase == InRound:
		n := tablebus.NeedOf(m.eng.Need())
		e.Need = &n
	case m.phase == Counting && m.cfg.HandCount:
		msgs = []games.Msg{games.M("shoe.count-hand", games.N("counted", m.counted.Total()))}
	case m.phase == Counting:
		msgs = []games.Msg{games.M("shoe.count")}
	}
	if m.held != nil {
		e.Msgs, e.Say = tablebus.MsgsOf(msgs), games.Words(msgs)
		return e
	}
	// What the engine said about the last card comes first: "banker draws", "player wins".
	say := append([]games.Msg(nil), m.lastSay...)
	for _, s := range msgs {
		if len(say) == 0 || say[len(say)-1].String() != s.String() {
			say = append(say, s)
		}
	}
	e.Msgs, e.Say = tablebus.MsgsOf(say), games.Words(say)
	return e
}

// holdMsg is the guidance while fault e holds the table: what happened and what the dealer does,
// in the catalog's words (games/text); a device's own words stay as they are.
func (m *Machine) holdMsg(e tablebus.Event) games.Msg {
	switch e.Code {
	case FaultDeck:
		return games.M("hold.deck", games.N("read", e.Count), games.N("want", m.cfg.Proc.Total()), games.N("missing", len(e.Missing)), games.N("extra", len(e.Extra)))
	case FaultMisread:
		return games.M("hold.misread") // read gives the reader's own words (hold.misread-detail)
	case FaultForeign:
		return games.M("hold.foreign-card", games.N("pos", e.Pos))
	case FaultOutOfTurn, FaultUnexpected, FaultCardWhenHeld, FaultNoRound:
		return games.M("hold."+e.Code, games.N("pos", e.Pos))
	case FaultCutCard, FaultEngine:
		return games.M("hold." + e.Code)
	case FaultStopMissing:
		return games.M("hold.stop-card-missing", games.N("left", m.cfg.Proc.Total()-m.pos), games.N("behind", m.behind))
	case "lid-open", "shoe-link", "door-open", "shuffler-link": // said in full by the catalog
		return games.M("hold." + e.Code)
	case "jam", "card-in-gate", "shoe-alarm", "misfeed", "count-mismatch": // the device's own words besides
		return games.M("hold."+e.Code, games.S("detail", e.Problem))
	case FaultProgressiveUnconfirmed:
		return games.M("hold."+e.Code, games.N("round", int(m.round)))
	case FaultProgressiveRefused, FaultProgressiveMismatch: // the controller's or the check's words
		return games.M("hold."+e.Code, games.S("detail", e.Reason))
	}
	return games.M("hold.device", games.S("detail", e.Problem))
}
