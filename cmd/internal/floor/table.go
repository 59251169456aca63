package floor

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/baccarat/scoreboard"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// CardView is one card on the layout.
type CardView struct {
	Card   string `json:"card,omitempty"`   // "Qh"; empty when the view does not know it
	Down   bool   `json:"down,omitempty"`   // dealt face down and not turned up yet
	Hidden bool   `json:"hidden,omitempty"` // face down on the public feed: its identity is not known here
	Pos    int    `json:"pos,omitempty"`    // its position in the shoe
	Manual string `json:"manual,omitempty"` // entered by hand, by this dealer
}

// HandView is one hand on the layout: a house hand (player, banker, dealer, noir, rouge, board)
// or a seat's box.
type HandView struct {
	Place     tablebus.Place `json:"place"`
	Label     string         `json:"label"`
	Cards     []CardView     `json:"cards"`
	Total     string         `json:"total,omitempty"`    // as the dealer calls it: "7", "soft 17", "bust 24"
	Category  string         `json:"category,omitempty"` // poker: the hand's category at the showdown
	Outcome   string         `json:"outcome,omitempty"`  // "win", "lose", "push", "blackjack", …
	Decisions []string       `json:"decisions,omitempty"`
}

// RoundView is the round on the layout: the one being dealt, or the last one until the next opens.
type RoundView struct {
	No          uint64                `json:"no"`
	State       string                `json:"state"` // "dealing", "result", "settled", "voided"
	Bets        []tablebus.Bet        `json:"bets"`
	Stake       int64                 `json:"stake"` // the bets' total, cents
	Hands       []HandView            `json:"hands"`
	Burns       []CardView            `json:"burns,omitempty"` // burned inside the round (hold'em streets)
	Result      string                `json:"result,omitempty"`
	Settlements []tablebus.Settlement `json:"settlements,omitempty"`
	Net         *int64                `json:"net,omitempty"` // what the players won (+) or lost (−), cents
	Reason      string                `json:"reason,omitempty"`
}

// ShoeView is the shoe's progress.
type ShoeView struct {
	ID         string               `json:"id,omitempty"`
	Decks      int                  `json:"decks,omitempty"`
	Total      int                  `json:"total"`      // cards loaded
	Out        int                  `json:"out"`        // cards out of the shoe (the last position seen)
	Dealt      int                  `json:"dealt"`      // dealt to hands
	Burned     int                  `json:"burned"`     // burned
	Left       int                  `json:"left"`       // still in the shoe
	CutBehind  int                  `json:"cut_behind"` // cards behind the stop card; 0 when none is placed
	CutReached bool                 `json:"cut_reached,omitempty"`
	Returned   int                  `json:"returned,omitempty"` // cards a continuous shuffler took back
	Ended      bool                 `json:"ended,omitempty"`
	Accounting *tablebus.Accounting `json:"accounting,omitempty"`
	OK         *bool                `json:"ok,omitempty"` // the end-of-shoe accounting (RULES.md §1 "Counting")
}

// Outcome is one past round in the table's recent results.
type Outcome struct {
	Round   uint64 `json:"round"`
	Result  string `json:"result"`
	Summary string `json:"summary"`
	Net     int64  `json:"net"`
	Voided  bool   `json:"voided,omitempty"`
}

// Device is one device's state as the view shows it.
type Device struct {
	Name   string    `json:"name"`  // "shuffler", "reading shoe", "broker", …
	State  string    `json:"state"` // "ok", "busy", "fault", "down", "unknown"
	Detail string    `json:"detail,omitempty"`
	Since  time.Time `json:"since,omitzero"`
}

// TableView is everything the view shows of one table.
type TableView struct {
	Table     string           `json:"table"`
	Game      string           `json:"game,omitempty"`
	Family    string           `json:"family,omitempty"`
	Online    *bool            `json:"online,omitempty"` // nil: no status seen yet
	Session   uint64           `json:"session,omitempty"`
	Seq       uint64           `json:"seq"`
	LastEvent time.Time        `json:"last_event,omitzero"`
	LastCard  time.Time        `json:"last_card,omitzero"`
	State     string           `json:"state,omitempty"` // the shoe's phase from the guidance, or "held"
	Held      string           `json:"held,omitempty"`  // the fault code that holds the table
	Say       []string         `json:"say,omitempty"`   // the engine's guidance to the dealer
	Need      string           `json:"need,omitempty"`  // what the table waits for next
	Shoe      ShoeView         `json:"shoe"`
	Round     *RoundView       `json:"round,omitempty"`
	Recent    []Outcome        `json:"recent"` // newest last
	Roads     *scoreboard.View `json:"roads,omitempty"`
	Odds      *OddsView        `json:"odds,omitempty"` // baccarat: the live odds (odds.go), replaced after each coup
	Devices   []Device         `json:"devices,omitempty"`
	Version   uint64           `json:"version"`
}

