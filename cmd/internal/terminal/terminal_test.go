package terminal

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"path/filepath"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// table is a terminal fed by hand, whose sender records what it would publish and answers
// every command as the daemon answers one it applied.
type table struct {
	t        *testing.T
	term     *Terminal
	dealer   ed25519.PrivateKey
	super    ed25519.PrivateKey
	mu       sync.Mutex
	payloads [][]byte
}

func newTable(t *testing.T, idle time.Duration, more ...func(*Options)) *table {
	t.Helper()
	p, err := OpenPeople(filepath.Join(t.TempDir(), "dealers.json"))
	if err != nil {
		t.Fatal(err)
	}
	x := &table{t: t}
	_, x.dealer, _ = ed25519.GenerateKey(nil)
	_, x.super, _ = ed25519.GenerateKey(nil)
	if err := p.Add("dealer.D7", tablebus.RoleDealer, "en", "4711", x.dealer, cheap); err != nil {
		t.Fatal(err)
	}
	if err := p.Add("supervisor.S1", tablebus.RoleSupervisor, "en", "8080", x.super, cheap); err != nil {
		t.Fatal(err)
	}
	o := Options{Table: "T1", Game: "blackjack", Family: "blackjack", Seats: 7,
		Proc:  Procedure{Total: 52, CutMinEnd: 10, BehindMin: 13, BehindMax: 26},
		Spots: []string{"main", "insurance"}, Limits: []games.Limit{{Spot: "main", Min: 500, Max: 50000}},
		People: p, Idle: idle,
		Send: func(ctx context.Context, payload []byte, id string) (tablebus.Reply, error) {
			x.mu.Lock()
			x.payloads = append(x.payloads, payload)
			x.mu.Unlock()
			return tablebus.Reply{ID: id, OK: true}, nil
		}}
	for _, f := range more {
		f(&o)
	}
	x.term, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// sent returns the commands published so far, each checked against its signer's key.
func (x *table) sent() []tablebus.Command {
	x.t.Helper()
	x.mu.Lock()
	defer x.mu.Unlock()
	topic := tablebus.Topics{Table: "T1"}.Commands()
	var cs []tablebus.Command
	for _, p := range x.payloads {
		var c tablebus.Command
		if err := json.Unmarshal(p, &c); err != nil {
			x.t.Fatalf("a command that is not JSON: %v: %s", err, p)
		}
		s, err := tablebus.ParseSeal(p, false)
		if err != nil {
			x.t.Fatal(err)
		}
		key := x.dealer
		if s.KeyID == tablebus.KeyIDOf(x.super.Public().(ed25519.PublicKey)) {
			key = x.super
		}
		if err := s.Verify(tablebus.DomainCommand, topic, key.Public().(ed25519.PublicKey)); err != nil {
			x.t.Fatalf("%s: %v", c.Cmd, err)
		}
		cs = append(cs, c)
	}
	return cs
}

func yes() *bool { b := true; return &b }

// TestActRefusals: what the page may send that the table must not take (a bet outside the
// limits, a decision the rules forbid, a card the shoe cannot hold, a stale page acting on a
// round that is over, an approval that is not a supervisor's) is refused with one message in
// the dealer's words, and nothing is sent.
func TestActRefusals(t *testing.T) {
	x := newTable(t, time.Hour)
	ctx := context.Background()
	tok, err := x.term.SignIn(ctx, "dealer.D7", "4711")
	if err != nil {
		t.Fatal(err)
	}
	x.term.Apply(tablebus.Event{Type: tablebus.DecksVerified, Seq: 2, Decks: 1, OK: yes()})
	x.term.Apply(tablebus.Event{Type: tablebus.Guide, Seq: 10, State: "between-rounds"})

	refused := func(name string, a Action, code, words string) {
		t.Helper()
		before := len(x.sent())
		err := x.term.Act(ctx, tok, a)
		var r *Refusal
		if !errors.As(err, &r) || r.Code != code || r.Error() != words {
			t.Errorf("%s: %v, want %s %q", name, err, code, words)
		}
		if n := len(x.sent()); n != before {
			t.Errorf("%s: %d commands sent", name, n-before)
		}
	}
	bet := func(amount int64) []tablebus.Bet { return []tablebus.Bet{{Seat: 2, Spot: "main", Amount: amount}} }
	refused("a bet under the limit", Action{Do: "bets", Seq: 10, Bets: bet(400)}, "err.bet-limit",
		"Box 2, main: 4.00 is outside the table's limit, 5.00 to 500.00.")
	refused("a bet over the limit", Action{Do: "bets", Seq: 10, Bets: bet(50001)}, "err.bet-limit",
		"Box 2, main: 500.01 is outside the table's limit, 5.00 to 500.00.")
	refused("a box the table has not", Action{Do: "bets", Seq: 10, Bets: []tablebus.Bet{{Seat: 8, Spot: "main", Amount: 1000}}},
		"err.bet-seat", Say(English, "err.bet-seat", map[string]string{"seat": "8", "seats": "7"}))
	refused("a stale page", Action{Do: "bets", Seq: 9, Bets: bet(1000)}, "err.stale",
		"The table moved on since this screen showed it: look again, then tap.")
	refused("a cut between rounds", Action{Do: "cut", Seq: 10, At: 20}, "err.state", Say(English, "err.state", map[string]string{"state": "between-rounds"}))
	if err := x.term.Act(ctx, tok, Action{Do: "bets", Seq: 10, Bets: bet(50000)}); err != nil {
		t.Fatalf("a bet at the limit: %v", err)
	}

	// Box 2 in turn, with a hand the rules let stand or hit only.
	x.term.Apply(tablebus.Event{Type: tablebus.Guide, Seq: 20, State: "in-round", Round: 1,
		Need: &tablebus.Need{Kind: tablebus.NeedDecision, Seat: 2, Options: []string{"H", "S"}}})
	refused("a split the rules forbid", Action{Do: "decision", Seq: 20, Seat: 2, Decision: "P"}, "err.decision",
		"Box 2: P is not allowed now (box 2 may: H S).")
	refused("a box not in turn", Action{Do: "decision", Seq: 20, Seat: 3, Decision: "H"}, "err.decision",
		"Box 3: H is not allowed now (box 2 may: H S).")
	refused("bets in a round", Action{Do: "bets", Seq: 20, Bets: bet(1000)}, "err.state", Say(English, "err.state", map[string]string{"state": "in-round"}))

	// The round is over: the page that still shows box 2's decision is stale, and one that
	// looked again is told no decision is asked.
	x.term.Apply(tablebus.Event{Type: tablebus.Guide, Seq: 30, State: "between-rounds"})
	refused("a decision on a finished round", Action{Do: "decision", Seq: 20, Seat: 2, Decision: "S"}, "err.stale",
		"The table moved on since this screen showed it: look again, then tap.")
	refused("a decision between rounds", Action{Do: "decision", Seq: 30, Seat: 2, Decision: "S"}, "err.not-asked",
		"No decision is asked for now.")
	refused("a manual card with nothing held", Action{Do: "manual", Seq: 30, Card: "Kd"}, "err.not-held", "Nothing is held.")

	// A held card: the one ace of spades of this one-deck shoe was dealt face up.
	as := card.MustParse("As")
	x.term.Apply(tablebus.Event{Type: tablebus.CardDealt, Seq: 31, Round: 2, Card: &as, Face: new(tablebus.FaceUp), Pos: 5})
	x.term.Apply(tablebus.Event{Type: tablebus.Fault, Seq: 32, Round: 2, Code: "misread", Hold: true, Pos: 6})
	x.term.Apply(tablebus.Event{Type: tablebus.Guide, Seq: 33, Round: 2, State: "held", Code: "misread"})
	if v := x.term.View(tok); v.Possible["As"] != 0 || v.Possible["Kd"] != 1 || v.Fault == nil || !v.Fault.Manual {
		t.Errorf("the picker's cards: As %d, Kd %d; fault %+v", v.Possible["As"], v.Possible["Kd"], v.Fault)
	}
	refused("a card the shoe cannot hold", Action{Do: "manual", Seq: 33, Card: "As"}, "err.card-gone", "The shoe holds no more As.")
	refused("not a card", Action{Do: "manual", Seq: 33, Card: "1x"}, "err.card", "1x is not a card.")
	refused("a void without approval", Action{Do: "void", Seq: 33, Reason: "card on the floor"}, "err.approval",
		"This needs a supervisor's approval.")
	refused("a void approved by a dealer", Action{Do: "void", Seq: 33, Reason: "card on the floor",
		Approval: &Approval{ID: "dealer.D7", PIN: "4711"}}, "err.not-supervisor", "dealer.D7 is not a supervisor.")
	refused("a void with a wrong PIN", Action{Do: "void", Seq: 33, Reason: "card on the floor",
		Approval: &Approval{ID: "supervisor.S1", PIN: "0000"}}, "err.wrong-pin", "Wrong PIN: 4 tries left.")
	if err := x.term.Act(ctx, tok, Action{Do: "manual", Seq: 33, Card: "Kd"}); err != nil {
		t.Fatalf("the manual entry: %v", err)
	}
	if err := x.term.Act(ctx, tok, Action{Do: "void", Seq: 33, Reason: "card on the floor",
		Approval: &Approval{ID: "supervisor.S1", PIN: "8080"}}); err != nil {
		t.Fatalf("the approved void: %v", err)
	}

	// What went out: each command signed by whoever's it is, the approved one naming both.
	cs := x.sent()
	var got []string
	for _, c := range cs {
		got = append(got, c.Cmd)
	}
	if js, _ := json.Marshal(got); string(js) != `["sign-in","bets","manual","void"]` {
		t.Fatalf("sent %s", js)
	}
	if c := cs[1]; len(c.Bets) != 1 || c.Bets[0].Amount != 50000 || c.Kid != tablebus.KeyIDOf(x.dealer.Public().(ed25519.PublicKey)) {
		t.Errorf("the bets: %+v", c)
	}
	if c := cs[2]; c.Card == nil || *c.Card != card.MustParse("Kd") || c.Supervisor != "" {
		t.Errorf("the manual entry: %+v", c)
	}
	if c := cs[3]; c.Dealer != "dealer.D7" || c.Supervisor != "supervisor.S1" || c.Reason != "card on the floor" ||
		c.Kid != tablebus.KeyIDOf(x.super.Public().(ed25519.PublicKey)) {
		t.Errorf("the void: %+v", c)
	}
}

// TestIdleSignOut: the dealer is signed out after the idle time without a tap, and a tap
// resets the time.
func TestIdleSignOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		x := newTable(t, 10*time.Minute)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go x.term.Run(ctx)
		tok, err := x.term.SignIn(ctx, "dealer.D7", "4711")
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(9 * time.Minute)
		if x.term.View(tok).Signed == nil {
			t.Fatal("signed out before the idle time")
		}
		if err := x.term.SetLang(tok, "es"); err != nil { // a tap
			t.Fatal(err)
		}
		time.Sleep(9 * time.Minute)
		synctest.Wait()
		if v := x.term.View(tok); v.Signed == nil || v.IdleIn != 60 {
			t.Fatalf("9 minutes after a tap: %+v", v.Signed)
		}
		time.Sleep(time.Minute + time.Second)
		synctest.Wait()
		if x.term.View(tok).Signed != nil {
			t.Fatal("still signed in after 10 minutes without a tap")
		}
		if err := x.term.Act(ctx, tok, Action{Do: "count"}); err == nil || err.Error() != Say(English, "err.signed-out", nil) {
			t.Errorf("a tap after the sign-out: %v", err)
		}
		cs := x.sent()
		if len(cs) != 2 || cs[1].Cmd != "sign-out" || cs[1].Reason != "inactive" {
			t.Errorf("sent %+v", cs)
		}
		cancel()
	})
}

