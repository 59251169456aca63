package shoe_test

import (
	"bytes"
	"fmt"
	"slices"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// leakRun is one way of dealing the simulated shoes of the leak test.
type leakRun struct {
	name                     string
	seed                     uint64
	shoes                    int // shoes of the multi-deck games; the poker games deal 10× as many
	misread, stray, burnMode int // shoetest.Table's MisreadEvery, StrayEvery, BurnModeEvery
}

var leakRuns = []leakRun{
	{name: "clean", seed: 9, shoes: 4},
	{name: "misreads", seed: 10, shoes: 4, misread: 37},
	// Misreads (manual entries), strays (foreign and extra cards, accounting faults) and burn
	// mode (discretionary burns, cards out of turn): every fault that names a card.
	{name: "faults", seed: 11, shoes: 4, misread: 29, stray: 41, burnMode: 53},
}

// TestPublicFeedLeaksNoHiddenCard checks RULES.md §1 "Hidden cards" on whole simulated shoes
// of every game: no card identity that is face down, or that only the secure feed names (a
// fault's card, a card entered by hand, an exchange's cards, a composition's missing and extra
// cards), appears anywhere in a public payload before it is shown face up. It does not look
// at fields: it scans each public payload's bytes for every secret card's name, in every form
// card.Named reads (Kd, KD, 10h, K♦), wherever it is, words included. A card may appear only
// as often as the event itself shows it face up (its own face-up card or reveal; a result
// that lists the round's face-up cards).
//
// It also checks that the public feed is a function of the secure payload alone: the public
// form of the decoded secure payload is, byte for byte, the public payload.
//
// Squeeze baccarat (RULES.md §2 "Squeeze") is dealt too: there each squeezed card must stay off
// the public feed until its own reveal, which must come before the coup's result, and while a
// card waits for its reveal the public feed must not tell what the tableau will do next.
func TestPublicFeedLeaksNoHiddenCard(t *testing.T) {
	for _, run := range leakRuns {
		for _, lt := range leakTables() {
			game := lt.cfg.Game
			t.Run(run.name+"/"+lt.name, func(t *testing.T) {
				t.Parallel()
				n := run.shoes
				if ent, _ := catalog.Lookup(game); ent.Family == "poker" {
					n *= 10
				}
				evs := leakConfig(t, lt.cfg, run, n)
				st := checkNoLeak(t, evs)
				if st.shoes < n {
					t.Fatalf("%d shoes ended, want %d", st.shoes, n)
				}
				if lt.cfg.Options["squeeze"] == "on" {
					checkSqueeze(t, evs)
				}
				t.Logf("%d shoes, %d events, %d face-down cards, %d reveals, %d cards named secure-only (%d faults with a card, %d manual entries, %d exchanges); %d payloads scanned for %d secret names",
					st.shoes, len(evs), st.down, st.reveals, st.named, st.faultCards, st.manual, st.exchanges, st.scanned, st.looked)
			})
		}
	}
}

// leakTable is one table configuration the leak test deals.
type leakTable struct {
	name string
	cfg  games.Config
}

// leakTables are every game of the catalog as configured by default, and squeeze baccarat.
func leakTables() []leakTable {
	var out []leakTable
	for _, g := range catalog.Games() {
		out = append(out, leakTable{g, games.Config{Game: g}})
	}
	return append(out,
		leakTable{"punto-banco+squeeze", games.Config{Game: "punto-banco", Options: map[string]string{"squeeze": "on"}}},
		leakTable{"punto-banco+squeeze+ez", games.Config{Game: "punto-banco", Options: map[string]string{"squeeze": "on", "paytable": "ez"}}},
		leakTable{"baccarat+squeeze", games.Config{Game: "baccarat", Options: map[string]string{"squeeze": "on"}}},
		// The progressive's claims name every seat's final hand, folded ones included.
		leakTable{"caribbean-stud+progressive", games.Config{Game: "caribbean-stud", Options: map[string]string{"progressive": "controller"}}},
		leakTable{"draw-poker+progressive", games.Config{Game: "draw-poker", Options: map[string]string{"progressive": "controller"}}},
		leakTable{"go-poker+progressive", games.Config{Game: "go-poker", Options: map[string]string{"progressive": "controller"}}})
}

func leakGame(t *testing.T, game string, run leakRun, shoes int) []tablebus.Event {
	t.Helper()
	return leakConfig(t, games.Config{Game: game}, run, shoes)
}

func leakConfig(t *testing.T, cfg games.Config, run leakRun, shoes int) []tablebus.Event {
	t.Helper()
	tb := configTable(t, cfg, run.seed)
	tb.MisreadEvery, tb.StrayEvery, tb.BurnModeEvery = run.misread, run.stray, run.burnMode
	var evs []tablebus.Event
	seq := uint64(0)
	tb.Emit = func(e tablebus.Event) error {
		seq++
		e.V, e.Seq, e.Table, e.Source, e.Session = tablebus.SchemaVersion, seq, "T1", tablebus.SourceTable, 1
		evs = append(evs, e)
		return nil
	}
	if err := tb.RunShoes(shoes, shoes*20000); err != nil {
		t.Fatalf("%s seed %d: %v", cfg.Game, run.seed, err)
	}
	return evs
}

// checkSqueeze checks a squeeze table's feed: every card of a coup dealt face down (to its
// squeezer) is revealed, on its own reveal, before the coup's result, which then shows every
// card; while a card waits for its reveal the public guidance asks for the reveal only (a
// "card to player" would tell the squeezed total); and the public form of each squeezed card
// carries no identity.
func checkSqueeze(t *testing.T, evs []tablebus.Event) {
	t.Helper()
	waiting := map[int]card.Card{} // shoe position → squeezed card not yet revealed
	squeezed, reveals, coups, dealt, voided := 0, 0, 0, 0, 0
	for _, e := range evs {
		switch e.Type {
		case tablebus.RoundOpened:
			clear(waiting)
			dealt = 0
		case tablebus.RoundVoided: // a voided coup's cards are never shown
			voided += len(waiting)
			clear(waiting)
		case tablebus.CardDealt:
			dealt++
			if e.Face != nil && *e.Face == tablebus.FaceDown && e.Card != nil {
				waiting[e.Pos] = *e.Card
				squeezed++
				if p := e.Public(); p.Card != nil || !p.Hidden {
					t.Fatalf("public squeezed card (seq %d): %+v", e.Seq, p)
				}
			}
		case tablebus.Revealed:
			c, ok := waiting[e.Pos]
			if !ok || e.Card == nil || *e.Card != c {
				t.Fatalf("reveal (seq %d) of position %d: %v, squeezed there %v", e.Seq, e.Pos, e.Card, c)
			}
			if p := e.Public(); p.Card == nil || *p.Card != c {
				t.Fatalf("the public reveal (seq %d) does not show %s: %+v", e.Seq, c, p)
			}
			delete(waiting, e.Pos)
			reveals++
		case tablebus.Guide:
			// The four first cards are all dealt before any is squeezed.
			if len(waiting) > 0 && dealt >= 4 && e.State == "in-round" {
				p := e.Public()
				if p.Need == nil || p.Need.Kind != tablebus.NeedDecision || !slices.Equal(p.Need.Options, []string{"reveal"}) {
					t.Fatalf("public guidance (seq %d) while %d cards wait for their reveal: %+v", e.Seq, len(waiting), p.Need)
				}
			}
		case tablebus.RoundResult:
			coups++
			if len(waiting) > 0 || e.Unshown != 0 {
				t.Fatalf("result (seq %d) of round %d before %d reveals (unshown %d)", e.Seq, e.Round, len(waiting), e.Unshown)
			}
			pub := e.Public()
			for i, h := range e.Hands {
				if len(h.Down) > 0 || len(pub.Hands[i].Cards) != len(h.Cards) {
					t.Fatalf("result (seq %d): hand %s still face down", e.Seq, h.Name)
				}
			}
		}
	}
	if squeezed == 0 || reveals != squeezed-voided-len(waiting) || coups == 0 {
		t.Fatalf("%d coups, %d squeezed cards (%d in voided coups, %d in the last), %d reveals", coups, squeezed, voided, len(waiting), reveals)
	}
	t.Logf("squeeze: %d coups, %d cards squeezed, each revealed before its coup's result (%d in voided coups never shown)", coups, squeezed, voided)
}

type leakStats struct {
	shoes, scanned, looked, down, reveals, named int
	faultCards, manual, exchanges                int
}

func checkNoLeak(t *testing.T, evs []tablebus.Event) leakStats {
	t.Helper()
	var st leakStats
	var (
		down      card.Counts // dealt face down and not yet turned up, in this shoe
		roundDown card.Counts // the same, dealt in the round in progress
		pending   card.Counts // to be dealt face down later in the step (a card entered by hand)
		shoeID    string
	)
	stepStart := true
	for k, e := range evs {
		if e.Shoe != shoeID { // a new shoe: the cards come back
			shoeID, down, roundDown = e.Shoe, card.Counts{}, card.Counts{}
		}
		if e.Type == tablebus.RoundOpened {
			roundDown = card.Counts{}
		}
		if stepStart {
			// A step's events end with its guidance: a card dealt face down in the step is
			// secret from the step's first event (the fault.resolved of a manual entry).
			pending = card.Counts{}
			for _, x := range evs[k:] {
				if (x.Type == tablebus.CardDealt || x.Type == tablebus.Burn) && x.Card != nil && x.Face != nil && *x.Face == tablebus.FaceDown {
					pending.Add(*x.Card)
				}
				if x.Type == tablebus.Guide {
					break
				}
			}
		}
		stepStart = e.Type == tablebus.Guide
		// What this event makes secret or shows, from the secure event's structure.
		var named card.Counts // named by this event where only the secure feed may
		shows := card.None    // shown face up by this event
		faceUp := e.Face != nil && *e.Face == tablebus.FaceUp
		switch {
		case e.Card == nil:
		case (e.Type == tablebus.CardDealt || e.Type == tablebus.Burn) && !faceUp:
			pending.Remove(*e.Card)
			down.Add(*e.Card)
			roundDown.Add(*e.Card)
			st.down++
		case e.Type == tablebus.Revealed:
			down.Remove(*e.Card)
			roundDown.Remove(*e.Card)
			shows = *e.Card
		case faceUp:
			shows = *e.Card
		default:
			named.Add(*e.Card)
		}
		for _, l := range [][]card.Card{e.Cards, e.Missing, e.Extra} {
			for _, c := range l {
				named.Add(c)
			}
		}
		if e.Need != nil {
			for _, x := range e.Need.Exchanges {
				for _, c := range x {
					named.Add(c)
				}
			}
		}
		st.named += named.Total()
		switch {
		case e.Type == tablebus.Revealed:
			st.reveals++
		case e.Type == tablebus.Fault && (e.Card != nil || len(e.Cards)+len(e.Missing)+len(e.Extra) > 0):
			st.faultCards++
		case e.Type == tablebus.FaultResolved && e.Card != nil:
			st.manual++
		case e.Type == tablebus.Decision && e.Cards != nil:
			st.exchanges++
		}

		pub := e.Public()
		body, err := pub.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		in := card.CountOf(card.Named(string(body)))
		var secureIn card.Counts
		if e.Type == tablebus.RoundResult {
			sb, _ := e.Marshal()
			secureIn = card.CountOf(card.Named(string(sb)))
		}
		scanned := false
		for i := range 52 {
			c := card.FromIndex(i)
			if down.Of(c) == 0 && named.Of(c) == 0 && pending.Of(c) == 0 {
				continue
			}
			scanned = true
			st.looked++
			allowed := 0
			switch {
			case c == shows:
				allowed = 1
			case e.Type == tablebus.RoundResult && roundDown.Of(c) == 0 && named.Of(c) == 0:
				// A result lists the round's cards, all shown face up: it may name c as
				// often as the secure result does (an older face-down copy is not in it).
				allowed = secureIn.Of(c)
			}
			if in.Of(c) > allowed {
				t.Fatalf("public %s (seq %d) names %s %d time(s), which is secret (face down %d, later in the step %d, named by the event %d), may %d:\n public: %s",
					e.Type, e.Seq, c, in.Of(c), down.Of(c), pending.Of(c), named.Of(c), allowed, body)
			}
		}
		if scanned {
			st.scanned++
		}
		if e.Type == tablebus.ShoeEnded {
			st.shoes++
		}

		// The public feed is a function of the secure payload.
		sec, err := e.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := tablebus.Decode(sec)
		if err != nil {
			t.Fatalf("secure %s does not decode: %v\n%s", e.Type, err, sec)
		}
		again, _ := back.Public().Marshal()
		if !bytes.Equal(again, body) {
			t.Fatalf("the public form of the decoded secure %s differs:\n from the event:   %s\n from the payload: %s", e.Type, body, again)
		}
	}
	return st
}

// TestFreeTextNamesNoCard: the words of every event of every game, on the secure feed too,
// name no card (a problem, a reason, the guidance, a result, a decision): a card's identity
// travels only in a card field, so no rewording can ever carry one to the public feed.
func TestFreeTextNamesNoCard(t *testing.T) {
	for _, run := range leakRuns {
		for _, game := range catalog.Games() {
			t.Run(run.name+"/"+game, func(t *testing.T) {
				t.Parallel()
				n := 2
				if ent, _ := catalog.Lookup(game); ent.Family == "poker" {
					n = 20
				}
				texts := 0
				for _, e := range leakGame(t, game, run, n) {
					words := append([]string{e.Problem, e.Reason, e.Result, e.Choice, e.State, e.Code}, e.Say...)
					for _, m := range e.Msgs { // the guidance in every language
						for _, lang := range games.Languages() {
							words = append(words, games.Text(lang, m.Game()))
						}
					}
					for _, w := range words {
						if w == "" {
							continue
						}
						texts++
						if cs := card.Named(w); len(cs) > 0 {
							t.Fatalf("%s (seq %d) names %v in its words: %q", e.Type, e.Seq, cs, w)
						}
					}
				}
				if texts == 0 {
					t.Fatal("no words checked")
				}
			})
		}
	}
}

// TestGuidanceMessages: every message of the guidance that whole simulated shoes of every game
// produce (clean, with misreads, strays and burns in burn mode) is in every language's
// catalog with exactly the arguments it is given, and its say is its English words.
func TestGuidanceMessages(t *testing.T) {
	used := map[string]bool{}
	var check func(where string, m games.Msg)
	check = func(where string, m games.Msg) {
		used[m.Code] = true
		var args []string
		for k, a := range m.Args {
			args = append(args, k)
			if a.Kind == games.ArgTerm {
				check(where+" "+m.Code+"."+k, *a.Term)
			}
		}
		slices.Sort(args)
		for _, lang := range games.Languages() {
			c, err := games.Catalog(lang)
			if err != nil {
				t.Fatal(err)
			}
			tmpl, ok := c[m.Code]
			if !ok {
				t.Fatalf("%s: %s is not in the %s catalog", where, m.Code, lang)
			}
			ph, _ := games.Placeholders(tmpl)
			if !slices.Equal(ph, args) {
				t.Fatalf("%s: %s %#v: the %s template %q takes %v", where, m.Code, m, lang, tmpl, ph)
			}
		}
	}
	for _, run := range leakRuns {
		for _, game := range catalog.Games() {
			for _, e := range leakGame(t, game, run, 2) {
				if e.Type != tablebus.Guide {
					continue
				}
				if len(e.Msgs) != len(e.Say) {
					t.Fatalf("%s %s seq %d: %d messages, %d lines said", run.name, game, e.Seq, len(e.Msgs), len(e.Say))
				}
				for i, m := range e.Msgs {
					g := m.Game()
					check(fmt.Sprint(run.name, " ", game, " seq ", e.Seq), g)
					if s := g.String(); s != e.Say[i] {
						t.Fatalf("%s %s seq %d: says %q, its message %q", run.name, game, e.Seq, e.Say[i], s)
					}
				}
			}
		}
	}
	t.Logf("%d message codes seen", len(used))
}
