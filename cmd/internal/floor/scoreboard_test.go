package floor

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// TestScoreboardIsPublic feeds a scoreboard the secure feed of squeeze shoes and requires, after
// every event, that the coup it shows has every card that is face down or squeezed and not yet
// revealed as an unknown card and every other card as it is; that the board's bytes name no
// card more often than the coup shows it (card.Named reads every notation: a burned card never
// shown stays secret); and that it carries no word of the dealer's guidance. At the end its
// roads, results and count are the shoe's.
func TestScoreboardIsPublic(t *testing.T) {
	cfg := games.Config{Game: "punto-banco", Options: map[string]string{"squeeze": "on", "paytable": "ez"}}
	evs := simulateShoes(t, cfg, 5, 1, 0)
	limits := []games.Limit{{Spot: "player", Min: 2500, Max: 2_000_000}, {Spot: "banker", Min: 2500, Max: 2_000_000}, {Spot: "dragon-7", Min: 500, Max: 10000}}
	b, err := NewScoreboard(ScoreboardOptions{Table: "T1", Lang: "zh-Hans", Config: TableConfig{PayTable: "ez", Limits: limits}})
	if err != nil {
		t.Fatal(err)
	}
	type dealt struct {
		c      card.Card
		secret bool
	}
	hands := map[string][]dealt{}
	where := map[int][2]int{} // shoe position → hand (0 player, 1 banker) and index
	names := [2]string{"player", "banker"}
	results, checked, hidden := 0, 0, 0
	for _, e := range evs {
		switch e.Type {
		case tablebus.RoundOpened:
			hands = map[string][]dealt{}
			clear(where)
		case tablebus.CardDealt:
			h := 0
			if e.To.Name == "banker" {
				h = 1
			}
			down := *e.Face == tablebus.FaceDown
			where[e.Pos] = [2]int{h, len(hands[names[h]])}
			hands[names[h]] = append(hands[names[h]], dealt{*e.Card, down})
		case tablebus.Revealed:
			w := where[e.Pos]
			hands[names[w[0]]][w[1]].secret = false
		case tablebus.RoundResult:
			results++
		}
		b.Apply(e)
		v := b.Board()
		if v.Coup == nil || v.Coup.State != "dealing" {
			continue
		}
		var shown card.Counts
		for i, h := range []BoardHand{v.Coup.Player, v.Coup.Banker} {
			want := hands[names[i]]
			if len(h.Cards) != len(want) {
				t.Fatalf("after %s (seq %d): the board's %s has %v, dealt %v", e.Type, e.Seq, names[i], h.Cards, want)
			}
			for j, d := range want {
				w := d.c.String()
				if d.secret {
					w = ""
					hidden++
				} else {
					shown.Add(d.c)
				}
				if h.Cards[j] != w {
					t.Fatalf("after %s (seq %d): the board's %s card %d is %q, want %q", e.Type, e.Seq, names[i], j, h.Cards[j], w)
				}
			}
		}
		body, _ := json.Marshal(v)
		in := card.CountOf(card.Named(string(body)))
		for i := range 52 {
			if c := card.FromIndex(i); in.Of(c) > shown.Of(c) {
				t.Fatalf("after %s (seq %d) the board names %s %d times, shown %d:\n%s", e.Type, e.Seq, c, in.Of(c), shown.Of(c), body)
			}
		}
		if strings.Contains(string(body), `"say"`) || strings.Contains(string(body), "squeezes") {
			t.Fatalf("the board carries the guidance: %s", body)
		}
		checked++
	}
	v := b.Board()
	if v.Roads.Coups != results || v.Shoe.Coups != results || len(v.Last) != lastCoups || v.Last[lastCoups-1] != v.Roads.BeadPlate[results-1] {
		t.Errorf("after %d coups: roads %d, shoe %+v, last %d", results, v.Roads.Coups, v.Shoe, len(v.Last))
	}
	if v.PayTable != "ez" || v.Lang != "zh-Hans" || len(v.Limits) != 3 || v.Shoe.Decks != 8 || v.Shoe.Total != 416 || !v.Shoe.Ended {
		t.Errorf("board %+v", v)
	}
	if hidden == 0 {
		t.Fatal("no squeezed card seen on the board")
	}
	t.Logf("%d events, %d boards checked during a coup (%d squeezed cards shown unknown), %d coups", len(evs), checked, hidden, results)
}

// TestScoreboardServer serves the page, its scripts and the board, and nothing else.
func TestScoreboardServer(t *testing.T) {
	b, err := NewScoreboard(ScoreboardOptions{Table: "T1"})
	if err != nil {
		t.Fatal(err)
	}
	b.Apply(tablebus.Event{V: 1, Seq: 1, Type: tablebus.ShoeLoaded, Table: "T1", Source: "table", Game: "punto-banco", Decks: 8, Count: 416, Shoe: "T1-000001"})
	b.Apply(tablebus.Event{V: 1, Seq: 1, Type: tablebus.ShoeLoaded, Table: "T9", Source: "table", Game: "blackjack", Decks: 6, Count: 312, Shoe: "T9-000001"})
	srv := httptest.NewServer(b)
	defer srv.Close()
	get := func(path string) (int, string, string) {
		t.Helper()
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Header.Get("Content-Type"), string(body)
	}
	for _, tc := range []struct {
		path string
		code int
		has  string
	}{
		{"/", 200, `<script src="/static/scoreboard.js" defer>`},
		{"/static/scoreboard.js", 200, "const WORDS"},
		{"/static/roads.js", 200, "const SabotRoads"},
		{"/static/scoreboard.css", 200, ".board"},
		{"/static/app.js", 404, ""},
		{"/api/floor", 404, ""},
		{"/api/board", 200, `"table":"T1","game":"punto-banco","paytable":"standard","lang":"en","shoe":{"id":"T1-000001","decks":8,"total":416,"left":416,"coups":0}`},
	} {
		code, _, body := get(tc.path)
		if code != tc.code || !strings.Contains(body, tc.has) {
			t.Errorf("GET %s: %d %.200q", tc.path, code, body)
		}
	}
	res, err := http.Post(srv.URL+"/api/board", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", res.StatusCode)
	}
	// The stream sends the board at once.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/api/stream", nil)
	res, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() || sc.Text() != "event: board" || !sc.Scan() || !strings.HasPrefix(sc.Text(), `data: {"table":"T1"`) {
		t.Errorf("stream: %q", sc.Text())
	}
	for _, o := range []ScoreboardOptions{{Table: "T1", Lang: "fr"}, {Table: "bad table"}, {Table: "T1", Config: TableConfig{PayTable: "ez2"}}} {
		if _, err := NewScoreboard(o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