// TestBankActions: the chemin de fer bank's actions, only those of its phase (seed 000), each
// for the seat the bank names, with amounts the bank takes; the bank follows the table's events.
func TestBankActions(t *testing.T) {
	x := newTable(t, time.Hour, func(o *Options) {
		o.Game, o.Family, o.Spots, o.Limits = "chemin-de-fer", "baccarat", []string{"player"}, nil
		o.Bank = json.RawMessage(`{"phase":"held","seats":9,"min":1000,"banker":1,"amount":1000,"coups":0}`)
	})
	ctx := context.Background()
	tok, err := x.term.SignIn(ctx, "dealer.D7", "4711")
	if err != nil {
		t.Fatal(err)
	}
	x.term.Apply(tablebus.Event{Type: tablebus.Guide, Seq: 10, State: "between-rounds"})
	refused := func(name string, a Action, code, words string) {
		t.Helper()
		before := len(x.sent())
		err := x.term.Act(ctx, tok, a)
		var r *Refusal
		if !errors.As(err, &r) || r.Code != code || r.Error() != words {
			t.Errorf("%s: %v, want %s %q", name, err, code, words)
		}
		if n := len(x.sent()); n != before {
			t.Errorf("%s: %d commands sent", name, n-before)
		}
	}
	codes := func() string {
		var cs []string
		for _, a := range x.term.View(tok).Bank.Actions {
			cs = append(cs, a.Code)
		}
		b, _ := json.Marshal(cs)
		return string(b)
	}
	v := x.term.View(tok)
	if v.Bank == nil || v.Bank.Text != "Box 1 holds the bank: 10.00." || codes() != `["withdraw","raise"]` || v.Seats != 9 {
		t.Fatalf("the bank at start: %+v, seats %d", v.Bank, v.Seats)
	}
	refused("an accept while a banker holds it", Action{Do: "table", Seq: 10, Action: "accept", Amount: 2000}, "err.bank-action",
		"That is not one of the bank's actions now: look again, then tap.")
	refused("a raise that lowers", Action{Do: "table", Seq: 10, Action: "raise", Amount: 1000}, "err.bank-raise",
		"The bank is raised above 10.00, never lowered.")
	if err := x.term.Act(ctx, tok, Action{Do: "table", Seq: 10, Action: "withdraw", Seat: 5}); err != nil {
		t.Fatal(err)
	}

	// Withdrawn: offered to box 2, for at least what it was.
	x.term.Apply(tablebus.Event{Type: tablebus.TableAction, Seq: 11, Seat: 1, Choice: "withdraw",
		Detail: json.RawMessage(`{"phase":"offered","seats":9,"min":1000,"amount":0,"coups":0,"offer":2,"offer_min":1500,"passer":1,"voluntary":true}`)})
	if v := x.term.View(tok); v.Bank.Text != "The bank is offered to box 2, for at least 15.00." || codes() != `["accept","decline"]` ||
		v.Bank.Actions[0].Text != "Box 2 takes the bank for the amount" {
		t.Fatalf("offered: %+v", v.Bank)
	}
	refused("an accept for too little", Action{Do: "table", Seq: 10, Action: "accept", Amount: 1000}, "err.bank-accept",
		"Box 2 takes the bank for at least 15.00.")
	if err := x.term.Act(ctx, tok, Action{Do: "table", Seq: 10, Action: "accept", Amount: 2500}); err != nil {
		t.Fatal(err)
	}

	// A coup later the punters won: the round's result moves the bank to an auction.
	x.term.Apply(tablebus.Event{Type: tablebus.RoundResult, Seq: 30, Round: 2,
		Detail: json.RawMessage(`{"banker":2,"bank":2500,"stake":2500,"punter":3,"commission":0,"after":{"phase":"auction","seats":9,"min":1000,"amount":0,"coups":0,"excluded":[2],"bidder":4,"bid":3000}}`)})
	x.term.Apply(tablebus.Event{Type: tablebus.Guide, Seq: 31, State: "between-rounds"})
	if v := x.term.View(tok); v.Bank.Text != "The bank is at auction: box 4 bids 30.00." || codes() != `["bid","close"]` {
		t.Fatalf("at auction: %+v", v.Bank)
	}
	refused("a bid by the banker who passed it", Action{Do: "table", Seq: 31, Action: "bid", Seat: 2, Amount: 5000}, "err.bank-bidder",
		"Box 2 may not bid for the bank.")
	refused("a bid not above the best", Action{Do: "table", Seq: 31, Action: "bid", Seat: 5, Amount: 3000}, "err.bank-bid",
		"A bid for the bank is at least 30.01.")
	if err := x.term.Act(ctx, tok, Action{Do: "table", Seq: 31, Action: "bid", Seat: 5, Amount: 4000}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range x.sent()[1:] {
		b, _ := json.Marshal(struct {
			A string `json:"a"`
			S int    `json:"s"`
			N int64  `json:"n"`
		}{c.Action, c.Seat, c.Amount})
		got = append(got, c.Cmd+string(b))
	}
	if b, _ := json.Marshal(got); string(b) != `["table{\"a\":\"withdraw\",\"s\":1,\"n\":0}","table{\"a\":\"accept\",\"s\":2,\"n\":2500}","table{\"a\":\"bid\",\"s\":5,\"n\":4000}"]` {
		t.Errorf("sent %s", b)
	}
}
