package terminal

import (
	"slices"
	"strconv"
	"strings"

	"github.com/sabot-tables/sabot/cmd/internal/floor"
	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// View is what the page shows, in the signed-in dealer's language. Every word of it comes from
// a catalog (the engine's guidance from games/text, the page's own from ui/); the page adds
// none but the numbers.
type View struct {
	Version uint64 `json:"version"`
	Table   string `json:"table"`
	Game    string `json:"game"`
	Family  string `json:"family"`
	Sim     bool   `json:"sim,omitempty"`
	// Shuffler is the table's: "sabot", "none" (cards attested), "csm" (a continuous shuffler).
	Shuffler string  `json:"shuffler"`
	Signed   *Signed `json:"signed,omitempty"`
	IdleIn   int     `json:"idle_in,omitempty"` // seconds until the sign-out for inactivity

	Seq    uint64 `json:"seq"`   // the guidance shown: an action names it
	State  string `json:"state"` // the shoe's phase, or "held"
	Held   string `json:"held,omitempty"`
	Closed bool   `json:"closed,omitempty"`
	// Guide is the guidance, large: the engine's words in the dealer's language.
	Guide []string   `json:"guide"`
	Need  *NeedView  `json:"need,omitempty"`
	Fault *FaultView `json:"fault,omitempty"`

	Round  *floor.RoundView `json:"round,omitempty"` // the layout, as the public sees it
	Shoe   floor.ShoeView   `json:"shoe"`
	Recent []floor.Outcome  `json:"recent"`
	Settle []SettleLine     `json:"settle,omitempty"` // the last round's payments, box by box

	Seats    int              `json:"seats"`
	Spots    []Term           `json:"spots"`
	Limits   []tablebus.Limit `json:"limits"`
	Proc     Procedure        `json:"proc"`
	Possible map[string]int   `json:"possible,omitempty"` // held: the cards the shoe may still hold, by card
	Bank     *BankView        `json:"bank,omitempty"`     // chemin de fer: the players' bank
}

// Signed is who is signed in.
type Signed struct {
	ID   string `json:"id"`
	Role string `json:"role"`
	Lang string `json:"lang"`
}

// Term is a code with its words.
type Term struct {
	Code string `json:"code"`
	Text string `json:"text"`
}

// NeedView is what the round waits for, and the decisions the rules allow now, one button each.
type NeedView struct {
	Kind    string         `json:"kind"` // card, burn, decision
	Text    string         `json:"text"`
	To      string         `json:"to,omitempty"` // card: the place's words
	Place   tablebus.Place `json:"place,omitzero"`
	Down    bool           `json:"down,omitempty"`
	Seat    int            `json:"seat,omitempty"`
	Hand    int            `json:"hand,omitempty"`
	Options []Option       `json:"options,omitempty"`
}

// Option is one decision the engine allows: its code, its words and, for a bet of a chosen
// size (circle poker's "raise:200-10000"), the range in cents.
type Option struct {
	Code string `json:"code"`
	Text string `json:"text"`
	Min  int64  `json:"min,omitempty"`
	Max  int64  `json:"max,omitempty"`
}

// FaultView is the fault that holds the table, and how it may be resolved.
type FaultView struct {
	Code     string `json:"code"`
	Pos      int    `json:"pos,omitempty"`
	Text     string `json:"text"`               // what to do, in words
	Manual   bool   `json:"manual"`             // entering the card by hand resolves it
	Approval bool   `json:"approval,omitempty"` // and needs a supervisor's approval
}

// SettleLine is what the dealer pays (Net > 0) or takes (Net < 0) at one box.
type SettleLine struct {
	Seat int    `json:"seat"`
	Net  int64  `json:"net"`
	Text string `json:"text"`
}

// View returns the page's view for the session of token (signed out: what the sign-in screen
// shows).
func (t *Terminal) View(token string) View {
	tv, _ := t.fl.Table(t.o.Table)
	t.mu.Lock()
	defer t.mu.Unlock()
	lang := English
	v := View{Version: t.version, Table: t.o.Table, Game: t.o.Game, Family: t.o.Family, Sim: t.o.Sim, Shuffler: t.o.Shuffler,
		Seats: t.o.Seats, Proc: t.o.Proc, Limits: slices.Clone(t.limits), Closed: t.closed}
	if v.Limits == nil {
		v.Limits = []tablebus.Limit{}
	}
	if s := t.sess; s != nil && s.token == token && token != "" {
		lang = s.person.Lang
		v.Signed = &Signed{ID: s.person.ID, Role: s.person.Role, Lang: lang}
		v.IdleIn = max(0, int((t.o.Idle - t.o.Now().Sub(s.last)).Seconds()))
	}
	g := t.guide
	v.Seq, v.State, v.Held = g.Seq, g.State, ""
	if g.State == "held" {
		v.Held = g.Code
	}
	for _, m := range g.Msgs {
		v.Guide = append(v.Guide, games.Text(lang, m.Game()))
	}
	if v.Guide == nil {
		v.Guide = []string{}
	}
	split := map[int]bool{} // the boxes split into hands: their first hand is said "hand 1"
	if tv.Round != nil {
		for _, h := range tv.Round.Hands {
			if h.Place.Name == "box" && h.Place.Hand > 0 {
				split[h.Place.Seat] = true
			}
		}
	}
	place := func(p tablebus.Place) games.Msg {
		if p.Name == "box" && p.Hand == 0 && split[p.Seat] {
			return games.M("place.box-hand", games.N("seat", p.Seat), games.N("hand", 1))
		}
		return games.PlaceMsg(p.Game())
	}
	if n := g.Need; n != nil && n.Kind != tablebus.NeedDone {
		gn := n.Game()
		nv := &NeedView{Kind: n.Kind.String(), Text: games.Text(lang, games.NeedMsg(gn)), Seat: n.Seat, Hand: n.Hand}
		if n.Kind == tablebus.NeedCard {
			nv.To, nv.Place, nv.Down = games.Text(lang, place(n.To)), n.To, n.Face == tablebus.FaceDown
			nv.Text = games.Text(lang, games.M("need.card", games.T("place", place(n.To))))
			if nv.Down {
				nv.Text = games.Text(lang, games.M("need.card-down", games.T("place", place(n.To))))
			}
		}
		// What the table waits for is always the guidance's last line, large.
		if len(v.Guide) == 0 || v.Guide[len(v.Guide)-1] != nv.Text {
			v.Guide = append(v.Guide, nv.Text)
		}
		for _, o := range n.Options {
			op := Option{Code: o, Text: games.Text(lang, games.DecisionMsg(o))}
			if verb, rng, ok := strings.Cut(o, ":"); ok {
				op.Code = verb
				lo, hi, _ := strings.Cut(rng, "-")
				op.Min, op.Max = atoi64(lo), atoi64(hi)
			}
			nv.Options = append(nv.Options, op)
		}
		v.Need = nv
	}
	if f := t.fault; f != nil && g.State == "held" {
		fv := &FaultView{Code: f.Code, Pos: f.Pos, Manual: f.Code == "misread" || f.Code == "foreign-card"}
		fv.Approval = f.Code == "foreign-card"
		if len(v.Guide) > 0 {
			fv.Text = v.Guide[len(v.Guide)-1]
		}
		v.Fault = fv
		v.Possible = map[string]int{}
		for _, c := range card.Deck() {
			v.Possible[c.String()] = t.known.Of(c)
		}
	}
	if t.bank != nil {
		v.Bank = t.bank.view(lang)
	}
	v.Round, v.Shoe, v.Recent = tv.Round, tv.Shoe, tv.Recent
	if v.Recent == nil {
		v.Recent = []floor.Outcome{}
	}
	if v.Round != nil {
		r := *v.Round
		r.Hands = slices.Clone(r.Hands)
		for i := range r.Hands {
			h := &r.Hands[i]
			h.Label = games.Text(lang, place(h.Place))
			h.Decisions = nil
			if h.Outcome != "" {
				var ws []string
				for _, w := range strings.Split(h.Outcome, ",") {
					ws = append(ws, outcomeText(lang, w))
				}
				h.Outcome = strings.Join(ws, ", ")
			}
		}
		v.Round = &r
	}
	for _, sp := range t.o.Spots {
		v.Spots = append(v.Spots, Term{Code: sp, Text: spotText(lang, sp)})
	}
	if st := t.settled; st != nil && (v.Round == nil || v.Round.No == st.Round) {
		by := map[int]int64{}
		var seats []int
		for _, s := range st.Settle {
			if _, ok := by[s.Seat]; !ok {
				seats = append(seats, s.Seat)
			}
			by[s.Seat] += s.Net
		}
		slices.Sort(seats)
		for _, seat := range seats {
			net := by[seat]
			code := "settle.push"
			switch {
			case st.Type == tablebus.RoundVoided:
				code = "settle.return"
			case net > 0:
				code = "settle.pay"
			case net < 0:
				code = "settle.take"
			}
			v.Settle = append(v.Settle, SettleLine{Seat: seat, Net: net,
				Text: Say(lang, code, map[string]string{"seat": itoa(seat), "amount": Money(abs(net))})})
		}
	}
	return v
}

// outcomeText says a hand's outcome ("win", "does not qualify") in a language.
func outcomeText(lang, w string) string {
	code := "outcome." + strings.ReplaceAll(strings.TrimSpace(w), " ", "-")
	if s := games.Text(lang, games.M(code)); s != code {
		return s
	}
	return w
}

// spotText says a bet spot in a language: the catalog's words, or its code where there are none.
func spotText(lang, spot string) string {
	if s := games.Text(lang, games.M("spot."+spot)); s != "spot."+spot {
		return s
	}
	return spot
}

func atoi64(s string) int64 {
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int64(c-'0')
	}
	return n
}

func itoa(n int) string { return strconv.Itoa(n) }

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
