package scoreboard_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/baccarat"
	"github.com/sabot-tables/sabot/games/baccarat/scoreboard"
	"github.com/sabot-tables/sabot/shoe/card"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func coups(s string) []scoreboard.Coup {
	var out []scoreboard.Coup
	for _, r := range s {
		switch r {
		case 'B':
			out = append(out, scoreboard.Coup{Result: "banker", BankerTotal: 7, PlayerTotal: 5})
		case 'P':
			out = append(out, scoreboard.Coup{Result: "player", BankerTotal: 5, PlayerTotal: 7})
		case 'T':
			out = append(out, scoreboard.Coup{Result: "tie", BankerTotal: 6, PlayerTotal: 6})
		}
	}
	return out
}

func TestGoldenJSON(t *testing.T) {
	var b scoreboard.Board
	empty, _ := json.Marshal(&b)
	if !strings.HasPrefix(string(empty), `{"rows":6,"coups":0,"counts":{"banker":0,"player":0,"tie":0,"player_pair":0,"banker_pair":0,"natural":0},"bead_plate":[],"big_road":[],"big_eye_boy":[],`) {
		t.Errorf("empty board %s", empty)
	}
	for _, c := range coups("TBBPT") {
		if err := b.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Add(scoreboard.Coup{Result: "player", PlayerTotal: 9, BankerTotal: 3, PlayerPair: true, Natural: true}); err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(&b, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const golden = "testdata/board.golden.json"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("board JSON differs from %s:\n%s", golden, got)
	}
}

func TestFromOutcome(t *testing.T) {
	e, err := baccarat.New(games.Config{Game: "punto-banco"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Begin(nil); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"4s", "4h", "5d", "Kc"} { // player 9 natural, banker 4
		if _, err := e.Card(card.MustParse(s)); err != nil {
			t.Fatal(err)
		}
	}
	o, err := e.Outcome()
	if err != nil {
		t.Fatal(err)
	}
	c, err := scoreboard.FromOutcome(o)
	if err != nil {
		t.Fatal(err)
	}
	if want := (scoreboard.Coup{Result: "player", PlayerTotal: 9, BankerTotal: 4, Natural: true}); !reflect.DeepEqual(c, want) {
		t.Errorf("coup %+v", c)
	}
	for _, bad := range []*games.Outcome{
		nil,
		{Game: "trente-et-quarante", Result: "rouge", Hands: []games.Hand{{Name: "noir", Cards: []card.Card{1, 2}}, {Name: "rouge", Cards: []card.Card{1, 2}}}},
		{Game: "punto-banco", Result: "dragon", Hands: o.Hands},
		{Game: "punto-banco", Result: "tie", Hands: []games.Hand{{Name: "player", Cards: []card.Card{1}}}},
	} {
		if _, err := scoreboard.FromOutcome(bad); !errors.Is(err, scoreboard.ErrCoup) {
			t.Errorf("%+v: %v", bad, err)
		}
	}
	var b scoreboard.Board
	if err := b.Add(scoreboard.Coup{Result: "banker", BankerTotal: 12}); !errors.Is(err, scoreboard.ErrCoup) {
		t.Errorf("total 12: %v", err)
	}
}
