package floor

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"net/http"
	"slices"
	"sync/atomic"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/baccarat/roads"
	"github.com/sabot-tables/sabot/tablebus"
)

// Languages of the scoreboard: simplified and traditional Chinese, English and Spanish. The
// words are in static/scoreboard.js.
var ScoreboardLanguages = []string{"zh-Hans", "zh-Hant", "en", "es"}

// ScoreboardOptions configure a table's scoreboard.
type ScoreboardOptions struct {
	Table  string      // the table it shows
	Config TableConfig // the pay table and the limits, which the feed does not carry
	Lang   string      // the language when the page does not ask for one (?lang=); default en
	Logger *slog.Logger
	// Throttle is the least time between two updates of one stream; default 250 ms.
	Throttle time.Duration
	// MaxStreams bounds the screens served at once; default 16.
	MaxStreams int
}

// Scoreboard is the baccarat scoreboard of one table, for the screen above it that the players
// read before they bet: the five roads and their prediction, the last results, the limits, the
// shoe's count, full screen, in four languages. It is public: whatever it is fed, it applies the
// public form of each event (tablebus.Event.Public), so that no face-down card, no squeezed card
// before its reveal and no word of the dealer's guidance can reach it.
type Scoreboard struct {
	o       ScoreboardOptions
	floor   *Floor
	mux     *http.ServeMux
	streams atomic.Int64
}

// NewScoreboard returns the scoreboard of o.Table.
func NewScoreboard(o ScoreboardOptions) (*Scoreboard, error) {
	if err := tablebus.ValidTable(o.Table); err != nil {
		return nil, fmt.Errorf("floor: scoreboard: %w", err)
	}
	if o.Lang == "" {
		o.Lang = "en"
	}
	if !slices.Contains(ScoreboardLanguages, o.Lang) {
		return nil, fmt.Errorf("floor: scoreboard: language %q (want one of %v)", o.Lang, ScoreboardLanguages)
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Throttle <= 0 {
		o.Throttle = 250 * time.Millisecond
	}
	if o.MaxStreams <= 0 {
		o.MaxStreams = 16
	}
	b := &Scoreboard{o: o, floor: New(Options{Logger: o.Logger}), mux: http.NewServeMux()}
	if err := b.floor.Configure(o.Table, o.Config); err != nil {
		return nil, err
	}
	sub, err := fs.Sub(static, "static")
	if err != nil {
		return nil, err
	}
	files := http.FileServerFS(sub)
	b.mux.HandleFunc("GET /{$}", b.page)
	for _, f := range []string{"scoreboard.js", "scoreboard.css", "roads.js"} {
		b.mux.Handle("GET /static/"+f, http.StripPrefix("/static/", noCache(files)))
	}
	b.mux.HandleFunc("GET /api/board", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, http.StatusOK, b.Board()) })
	b.mux.HandleFunc("GET /api/stream", b.stream)
	return b, nil
}

// Apply takes one event of the table's feed, in its public form. Events of other tables are
// left out.
func (b *Scoreboard) Apply(e tablebus.Event) {
	if e.Table != b.o.Table {
		return
	}
	p := e.Public()
	b.floor.Apply(Delivery{Event: &p})
}

// Prime is Apply for the events of the past (the open shoe, from the journal at start).
func (b *Scoreboard) Prime(e tablebus.Event) {
	if e.Table != b.o.Table {
		return
	}
	p := e.Public()
	b.floor.Prime(Delivery{Event: &p})
}

// BoardView is what the scoreboard shows: the JSON of /api/board.
type BoardView struct {
	Table    string        `json:"table"`
	Game     string        `json:"game,omitempty"`
	PayTable string        `json:"paytable"`
	Lang     string        `json:"lang"` // the default language
	Shoe     BoardShoe     `json:"shoe"`
	Roads    roads.View    `json:"roads"`
	Last     []roads.Bead  `json:"last"`           // the last coups, newest last (the bead plate's end)
	Coup     *BoardCoup    `json:"coup,omitempty"` // the coup on the layout, or the last one
	Limits   []games.Limit `json:"limits"`
	Spots    []string      `json:"spots,omitempty"`
	Online   *bool         `json:"online,omitempty"`
	Version  uint64        `json:"version"`
}

// BoardShoe is the shoe's count.
type BoardShoe struct {
	ID    string `json:"id,omitempty"`
	Decks int    `json:"decks,omitempty"`
	Total int    `json:"total"` // cards loaded
	Left  int    `json:"left"`  // cards left in the shoe
	Coups int    `json:"coups"`
	Ended bool   `json:"ended,omitempty"`
	Cut   bool   `json:"cut,omitempty"` // the stop card came out: this shoe's last coup
}