// recentMax is how many past rounds a table keeps for its result strip.
const recentMax = 40

// table is the model of one table, built from its feed.
type table struct {
	v     TableView
	board *scoreboard.Board // baccarat family only
	odds  oddsState         // baccarat family only (odds.go)
}

func newTable(id string) *table {
	return &table{v: TableView{Table: id, Recent: []Outcome{}}}
}

func (t *table) setGame(game string) {
	if game == "" || game == t.v.Game {
		return
	}
	t.v.Game = game
	t.v.Family = ""
	if ent, err := catalog.Lookup(game); err == nil {
		t.v.Family = ent.Family
	}
	t.board = nil
	t.v.Roads = nil
	if t.v.Family == familyBaccarat {
		t.board = &scoreboard.Board{}
		v := t.board.View()
		t.v.Roads = &v
	}
}

func label(p tablebus.Place) string {
	if p.Seat == 0 {
		if p.Name == "" {
			return "?"
		}
		return strings.ToUpper(p.Name[:1]) + p.Name[1:]
	}
	if p.Hand == 0 {
		return fmt.Sprintf("Seat %d", p.Seat)
	}
	return fmt.Sprintf("Seat %d · hand %d", p.Seat, p.Hand+1)
}

// houseFirst are the house hands shown above the seats.
var houseFirst = map[string]bool{"dealer": true, "board": true}

// hand returns the round's hand for a place, adding it in display order.
func (r *RoundView) hand(p tablebus.Place) *HandView {
	for i := range r.Hands {
		if r.Hands[i].Place == p {
			return &r.Hands[i]
		}
	}
	h := HandView{Place: p, Label: label(p), Cards: []CardView{}}
	// Display order: dealer and board, then the other house hands as they come (player before
	// banker, noir before rouge), then the boxes by seat and hand.
	rank := func(x tablebus.Place) int {
		switch {
		case houseFirst[x.Name] && x.Seat == 0:
			return 0
		case x.Seat == 0:
			return 1
		}
		return 2
	}
	at := len(r.Hands)
	for i, x := range r.Hands {
		if rank(p) < rank(x.Place) || rank(p) == 2 && rank(x.Place) == 2 &&
			(p.Seat < x.Place.Seat || p.Seat == x.Place.Seat && p.Hand < x.Place.Hand) {
			at = i
			break
		}
	}
	r.Hands = append(r.Hands, HandView{})
	copy(r.Hands[at+1:], r.Hands[at:])
	r.Hands[at] = h
	return &r.Hands[at]
}

func cardsOf(cs []CardView) []card.Card {
	out := make([]card.Card, len(cs))
	for i, c := range cs {
		if x, err := card.Parse(c.Card); err == nil && !c.Hidden {
			out[i] = x
		}
	}
	return out
}

func (t *table) retotal(h *HandView) {
	if h.Outcome != "" {
		return // the result's total stands
	}
	h.Total = total(t.v.Family, cardsOf(h.Cards))
}

func (t *table) openRound(no uint64) *RoundView {
	if t.v.Round == nil || t.v.Round.No != no || t.v.Round.State != "dealing" {
		t.v.Round = &RoundView{No: no, State: "dealing", Bets: []tablebus.Bet{}, Hands: []HandView{}}
	}
	return t.v.Round
}

func decisionWords(d string) string {
	// RULES.md §8 decision codes, in words.
	switch d {
	case "H":
		return "hit"
	case "S":
		return "stand"
	case "D":
		return "double"
	case "P":
		return "split"
	case "R":
		return "surrender"
	case "I":
		return "insurance"
	case "E":
		return "even money"
	case "N":
		return "no"
	}
	return d
}

