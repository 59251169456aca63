package floor

import (
	"fmt"
	"math/big"
	"slices"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/baccarat"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// KindAdvantage is an alert of the live odds: a side bet that favours the player for the cards
// left in the shoe, bet heavily (issue 20).
const KindAdvantage Kind = "advantage-play"

func init() { kindTitles[KindAdvantage] = "Side bet favours the player" }

// DefaultHeavySideBet is what makes a side bet "heavy" when neither the table nor the floor says
// otherwise: at least 50% of the seat's own player and banker stakes in the coup (or a side bet
// with no player or banker bet at all). A recreational side bet is a small part of the bet
// beside it (a side bet's limits are a small part of the main bet's: Dragon 7 at $5–$100 on a
// $25–$5,000 table), while a counter raises the side bet when the count turns and keeps the
// main bet at its minimum, or places none (wonging in): half the main bet is far above the
// first and reached at once by the second. It needs nothing but the coup's own bets, so it
// works from the first coup and in a view that knows no limits.
const DefaultHeavySideBet = 50

// TableConfig is what a view knows of a table beyond its feed: the feed says the game, not the
// table's options or limits. The daemon configures its own view (cmd/sabotd); a view of a
// whole floor prices every bet of the family at the standard pay table.
type TableConfig struct {
	PayTable string        // baccarat: standard (default), ez or super6 (option paytable)
	Spots    []string      // the spots the table takes; empty: every spot of the family
	Limits   []games.Limit // the table's limits in force
	// HeavySideBet is a side bet's least stake, in percent of the seat's player and banker
	// stakes, that makes a favourable side bet an alert (option heavy-side-bet); 0: the floor's.
	HeavySideBet int
}

// Configure gives the view a table's configuration (the table's own daemon knows it).
func (f *Floor) Configure(table string, c TableConfig) error {
	if err := tablebus.ValidTable(table); err != nil {
		return err
	}
	if c.PayTable == "" {
		c.PayTable = baccarat.Standard.String()
	}
	if _, err := baccarat.ParsePayTable(c.PayTable); err != nil {
		return fmt.Errorf("floor: table %s: %w", table, err)
	}
	if c.HeavySideBet < 0 {
		return fmt.Errorf("floor: table %s: heavy side bet %d%%: want a percentage above 0", table, c.HeavySideBet)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.table(table)
	t.odds.conf = c
	t.odds.full, t.odds.stale = nil, true
	f.bump(t, false)
	return nil
}

// OddsView is the live odds of a baccarat table (issue 20): every bet's exact expected return
// for the cards left in the shoe, after each coup, by the exact enumeration of games/baccarat.
// Surveillance only: it needs the secure feed, where every card that left the shoe is known.
type OddsView struct {
	Coups    int     `json:"coups"`             // the shoe's coups so far: the figures are for the next
	Left     int     `json:"left"`              // cards left in the shoe
	Unknown  int     `json:"unknown,omitempty"` // cards out of the shoe never identified (a voided misread): counted as still in it, the figures are then approximate
	PayTable string  `json:"paytable"`
	Heavy    int     `json:"heavy_side_bet"` // the heavy side bet's threshold, percent of the seat's main bet
	Bets     []BetEV `json:"bets"`
	Note     string  `json:"note,omitempty"` // why there are no figures
}

// BetEV is one bet's expected return.
type BetEV struct {
	Spot string `json:"spot"`
	// EV is what the bet returns per 100 staked, on average, for the cards left: "-1.0579"
	// (the house's edge), "+2.3310" (the player's). Four decimals.
	EV string `json:"ev"`
	// Full is the same for a full shoe: the published figure the shoe drifts from.
	Full   string `json:"full"`
	Player bool   `json:"player,omitempty"` // the bet favours the player now
	ev     *big.Rat
}

// oddsState follows a baccarat table's shoe card by card for the live odds.
type oddsState struct {
	conf         TableConfig
	heavyDefault int
	loaded       bool        // the shoe's loading was seen: its composition is known
	decks        int         // the shoe's decks
	comp         card.Counts // the cards not yet seen out of the shoe
	total, out   int         // cards loaded; the furthest position seen out of the shoe
	hidden       bool        // the feed hides cards (the public feed)
	cut          bool        // the stop card came out: no coup follows this one
	coups        int
	stale        bool
	full         []baccarat.BetOdds // a full shoe's figures, for Full
	fullDecks    int
	last         []baccarat.BetOdds // the figures in force, for the alerts
}

func (o *oddsState) heavy() int {
	switch {
	case o.conf.HeavySideBet > 0:
		return o.conf.HeavySideBet
	case o.heavyDefault > 0:
		return o.heavyDefault
	}
	return DefaultHeavySideBet
}

// observeOdds follows one event of a baccarat table for the live odds, updates the view's
// figures after each coup and returns the alerts a heavy bet on a favourable side bet raises.
func (t *table) observeOdds(e tablebus.Event) []Alert {
	o := &t.odds
	if t.v.Family != familyBaccarat || t.v.Game == "chemin-de-fer" {
		// Chemin de fer's options leave the tableau to the players: no fixed enumeration.
		t.v.Odds = nil
		return nil
	}
	if e.Pos > o.out {
		o.out = e.Pos
	}
	switch e.Type {
	case tablebus.ShoeLoaded:
		*o = oddsState{conf: o.conf, heavyDefault: o.heavyDefault, full: o.full, fullDecks: o.fullDecks,
			loaded: true, decks: e.Decks, comp: card.Decks(e.Decks), total: e.Count, stale: true}
		t.updateOdds()
	case tablebus.Burn, tablebus.CardDealt:
		switch {
		case e.Hidden:
			o.hidden = true
		case e.Card != nil:
			o.comp.Remove(*e.Card) // a card the shoe cannot hold is a fault of its own
			o.stale = true
		}
	case tablebus.RoundOpened:
		if o.stale {
			t.updateOdds()
		}
		return t.heavyBets(e)
	case tablebus.CutCardReached:
		o.cut = true
	case tablebus.RoundResult, tablebus.RoundVoided:
		o.coups++
		t.updateOdds()
	}
	return nil
}

// updateOdds computes every bet's figures for the cards left.
func (t *table) updateOdds() {
	o := &t.odds
	o.stale = false
	o.last = nil
	v := &OddsView{Coups: o.coups, PayTable: o.payTable().String(), Heavy: o.heavy(), Bets: []BetEV{}}
	t.v.Odds = v
	switch {
	case o.hidden:
		v.Note = "the feed hides cards: the live odds need the secure feed"
		return
	case !o.loaded:
		v.Note = "the view joined during the shoe: live odds from the next shoe"
		return
	case o.cut:
		v.Note = "the stop card is out: no coup follows in this shoe"
		return
	}
	v.Left = max(0, o.total-o.out)
	v.Unknown = max(0, o.comp.Total()-v.Left)
	variant, _ := baccarat.ParseVariant(t.v.Game)
	spots := o.spots()
	bets, err := baccarat.LiveOdds(o.comp, variant, o.payTable(), spots)
	if err != nil {
		v.Note = "no figures: " + err.Error()
		return
	}
	if o.full == nil || o.fullDecks != o.decks {
		o.full, _ = baccarat.LiveOdds(card.Decks(o.decks), variant, o.payTable(), spots)
		o.fullDecks = o.decks
	}
	o.last = bets
	for _, b := range bets {
		ev := BetEV{Spot: b.Spot, EV: percent(b.EV), ev: b.EV, Player: b.EV.Sign() > 0}
		for _, f := range o.full {
			if f.Spot == b.Spot {
				ev.Full = percent(f.EV)
			}
		}
		v.Bets = append(v.Bets, ev)
	}
}

func (o *oddsState) payTable() baccarat.PayTable {
	t, _ := baccarat.ParsePayTable(o.conf.PayTable)
	return t
}

func (o *oddsState) spots() []string {
	if len(o.conf.Spots) > 0 {
		return o.conf.Spots
	}
	return baccarat.AllSpots()
}

// percent writes an expected return per unit as percent with its sign, four decimals.
func percent(ev *big.Rat) string {
	s := new(big.Rat).Mul(ev, big.NewRat(100, 1)).FloatString(4)
	if ev.Sign() >= 0 {
		s = "+" + s
	}
	return s
}

// heavyBets returns an alert for each side bet of the coup that favours the player for the
// cards left and is heavy: at least the heavy share of the seat's player and banker stakes, or
// with none of them.
func (t *table) heavyBets(e tablebus.Event) []Alert {
	o := &t.odds
	if len(o.last) == 0 {
		return nil
	}
	main := map[int]int64{}
	for _, b := range e.Bets {
		if b.Spot == baccarat.SpotPlayer || b.Spot == baccarat.SpotBanker {
			main[b.Seat] += b.Amount
		}
	}
	var alerts []Alert
	for _, b := range e.Bets {
		if b.Spot == baccarat.SpotPlayer || b.Spot == baccarat.SpotBanker {
			continue
		}
		i := slices.IndexFunc(o.last, func(x baccarat.BetOdds) bool { return x.Spot == b.Spot })
		if i < 0 || o.last[i].EV.Sign() <= 0 {
			continue
		}
		m := main[b.Seat]
		if m > 0 && b.Amount*100 < int64(o.heavy())*m {
			continue
		}
		share := "with no bet on player or banker"
		if m > 0 {
			share = fmt.Sprintf("%d%% of its player and banker bets", b.Amount*100/m)
		}
		alerts = append(alerts, Alert{Table: t.v.Table, Kind: KindAdvantage, Round: e.Round, Seq: e.Seq, At: e.TS,
			Text: fmt.Sprintf("seat %d bets %s on %s, %s, while it favours the player by %s%% for the %d cards left (coup %d of the shoe)",
				b.Seat, cents(b.Amount), b.Spot, share, percent(o.last[i].EV)[1:], max(0, o.total-o.out), o.coups+1)})
	}
	return alerts
}

// cents writes an amount of cents as units and cents: 1234 is "12.34".
func cents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}