// BoardCoup is the coup on the layout as the public feed shows it: a card dealt face down (a
// squeezed card) has no identity until it is revealed.
type BoardCoup struct {
	No     uint64    `json:"no"`
	State  string    `json:"state"` // "dealing", "result", "settled", "voided"
	Result string    `json:"result,omitempty"`
	Player BoardHand `json:"player"`
	Banker BoardHand `json:"banker"`
}

// BoardHand is one hand of the coup: its cards ("" for a card not shown) and its total once
// every card is shown.
type BoardHand struct {
	Cards []string `json:"cards"`
	Total string   `json:"total,omitempty"`
}

// lastCoups is how many coups the results strip shows.
const lastCoups = 12

// Board returns the scoreboard as it is now.
func (b *Scoreboard) Board() BoardView {
	v, _ := b.floor.Table(b.o.Table)
	bv := BoardView{Table: b.o.Table, Game: v.Game, PayTable: b.o.Config.PayTable, Lang: b.o.Lang, Online: v.Online, Version: v.Version,
		Shoe:   BoardShoe{ID: v.Shoe.ID, Decks: v.Shoe.Decks, Total: v.Shoe.Total, Left: v.Shoe.Left, Ended: v.Shoe.Ended, Cut: v.Shoe.CutReached},
		Limits: slices.Clone(b.o.Config.Limits), Spots: slices.Clone(b.o.Config.Spots)}
	if bv.PayTable == "" {
		bv.PayTable = "standard"
	}
	if bv.Limits == nil {
		bv.Limits = []games.Limit{}
	}
	var empty roads.Roads
	bv.Roads = empty.View()
	if v.Roads != nil {
		bv.Roads = *v.Roads
	}
	bv.Shoe.Coups = bv.Roads.Coups
	if r := v.Round; r != nil {
		c := &BoardCoup{No: r.No, State: r.State, Result: r.Result, Player: BoardHand{Cards: []string{}}, Banker: BoardHand{Cards: []string{}}}
		for _, h := range r.Hands {
			bh := &c.Player
			switch h.Place.Name {
			case "player":
			case "banker":
				bh = &c.Banker
			default:
				continue
			}
			for _, x := range h.Cards {
				bh.Cards = append(bh.Cards, x.Card)
			}
			bh.Total = h.Total
		}
		bv.Coup = c
	}
	beads := bv.Roads.BeadPlate
	bv.Last = slices.Clone(beads[max(0, len(beads)-lastCoups):])
	return bv
}

func (b *Scoreboard) page(w http.ResponseWriter, r *http.Request) {
	body, err := static.ReadFile("static/scoreboard.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(body)
}

// ServeHTTP serves the scoreboard: its page, /api/board and the live stream /api/stream.
func (b *Scoreboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "the scoreboard is read-only", http.StatusMethodNotAllowed)
		return
	}
	b.mux.ServeHTTP(w, r)
}

// stream sends the board as server-sent events: "board" at once and after every change, at most
// one per Throttle, and a comment every 15 s.
func (b *Scoreboard) stream(w http.ResponseWriter, r *http.Request) {
	if n := b.streams.Add(1); n > int64(b.o.MaxStreams) {
		b.streams.Add(-1)
		http.Error(w, "scoreboard: too many screens open", http.StatusServiceUnavailable)
		return
	}
	defer b.streams.Add(-1)
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	ctx := r.Context()
	send := func(v BoardView) bool {
		body, err := json.Marshal(v)
		if err != nil {
			return false
		}
		rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
		if _, err := fmt.Fprintf(w, "event: board\ndata: %s\n\n", body); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	changed := b.floor.Changed()
	last := b.Board()
	if !send(last) {
		return
	}
	sent := time.Now()
	ping := time.NewTicker(15 * time.Second)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ping.C:
			rc.SetWriteDeadline(time.Now().Add(10 * time.Second))
			if _, err := fmt.Fprint(w, ": ping\n\n"); err != nil || rc.Flush() != nil {
				return
			}
			continue
		case <-changed:
		}
		if wait := b.o.Throttle - time.Since(sent); wait > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
		}
		sent = time.Now()
		changed = b.floor.Changed()
		if v := b.Board(); v.Version != last.Version {
			last = v
			if !send(v) {
				return
			}
		}
	}
}