// apply takes the table's next event. It returns the alerts the event raises, the fault
// resolutions it reports (code and how), and whether the view changed.
func (t *table) apply(e tablebus.Event) (alerts []Alert, resolved [][2]string) {
	if e.Source != "" && e.Source != tablebus.SourceTable {
		// A separate engine's stream (Topics.Engine): only its alarms reach the view.
		if e.Type == tablebus.Fault {
			alerts = append(alerts, Alert{Table: t.v.Table, Kind: KindEngine, Code: e.Code, Round: e.Round,
				Text: fmt.Sprintf("engine %s: %s", e.Source, e.Problem), At: e.TS})
		}
		return alerts, nil
	}
	if t.v.Seq != 0 && e.Seq <= t.v.Seq {
		return nil, nil // a duplicate, or an event the view has already applied
	}
	if t.v.Seq != 0 && e.Seq > t.v.Seq+1 {
		alerts = append(alerts, Alert{Table: t.v.Table, Kind: KindFeed, Seq: e.Seq, At: e.TS,
			Text: fmt.Sprintf("events %d to %d are missing from the feed", t.v.Seq+1, e.Seq-1)})
	}
	t.v.Seq, t.v.LastEvent = e.Seq, e.TS
	if e.Session != 0 {
		t.v.Session = e.Session
	}
	t.setGame(e.Game)
	s := &t.v.Shoe
	if s.ID == "" && e.Shoe != "" && e.Type != tablebus.ShoeLoaded {
		s.ID = e.Shoe // a view that joined in the middle of a shoe
	}
	if e.Pos > s.Out && (e.Type == tablebus.CardDealt || e.Type == tablebus.Burn) {
		s.Out = e.Pos
	}
	switch e.Type {
	case tablebus.ShoeLoaded:
		t.v.Shoe = ShoeView{ID: e.Shoe, Decks: e.Decks, Total: e.Count}
		if t.board != nil {
			t.board.Reset()
		}
	case tablebus.CutCardPlaced:
		s.CutBehind = e.Behind
	case tablebus.Burn:
		s.Burned++
		if e.Round != 0 && t.v.Round != nil && t.v.Round.No == e.Round {
			t.v.Round.Burns = append(t.v.Round.Burns, cardView(e))
		}
	case tablebus.RoundOpened:
		r := t.openRound(e.Round)
		r.Bets = append([]tablebus.Bet{}, e.Bets...)
		r.Stake = 0
		for _, b := range e.Bets {
			if b.Spot != "stack" { // a circle poker seat's chips on the table, not a stake
				r.Stake += b.Amount
			}
		}
	case tablebus.CardDealt:
		s.Dealt++
		if !e.TS.IsZero() && e.Manual == nil {
			t.v.LastCard = e.TS
		}
		if e.To == nil {
			break
		}
		r := t.openRound(e.Round)
		h := r.hand(*e.To)
		h.Cards = append(h.Cards, cardView(e))
		t.retotal(h)
	case tablebus.Revealed:
		if r := t.v.Round; r != nil && e.Card != nil {
			for i := range r.Hands {
				for j := range r.Hands[i].Cards {
					if c := &r.Hands[i].Cards[j]; c.Pos == e.Pos {
						c.Card, c.Down, c.Hidden = e.Card.String(), false, false
						t.retotal(&r.Hands[i])
					}
				}
			}
		}
	case tablebus.Decision:
		if r := t.v.Round; r != nil && r.No == e.Round {
			h := r.hand(tablebus.Place{Name: "box", Seat: e.Seat, Hand: e.Hand})
			h.Decisions = append(h.Decisions, decisionWords(e.Choice))
			if e.Choice == "P" && t.v.Family == familyBlackjack {
				t.split(r, e.Seat, e.Hand)
			}
		}
	case tablebus.Guide:
		t.v.State, t.v.Held = e.State, ""
		if e.State == "held" {
			t.v.Held = e.Code
		}
		t.v.Say = e.Say
		t.v.Need = ""
		if e.Need != nil {
			t.v.Need = e.Need.String()
		}
		s.Ended = s.Ended && e.State == "idle"
	case tablebus.CutCardReached:
		s.CutReached = true
	case tablebus.CardsReturned:
		s.Returned += e.Count
	case tablebus.RoundResult:
		t.result(e)
	case tablebus.RoundSettled:
		if r := t.v.Round; r != nil && r.No == e.Round {
			r.State, r.Settlements, r.Net = "settled", e.Settle, e.Net
		}
		if n := len(t.v.Recent); n > 0 && t.v.Recent[n-1].Round == e.Round && e.Net != nil {
			t.v.Recent[n-1].Net = *e.Net
		}
	case tablebus.RoundVoided:
		if r := t.v.Round; r != nil && r.No == e.Round {
			r.State, r.Reason, r.Settlements, r.Net = "voided", e.Reason, e.Settle, e.Net
		}
		t.addRecent(Outcome{Round: e.Round, Result: "voided", Summary: "voided: " + e.Reason, Voided: true})
	case tablebus.ShoeEnded:
		s.Ended, s.Accounting, s.OK = true, e.Account, e.OK
		if e.OK == nil || !*e.OK {
			alerts = append(alerts, Alert{Table: t.v.Table, Kind: KindProcedure, Code: "accounting", Seq: e.Seq, At: e.TS,
				Text: "shoe " + e.Shoe + ": " + tablebus.Describe(e)})
		}
	case tablebus.DecksVerified:
		if e.OK != nil && !*e.OK {
			alerts = append(alerts, Alert{Table: t.v.Table, Kind: KindProcedure, Code: "deck", Seq: e.Seq, At: e.TS,
				Text: "deck check failed: " + e.Problem})
		}
	case tablebus.Fault:
		k := faultKind(e.Code, t.v.Family)
		text := e.Problem
		if e.Card != nil { // the secure feed's card (the view writes it; the feed's words never do)
			text = e.Card.String() + ": " + text
		}
		if e.Code == "command-refused" {
			// The daemon journals every refused command; the strip shows them as one alert
			// that counts until somebody acknowledges it (a flood must not bury the others).
			text = "commands refused (each is on the technician page and in the journal)"
		}
		if e.Hold {
			text += " (table held)"
		}
		alerts = append(alerts, Alert{Table: t.v.Table, Kind: k, Code: e.Code, Round: e.Round, Seq: e.Seq, At: e.TS, Text: text})
		if k == KindDevice {
			t.device(Device{Name: deviceOf(e.Code, e.Problem), State: "fault", Detail: e.Problem, Since: e.TS})
		}
	case tablebus.FaultResolved:
		how := e.Reason
		if e.Card != nil {
			how += " of " + e.Card.String()
		}
		if e.By != "" {
			how += " by " + e.By
		}
		resolved = append(resolved, [2]string{e.Code, how})
	case tablebus.DeviceStatus:
		t.device(Device{Name: e.Device, State: e.State, Detail: e.Problem, Since: e.TS})
	}
	s.Left = max(0, s.Total-(s.Out-s.Returned))
	alerts = append(alerts, t.observeOdds(e)...)
	if e.Type == tablebus.CardDealt && e.Pos > 0 {
		// A card from the shoe is the reading shoe working.
		for i := range t.v.Devices {
			if d := &t.v.Devices[i]; d.Name == "reading shoe" && d.State != "ok" && e.Manual == nil {
				d.State, d.Detail, d.Since = "ok", "reading", e.TS
			}
		}
	}
	return alerts, resolved
}

