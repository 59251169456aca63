package terminal

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sabot-tables/sabot/cmd/internal/floor"
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// Procedure is what the page needs of the shoe's rules (RULES.md §1) to guide its steps: the
// cut's and the stop card's bounds. The shoe machine enforces them; the page only offers them.
type Procedure struct {
	Total     int `json:"total"`      // cards in the shoe
	CutMinEnd int `json:"cut_min"`    // the cut leaves at least this many at each end
	BehindMin int `json:"behind_min"` // the stop card's place, in cards from the back
	BehindMax int `json:"behind_max"` // 0: no stop card (poker)
}

// Sender publishes a sealed command on the table's command topic and returns the daemon's
// reply to the command with that id.
type Sender func(ctx context.Context, payload []byte, id string) (tablebus.Reply, error)

// Options configure a terminal.
type Options struct {
	Table  string
	Game   string
	Family string
	Seats  int // boxes 1…Seats
	Proc   Procedure
	Spots  []string      // the layout's spots (games.Layout)
	Limits []games.Limit // the limits in force at start; limits.changed events follow
	Closed bool          // the table is closed at start
	People *People
	Send   Sender
	// Idle signs the dealer out after this long without a tap (default 10 minutes).
	Idle time.Duration
	// OnLock is told when a person is locked after MaxTries wrong PINs: the daemon journals it.
	OnLock func(id string)
	Logger *slog.Logger
	Now    func() time.Time
	// Sim says the devices are simulated (the page says so).
	Sim bool
	// Shuffler is the table's shuffler: "sabot" (it reads the cards), "none" (the dealer
	// attests hand-shuffled or pre-shuffled cards) or "csm" (a continuous shuffler).
	Shuffler string
	// Bank is the chemin de fer bank at start (games/baccarat.Bank's JSON); nil in the other
	// games. The table's events keep it since.
	Bank json.RawMessage
}

// Terminal is one table's dealer terminal: the table as the page shows it, built from the
// table's secure feed (the layout from its public form: the dealer's screen shows no card face
// down), and the signed-in dealer. Its methods are safe for concurrent use.
type Terminal struct {
	o     Options
	log   *slog.Logger
	fl    *floor.Floor
	topic string

	mu       sync.Mutex
	guide    tablebus.Event // the last guidance
	fault    *tablebus.Event
	limits   []tablebus.Limit
	closed   bool
	known    card.Counts // the shoe's cards not yet seen face up (the picker's "possible")
	loaded   bool
	settled  *tablebus.Event // the last round's settlement, until the next round opens
	bank     *Bank           // chemin de fer: the players' bank
	sess     *session
	version  uint64
	changed  chan struct{}
	pending  bool // a command is on its way: one at a time
	lastSent time.Time
}

type session struct {
	token  string
	person Person
	signer *tablebus.Signer
	last   time.Time
}

// New returns a terminal; feed it the table's events with Apply and run Run for the sign-out
// after inactivity.
func New(o Options) (*Terminal, error) {
	if o.People == nil || o.Send == nil {
		return nil, errors.New("terminal: no people or no sender")
	}
	if o.Idle <= 0 {
		o.Idle = 10 * time.Minute
	}
	if o.Seats <= 0 {
		o.Seats = 7
	}
	if o.Shuffler == "" {
		o.Shuffler = "sabot"
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	t := &Terminal{o: o, log: o.Logger.With("component", "terminal"), fl: floor.New(floor.Options{}),
		topic: tablebus.Topics{Table: o.Table}.Commands(), limits: tablebus.LimitsOf(o.Limits), closed: o.Closed,
		changed: make(chan struct{})}
	if len(o.Bank) > 0 {
		var b Bank
		if err := json.Unmarshal(o.Bank, &b); err != nil {
			return nil, fmt.Errorf("terminal: the bank: %w", err)
		}
		t.bank = &b
		if b.Seats > 0 {
			t.o.Seats = b.Seats // the seats the bank passes round (seed 000: 9)
		}
	}
	return t, nil
}

// bump marks a change; the caller holds t.mu.
func (t *Terminal) bump() {
	t.version++
	close(t.changed)
	t.changed = make(chan struct{})
}

// Changed returns a channel closed at the terminal's next change.
func (t *Terminal) Changed() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changed
}

