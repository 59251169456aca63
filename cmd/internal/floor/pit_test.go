package floor

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/catalog"
	"github.com/sabot-tables/sabot/shoe"
	"github.com/sabot-tables/sabot/shoe/shoetest"
	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
)

// dealDay deals shoes of a game into a real journal, a minute between inputs (so that the
// rounds span hours), a Caribbean stud table with its progressive answered as a controller
// would, strays now and then (held rounds the dealer voids). It returns the events as the feed
// carries them.
func dealDay(t *testing.T, game, table string, seed uint64, shoes int, j *journal.Journal) []tablebus.Event {
	t.Helper()
	ent, _ := catalog.Lookup(game)
	fam, _ := shoe.ParseFamily(ent.Family)
	proc, _ := shoe.ProcedureFor(fam, 0)
	cfg := games.Config{Game: game}
	pool := ""
	if game == "caribbean-stud" {
		cfg.Options, pool = map[string]string{"progressive": "controller"}, "arica"
	}
	eng, err := catalog.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := shoe.NewMachine(shoe.Config{Proc: proc, Engine: eng, Table: table, Manage: catalog.Manage, Progressive: pool})
	if err != nil {
		t.Fatal(err)
	}
	d := shoetest.NewDealer(game, proc, seed)
	d.ID = "dealer.D" + strconv.FormatUint(seed, 10)
	tb := shoetest.NewTable(m, d, time.Date(2026, 11, 29, 21, 30, 0, 0, time.UTC))
	tb.Tick, tb.StrayEvery, tb.PoolValue = 20*time.Second, 97, 3_000_000
	var out []tablebus.Event
	var seq uint64
	tb.Journal = func(input []byte, evs []tablebus.Event) error {
		stamped := make([]tablebus.Event, len(evs))
		for i, e := range evs {
			seq++
			e.V, e.Seq, e.Table, e.Source, e.Session = tablebus.SchemaVersion, seq, table, tablebus.SourceTable, 1
			stamped[i] = e
		}
		out = append(out, stamped...)
		_, err := j.AppendStep(input, stamped)
		return err
	}
	if pool != "" {
		if err := tb.OpenProgressive(); err != nil {
			t.Fatal(err)
		}
	}
	if err := tb.RunShoes(shoes, 1_000_000); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPitReconciles: the day's table report the floor view computes from the tables' feeds is,
// byte for byte, the one computed from their journals (sabot report), and its day totals are,
// to the cent, what a plain sum over the journals' round.settled events gives.
func TestPitReconciles(t *testing.T) {
	ctx := context.Background()
	f := New(Options{})
	journals := map[string]*journal.Journal{}
	for i, g := range []struct{ game, table string }{{"caribbean-stud", "T1"}, {"punto-banco", "T2"}, {"blackjack", "T3"}} {
		j, err := journal.Open(filepath.Join(t.TempDir(), g.table+".db"), g.table)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		journals[g.table] = j
		shoes := 3
		if g.game == "caribbean-stud" {
			shoes = 120 // one round a shoe
		}
		for _, e := range dealDay(t, g.game, g.table, uint64(i+1), shoes, j) {
			e := e
			f.Apply(Delivery{Event: &e})
			if e.Type == tablebus.RoundSettled && i == 0 {
				f.Apply(Delivery{Event: &e}) // the bus's duplicates count once
			}
		}
	}
	day := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	var live bytes.Buffer
	if err := WriteCSV(&live, f.Pit().Rows(day)); err != nil {
		t.Fatal(err)
	}
	fromJournals := NewPit()
	for _, j := range journals {
		if err := fromJournals.ApplyJournal(ctx, j); err != nil {
			t.Fatal(err)
		}
	}
	var jr bytes.Buffer
	WriteCSV(&jr, fromJournals.Rows(day))
	if live.String() != jr.String() {
		t.Fatalf("the feed's report\n%s\nthe journals'\n%s", live.String(), jr.String())
	}
	// The plain sum over the journals, day by table.
	type sum struct {
		rounds, voided  int
		drop, win, prog int64
	}
	want := map[string]*sum{}
	for table, j := range journals {
		s := &sum{}
		want[table] = s
		j.Range(ctx, 1, j.NextSeq(), func(r journal.Record) error {
			var e tablebus.Event
			json.Unmarshal(r.Secure, &e)
			if !sameDay(e.TS, day) {
				return nil
			}
			switch e.Type {
			case tablebus.RoundVoided:
				s.voided++
			case tablebus.RoundSettled:
				s.rounds++
				for _, st := range e.Settle {
					if st.Spot == "progressive" {
						if st.Net != 0 {
							s.prog += st.Amount
						}
						continue
					}
					s.drop += st.Amount
					s.win -= st.Net
				}
			}
			return nil
		})
	}
	recs, err := csv.NewReader(strings.NewReader(live.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	var all sum
	for _, rec := range recs[1:] {
		if rec[1] != "day" {
			continue
		}
		s := want[rec[0]]
		if rec[0] == "ALL" {
			s = &all
		} else {
			all.rounds += s.rounds
			all.voided += s.voided
			all.drop += s.drop
			all.win += s.win
			all.prog += s.prog
		}
		got := strings.Join([]string{rec[2], rec[3], rec[4], rec[5], rec[8]}, " ")
		w := strings.Join([]string{strconv.Itoa(s.rounds), strconv.Itoa(s.voided), cents(s.drop), cents(s.win), cents(s.prog)}, " ")
		if got != w {
			t.Errorf("%s: the report says rounds, voided, drop, win, progressive %s; the journals %s", rec[0], got, w)
		}
		checked++
	}
	if checked != 4 || all.rounds < 100 || all.voided == 0 || all.prog == 0 {
		t.Errorf("checked %d day lines; %+v", checked, all)
	}
	// The hours: a day of the simulation spans several; the dealers' time is there.
	if !strings.Contains(live.String(), "T1,2026-11-29T22Z") || !strings.Contains(live.String(), "dealer.D1=") {
		t.Errorf("report:\n%s", live.String())
	}

	// The floor view serves the same report and the figures as JSON.
	art, err := LoadArt(DefaultCardArt)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(ServerOptions{Floor: f, Art: art})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/pit/2026-11-29.csv", live.String()},
		{"/pit/2026-11-29", "<h1>Table report, 2026-11-29 (UTC)</h1>"},
		{"/api/pit?day=2026-11-29", `"table":"T1","hour":"2026-11-29T21:00:00Z"`},
		{"/pit/yesterday", "want /pit/YYYY-MM-DD"},
	} {
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "http://127.0.0.1"+tc.path, nil))
		if !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%s: %d %.300s", tc.path, rec.Code, rec.Body.String())
		}
	}
}

// TestPitHold: the hold in basis points, in integers, and its words.
func TestPitHold(t *testing.T) {
	for _, tc := range []struct {
		win, drop int64
		want      string
	}{{1234, 10000, "12.34"}, {-500, 2000, "-25.00"}, {1, 3, "33.33"}, {5, 0, "0.00"}} {
		r := PitRow{Win: tc.win, Drop: tc.drop, HoldBP: holdBP(tc.win, tc.drop)}
		if r.Hold() != tc.want {
			t.Errorf("win %d drop %d: hold %s, want %s", tc.win, tc.drop, r.Hold(), tc.want)
		}
	}
}