// split lays out a blackjack split (RULES.md §4): the seat's hand becomes two, the second card
// of the hand split going to the new hand right after it, the later hands one further on. The
// feed deals the next cards to the hands by index, as the engine numbers them.
func (t *table) split(r *RoundView, seat, hand int) {
	src := r.hand(tablebus.Place{Name: "box", Seat: seat, Hand: hand})
	if len(src.Cards) < 2 {
		return
	}
	moved := src.Cards[len(src.Cards)-1]
	src.Cards = src.Cards[:len(src.Cards)-1]
	t.retotal(src)
	for i := len(r.Hands) - 1; i >= 0; i-- { // the later hands move on, the last first
		if h := &r.Hands[i]; h.Place.Name == "box" && h.Place.Seat == seat && h.Place.Hand > hand {
			h.Place.Hand++
			h.Label = label(h.Place)
		}
	}
	nh := r.hand(tablebus.Place{Name: "box", Seat: seat, Hand: hand + 1})
	nh.Cards = append(nh.Cards, moved)
	t.retotal(nh)
}

// deviceOf names the device of a device fault: the shoe machine writes its problem as
// "device: detail" (shoe.DeviceFault).
func deviceOf(code, problem string) string {
	dev, _, _ := strings.Cut(problem, ":")
	switch {
	case dev == "shoe" || strings.HasPrefix(code, "shoe-"):
		return "reading shoe"
	case dev == "shuffler" || strings.HasPrefix(code, "shuffler"):
		return "shuffler"
	case dev == "camera" || strings.HasPrefix(code, "camera"):
		return "camera"
	}
	return "device"
}