// Apply takes the table's next event from its secure feed.
func (t *Terminal) Apply(e tablebus.Event) {
	pub := e.Public()
	t.fl.Apply(floor.Delivery{Event: &pub})
	t.mu.Lock()
	defer t.mu.Unlock()
	switch e.Type {
	case tablebus.Guide:
		t.guide = e
		if e.State != "held" {
			t.fault = nil
		}
	case tablebus.Fault:
		if e.Hold && t.fault == nil {
			f := e
			t.fault = &f
		}
	case tablebus.DecksVerified:
		if e.OK != nil && *e.OK {
			t.known, t.loaded = card.Decks(e.Decks), true
		}
	case tablebus.ShoeEnded:
		t.loaded = false
	case tablebus.LimitsChanged:
		t.limits = slices.Clone(e.Limits)
	case tablebus.TableOpened:
		t.closed = false
	case tablebus.TableClosed:
		t.closed = true
	case tablebus.RoundOpened:
		t.settled = nil
	case tablebus.RoundResult, tablebus.TableAction:
		if b := bankOf(e); b != nil {
			t.bank = b
		}
	case tablebus.RoundSettled, tablebus.RoundVoided:
		s := e
		t.settled = &s
	}
	// What the public sees face up is no longer in the shoe; a face-down card stays
	// "possible" until it is turned up, so the picker tells nothing about it.
	if c := pub.Card; c != nil && (e.Type == tablebus.CardDealt || e.Type == tablebus.Burn || e.Type == tablebus.Revealed) {
		t.known.Remove(*c)
	}
	t.bump()
}

// Run signs the dealer out after Idle without a tap, until ctx is done.
func (t *Terminal) Run(ctx context.Context) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		t.mu.Lock()
		s := t.sess
		idle := s != nil && t.o.Now().Sub(s.last) >= t.o.Idle
		t.mu.Unlock()
		if idle {
			t.signOut(ctx, s, "inactive")
		}
	}
}

// Refusal is an action refused with one clear message: a code of the UI catalog and its
// arguments (said in the dealer's language), or the table's own words.
type Refusal struct {
	Code     string            // a code of ui/<lang>.txt, "err.…"
	Args     map[string]string // its arguments, as text
	Table    string            // the table's refusal, in its words ("err.table")
	Approval bool              // a supervisor's approval would let it through
	Status   int               // the HTTP status
}

func (r *Refusal) Error() string {
	if r.Table != "" {
		return r.Table
	}
	return Say(English, r.Code, r.Args)
}

func refuse(status int, code string, kv ...string) *Refusal {
	r := &Refusal{Code: code, Status: status, Args: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Args[kv[i]] = kv[i+1]
	}
	return r
}

// Approval is a supervisor's id and PIN, given on the page for one action.
type Approval struct {
	ID  string `json:"id"`
	PIN string `json:"pin"`
}

// signIn signs a person in with their PIN, and the dealer signed in before out ("relieved").
func (t *Terminal) SignIn(ctx context.Context, id, pin string) (string, error) {
	x, key, err := t.o.People.SignIn(id, pin)
	if err != nil {
		return "", t.pinRefusal(id, err)
	}
	s := &session{token: newToken(), person: x, signer: tablebus.NewSigner(key), last: t.o.Now()}
	t.mu.Lock()
	old := t.sess
	t.mu.Unlock()
	if old != nil {
		t.signOut(ctx, old, "relieved")
	}
	if _, err := t.send(ctx, s.signer, tablebus.Command{Cmd: "sign-in"}); err != nil {
		return "", err
	}
	t.mu.Lock()
	t.sess = s
	t.bump()
	t.mu.Unlock()
	t.log.Info("signed in", "id", x.ID, "role", x.Role)
	return s.token, nil
}

func (t *Terminal) pinRefusal(id string, err error) *Refusal {
	var w *WrongPIN
	switch {
	case errors.As(err, &w) && w.Left == 0:
		t.log.Warn("locked after too many wrong PINs", "id", id)
		if t.o.OnLock != nil {
			t.o.OnLock(id)
		}
		return refuse(403, "err.locked", "id", id)
	case errors.As(err, &w):
		return refuse(403, "err.wrong-pin", "left", fmt.Sprint(w.Left))
	case errors.Is(err, ErrLocked):
		return refuse(403, "err.locked", "id", id)
	case errors.Is(err, ErrUnknown):
		return refuse(403, "err.unknown", "id", id)
	}
	t.log.Error("sign-in", "id", id, "err", err)
	return refuse(500, "err.internal", "detail", err.Error())
}

// SignOut signs the session's dealer out.
func (t *Terminal) SignOut(ctx context.Context, token string) error {
	s, err := t.session(token)
	if err != nil {
		return err
	}
	return t.signOut(ctx, s, "signed out")
}