// device sets one device's state.
func (t *table) device(d Device) {
	for i := range t.v.Devices {
		if t.v.Devices[i].Name == d.Name {
			if t.v.Devices[i].State == d.State && !d.Since.IsZero() {
				d.Since = t.v.Devices[i].Since
			}
			t.v.Devices[i] = d
			return
		}
	}
	t.v.Devices = append(t.v.Devices, d)
}

func cardView(e tablebus.Event) CardView {
	v := CardView{Pos: e.Pos, Hidden: e.Hidden}
	if e.Card != nil {
		v.Card = e.Card.String()
	}
	if e.Face != nil && *e.Face == tablebus.FaceDown {
		v.Down = true
	}
	if e.Manual != nil {
		v.Manual = e.Manual.Dealer
	}
	return v
}

func (t *table) addRecent(o Outcome) {
	t.v.Recent = append(t.v.Recent, o)
	if len(t.v.Recent) > recentMax {
		t.v.Recent = append([]Outcome{}, t.v.Recent[len(t.v.Recent)-recentMax:]...)
	}
}

// result applies a round.result: the engine's hands, totals and outcomes replace the running
// ones, and a baccarat coup is marked on the roads.
func (t *table) result(e tablebus.Event) {
	r := t.openRound(e.Round)
	r.State, r.Result = "result", e.Result
	all := append([]tablebus.Hand{}, e.Hands...)
	if e.Dealer != nil {
		d := *e.Dealer
		if d.Name == "" {
			d.Name = "dealer"
		}
		all = append(all, d)
	}
	var parts []string
	for _, g := range all {
		p := tablebus.Place{Name: g.Name, Seat: g.Seat, Hand: g.Hand}
		if g.Seat != 0 {
			p.Name = "box"
		} else {
			p.Hand = 0
		}
		h := r.hand(p)
		known := h.Cards
		h.Cards = make([]CardView, len(g.Cards))
		for i, c := range g.Cards {
			h.Cards[i] = CardView{Card: c.String(), Down: slices.Contains(g.Down, i)}
			if i < len(known) {
				h.Cards[i].Pos, h.Cards[i].Manual = known[i].Pos, known[i].Manual
			}
		}
		h.Outcome, h.Category = g.Outcome, g.Category
		if h.Outcome == "" {
			h.Outcome = "done"
		}
		h.Total = ""
		if t.v.Family != familyPoker {
			h.Total = fmt.Sprint(g.Total)
		}
		if g.Seat == 0 && h.Total != "" {
			parts = append(parts, fmt.Sprintf("%s %s", g.Name, h.Total))
		}
	}
	sum := e.Result
	if len(parts) > 0 {
		sum += " · " + strings.Join(parts, " · ")
	}
	t.addRecent(Outcome{Round: e.Round, Result: e.Result, Summary: sum})
	if t.board != nil {
		o := &games.Outcome{Game: e.Game, Result: e.Result}
		for _, h := range e.Hands {
			o.Hands = append(o.Hands, h.Game())
		}
		if c, err := scoreboard.FromOutcome(o); err == nil && t.board.Add(c) == nil {
			v := t.board.View()
			t.v.Roads = &v
		}
	}
}

// status applies the daemon's birth or death message. It returns the alert a death raises.
func (t *table) status(s tablebus.Status) []Alert {
	was := t.v.Online
	on := s.Online
	t.v.Online = &on
	t.v.Session = max(t.v.Session, s.Session)
	t.setGame(s.Game)
	if !on && (was == nil || *was) {
		return []Alert{{Table: t.v.Table, Kind: KindOffline, At: s.TS,
			Text: fmt.Sprintf("the daemon of table %s is offline (session %d, last event #%d): no card can come from it", s.Table, s.Session, s.Seq)}}
	}
	return nil
}