func (t *Terminal) signOut(ctx context.Context, s *session, reason string) error {
	t.mu.Lock()
	if t.sess != s {
		t.mu.Unlock()
		return nil
	}
	t.sess = nil
	t.bump()
	t.mu.Unlock()
	_, err := t.send(ctx, s.signer, tablebus.Command{Cmd: "sign-out", Reason: reason})
	t.log.Info("signed out", "id", s.person.ID, "reason", reason)
	return err
}

// session returns the signed-in session of token and marks it active.
func (t *Terminal) session(token string) (*session, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sess
	if s == nil || token == "" || s.token != token {
		return nil, refuse(401, "err.signed-out")
	}
	s.last = t.o.Now()
	return s, nil
}

// SetLang keeps the signed-in person's language.
func (t *Terminal) SetLang(token, lang string) error {
	s, err := t.session(token)
	if err != nil {
		return err
	}
	if err := t.o.People.SetLang(s.person.ID, lang); err != nil {
		return refuse(400, "err.lang", "lang", lang)
	}
	t.mu.Lock()
	s.person.Lang = lang
	t.bump()
	t.mu.Unlock()
	return nil
}

func newToken() string {
	b := make([]byte, 32)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// send seals c with signer and publishes it, one command at a time, and returns the table's
// refusal as a Refusal.
func (t *Terminal) send(ctx context.Context, signer *tablebus.Signer, c tablebus.Command) (tablebus.Reply, error) {
	id := make([]byte, 6)
	rand.Read(id)
	c.V, c.ID = tablebus.SchemaVersion, hex.EncodeToString(id)
	payload, err := tablebus.SealCommand(signer, t.topic, c, t.o.Now())
	if err != nil {
		return tablebus.Reply{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	r, err := t.o.Send(ctx, payload, c.ID)
	if err != nil {
		return r, refuse(503, "err.no-reply", "detail", err.Error())
	}
	if !r.OK {
		return r, &Refusal{Code: "err.table", Table: r.Error, Status: 409}
	}
	return r, nil
}

// Action is one tap of the page that the table must take: Do names it, Seq is the guidance the
// page showed when it was tapped (a page that has not seen the table move on since).
type Action struct {
	Do       string           `json:"do"`
	Seq      uint64           `json:"seq"`
	Bets     []tablebus.Bet   `json:"bets,omitempty"`
	Seat     int              `json:"seat,omitempty"`
	Decision string           `json:"decision,omitempty"`
	Card     string           `json:"card,omitempty"`
	Reason   string           `json:"reason,omitempty"`
	At       int              `json:"at,omitempty"`
	Behind   int              `json:"behind,omitempty"`
	Limits   []tablebus.Limit `json:"limits,omitempty"`
	Action   string           `json:"action,omitempty"` // table: the chemin de fer bank's
	Amount   int64            `json:"amount,omitempty"`
	ID       string           `json:"id,omitempty"`     // unlock: whom
	Attest   string           `json:"attest,omitempty"` // new-shoe without a shuffler's reading: hand, pre-shuffled, csm
	Approval *Approval        `json:"approval,omitempty"`
}

// supervised are the actions a dealer alone may not take (tablebus.CommandRoles).
var supervised = map[string]bool{"new-shoe": true, "void": true, "open": true, "close": true, "limits": true, "unlock": true}

// Act takes one action of the signed-in dealer: it checks it against what the table shows now
// (the page may be stale), against the table's limits and the engine's allowed decisions, then
// signs and sends it, with the supervisor's key where an approval is needed.
func (t *Terminal) Act(ctx context.Context, token string, a Action) error {
	s, err := t.session(token)
	if err != nil {
		return err
	}
	t.mu.Lock()
	g, fault, closed := t.guide, t.fault, t.closed
	limits, known := slices.Clone(t.limits), t.known
	var bank *Bank
	if t.bank != nil {
		b := *t.bank
		bank = &b
	}
	busy := t.pending
	if !busy {
		t.pending = true
	}
	t.mu.Unlock()
	if busy {
		return refuse(409, "err.busy")
	}
	defer func() {
		t.mu.Lock()
		t.pending = false
		t.mu.Unlock()
	}()
	if a.Seq != g.Seq && a.Do != "unlock" {
		return refuse(409, "err.stale")
	}
	c, err := t.command(a, g, fault, closed, limits, known, bank)
	if err != nil {
		return err
	}
	needs := supervised[a.Do] || a.Do == "manual" && fault != nil && fault.Code == "foreign-card"
	signer := s.signer
	if needs && s.person.Role != tablebus.RoleSupervisor {
		if a.Approval == nil || a.Approval.ID == "" {
			r := refuse(403, "err.approval")
			r.Approval = true
			return r
		}
		sup, key, err := t.approve(*a.Approval)
		if err != nil {
			return err
		}
		signer = tablebus.NewSigner(key)
		c.Dealer, c.Supervisor = s.person.ID, sup.ID
		t.log.Info("approved", "do", a.Do, "dealer", s.person.ID, "supervisor", sup.ID)
	}
	if a.Do == "unlock" {
		if err := t.o.People.Unlock(a.ID); err != nil {
			return refuse(400, "err.unknown", "id", a.ID)
		}
		t.log.Info("unlocked", "id", a.ID, "by", c.Supervisor)
		return nil
	}
	_, err = t.send(ctx, signer, c)
	return err
}

// approve checks a supervisor's PIN and returns the supervisor and their key, for one command.
func (t *Terminal) approve(a Approval) (Person, ed25519.PrivateKey, error) {
	x, key, err := t.o.People.SignIn(a.ID, a.PIN)
	if err != nil {
		return Person{}, nil, t.pinRefusal(a.ID, err)
	}
	if x.Role != tablebus.RoleSupervisor {
		return Person{}, nil, refuse(403, "err.not-supervisor", "id", a.ID)
	}
	return x, key, nil
}

// command checks an action against the table as the page showed it and returns the command.
func (t *Terminal) command(a Action, g tablebus.Event, fault *tablebus.Event, closed bool, limits []tablebus.Limit, known card.Counts, bank *Bank) (tablebus.Command, error) {
	state := g.State
	want := func(states ...string) error {
		if !slices.Contains(states, state) {
			return refuse(409, "err.state", "state", state)
		}
		return nil
	}
	switch a.Do {
	case "bets":
		if err := want("between-rounds"); err != nil {
			return tablebus.Command{}, err
		}
		if closed {
			return tablebus.Command{}, refuse(409, "err.closed")
		}
		for _, b := range a.Bets {
			if err := t.checkBet(b, limits); err != nil {
				return tablebus.Command{}, err
			}
		}
		return tablebus.Command{Cmd: "bets", Bets: a.Bets}, nil
	case "decision":
		n := g.Need
		if n == nil || n.Kind != tablebus.NeedDecision {
			return tablebus.Command{}, refuse(409, "err.not-asked")
		}
		if a.Seat != n.Seat || !allowed(n.Options, a.Decision) {
			return tablebus.Command{}, refuse(409, "err.decision", "seat", fmt.Sprint(a.Seat), "decision", a.Decision,
				"allowed", strings.Join(n.Options, " "), "asked", fmt.Sprint(n.Seat))
		}
		return tablebus.Command{Cmd: "decision", Seat: a.Seat, Choice: a.Decision}, nil
	case "manual":
		if state != "held" || fault == nil {
			return tablebus.Command{}, refuse(409, "err.not-held")
		}
		c, err := card.Parse(a.Card)
		if err != nil || !c.Valid() {
			return tablebus.Command{}, refuse(400, "err.card", "card", a.Card)
		}
		if known.Of(c) == 0 {
			return tablebus.Command{}, refuse(409, "err.card-gone", "card", c.String())
		}
		return tablebus.Command{Cmd: "manual", Card: &c}, nil
	case "void":
		if state != "held" {
			return tablebus.Command{}, refuse(409, "err.not-held")
		}
		r := strings.TrimSpace(a.Reason)
		if r == "" || len(card.Named(r)) > 0 || len(r) > 200 {
			return tablebus.Command{}, refuse(400, "err.reason")
		}
		return tablebus.Command{Cmd: "void", Reason: r}, nil
	case "cut":
		if err := want("shuffled"); err != nil {
			return tablebus.Command{}, err
		}
		p := t.o.Proc
		if a.At < p.CutMinEnd || a.At > p.Total-p.CutMinEnd {
			return tablebus.Command{}, refuse(400, "err.cut", "at", fmt.Sprint(a.At), "min", fmt.Sprint(p.CutMinEnd), "max", fmt.Sprint(p.Total-p.CutMinEnd))
		}
		return tablebus.Command{Cmd: "cut", At: a.At}, nil
	case "cutcard":
		if err := want("cut"); err != nil {
			return tablebus.Command{}, err
		}
		p := t.o.Proc
		if a.Behind < p.BehindMin || a.Behind > p.BehindMax {
			return tablebus.Command{}, refuse(400, "err.stop-card", "behind", fmt.Sprint(a.Behind), "min", fmt.Sprint(p.BehindMin), "max", fmt.Sprint(p.BehindMax))
		}
		return tablebus.Command{Cmd: "cutcard", Behind: a.Behind}, nil
	case "cutcard-out":
		if err := want("in-round", "between-rounds", "held"); err != nil {
			return tablebus.Command{}, err
		}
		return tablebus.Command{Cmd: "cutcard-out"}, nil
	case "new-shoe":
		if err := want("idle", "verified"); err != nil && !(state == "held" && g.Code == "deck") {
			return tablebus.Command{}, err
		}
		if ok := map[string][]string{"sabot": {""}, "none": {"hand", "pre-shuffled"}, "csm": {"csm"}}[t.o.Shuffler]; !slices.Contains(ok, a.Attest) {
			return tablebus.Command{}, refuse(400, "err.attest", "attest", a.Attest)
		}
		return tablebus.Command{Cmd: "new-shoe", Attest: a.Attest}, nil
	case "end-shoe":
		if err := want("between-rounds"); err != nil {
			return tablebus.Command{}, err
		}
		return tablebus.Command{Cmd: "end-shoe"}, nil
	case "count":
		if err := want("counting"); err != nil {
			return tablebus.Command{}, err
		}
		return tablebus.Command{Cmd: "count"}, nil
	case "open":
		if !closed {
			return tablebus.Command{}, refuse(409, "err.open")
		}
		return tablebus.Command{Cmd: "open"}, nil
	case "close":
		if closed {
			return tablebus.Command{}, refuse(409, "err.closed")
		}
		if err := want("idle", "between-rounds", "counting", "verified", "shuffled", "cut"); err != nil {
			return tablebus.Command{}, err
		}
		return tablebus.Command{Cmd: "close"}, nil
	case "limits":
		if state == "in-round" || state == "held" {
			return tablebus.Command{}, refuse(409, "err.state", "state", state)
		}
		for _, l := range a.Limits {
			if !slices.Contains(t.o.Spots, l.Spot) || l.Min <= 0 || l.Max < l.Min {
				return tablebus.Command{}, refuse(400, "err.limit", "spot", l.Spot, "min", Money(l.Min), "max", Money(l.Max))
			}
		}
		ls := a.Limits
		if ls == nil {
			ls = []tablebus.Limit{}
		}
		return tablebus.Command{Cmd: "limits", Limits: ls}, nil
	case "table":
		if err := want("between-rounds", "idle", "counting"); err != nil {
			return tablebus.Command{}, err
		}
		return checkBank(bank, a)
	case "unlock":
		return tablebus.Command{Cmd: "unlock"}, nil
	}
	return tablebus.Command{}, refuse(400, "err.unknown-action", "do", a.Do)
}

// checkBet checks one bet against the layout and the table's limits, as the page does while
// the dealer types; the engine checks the whole round's bets again (games.Layout).
func (t *Terminal) checkBet(b tablebus.Bet, limits []tablebus.Limit) error {
	seat := fmt.Sprint(b.Seat)
	switch {
	case b.Seat < 1 || b.Seat > t.o.Seats:
		return refuse(400, "err.bet-seat", "seat", seat, "seats", fmt.Sprint(t.o.Seats))
	case !slices.Contains(t.o.Spots, b.Spot):
		return refuse(400, "err.bet-spot", "seat", seat, "spot", b.Spot)
	case b.Amount <= 0:
		return refuse(400, "err.bet-amount", "seat", seat, "spot", b.Spot)
	}
	for _, l := range limits {
		if l.Spot == b.Spot && (b.Amount < l.Min || b.Amount > l.Max) {
			return refuse(400, "err.bet-limit", "seat", seat, "spot", b.Spot, "amount", Money(b.Amount), "min", Money(l.Min), "max", Money(l.Max))
		}
	}
	return nil
}

// allowed says whether decision d is one of the engine's options: "raise:200-10000" allows
// "raise:N" for N in the range; "exchange" allows any exchange (the engine checks the cards).
func allowed(options []string, d string) bool {
	verb, arg, hasArg := strings.Cut(d, ":")
	for _, o := range options {
		if o == d && !hasArg {
			return true
		}
		ov, rng, ok := strings.Cut(o, ":")
		if !ok || ov != verb || !hasArg {
			if o == "exchange" && verb == "exchange" {
				return true
			}
			continue
		}
		lo, hi, _ := strings.Cut(rng, "-")
		var n, l, h int64
		if _, err := fmt.Sscan(arg, &n); err != nil {
			return false
		}
		fmt.Sscan(lo, &l)
		fmt.Sscan(hi, &h)
		return n >= l && n <= h
	}
	return false
}

// Money writes cents as the layout does: "15.00".
func Money(c int64) string { return tablebus.Cents(c) }
