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

// TestBigRoad follows a shoe with leading ties, a dragon tail of eight bankers, a player streak
// that turns right above the tail, and a banker streak that turns right above that.
func TestBigRoad(t *testing.T) {
	var b scoreboard.Board
	for _, c := range coups("TTBTBBBBBBBPPPPPPBBBBB") {
		if err := b.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	type pos struct{ col, row, streak, length, coup, ties int }
	want := []pos{
		{0, 0, 0, 1, 3, 3}, {0, 1, 0, 2, 5, 0}, {0, 2, 0, 3, 6, 0}, {0, 3, 0, 4, 7, 0}, {0, 4, 0, 5, 8, 0}, {0, 5, 0, 6, 9, 0},
		{1, 5, 0, 7, 10, 0}, {2, 5, 0, 8, 11, 0},
		{1, 0, 1, 1, 12, 0}, {1, 1, 1, 2, 13, 0}, {1, 2, 1, 3, 14, 0}, {1, 3, 1, 4, 15, 0}, {1, 4, 1, 5, 16, 0}, {2, 4, 1, 6, 17, 0},
		{2, 0, 2, 1, 18, 0}, {2, 1, 2, 2, 19, 0}, {2, 2, 2, 3, 20, 0}, {2, 3, 2, 4, 21, 0}, {3, 3, 2, 5, 22, 0},
	}
	road := b.BigRoad()
	if len(road) != len(want) {
		t.Fatalf("%d cells, want %d", len(road), len(want))
	}
	for i, c := range road {
		if got := (pos{c.Col, c.Row, c.Streak, c.Length, c.Coup, c.Ties}); got != want[i] {
			t.Errorf("cell %d: %+v, want %+v", i, got, want[i])
		}
	}
	beads := b.BeadPlate()
	if len(beads) != 22 || beads[0].Col != 0 || beads[5].Row != 5 || beads[6].Col != 1 || beads[6].Row != 0 || beads[21].Col != 3 || beads[21].Row != 3 {
		t.Errorf("bead plate %+v", beads)
	}
	if c := b.Counts(); c != (scoreboard.Counts{Banker: 13, Player: 6, Tie: 3}) {
		t.Errorf("counts %+v", c)
	}
	b.Reset()
	if b.Coups() != 0 || len(b.BigRoad()) != 0 {
		t.Error("reset left coups")
	}
}

// TestStaircase builds tails on rows 5, 4, 3, 2, 1 and 0: each streak turns right above the
// last one's tail, and the streak after the row-0 tail starts in the first free column.
func TestStaircase(t *testing.T) {
	var b scoreboard.Board
	seq := strings.Repeat("B", 12) + strings.Repeat("P", 11) + strings.Repeat("B", 10) +
		strings.Repeat("P", 9) + strings.Repeat("B", 8) + strings.Repeat("P", 7) + "B"
	for _, c := range coups(seq) {
		if err := b.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	road := b.BigRoad()
	checkRoad(t, road)
	// The row-0 tail of the sixth streak runs from column 5 to 11.
	if c := road[len(road)-2]; c.Col != 11 || c.Row != 0 || c.Streak != 5 {
		t.Errorf("end of the row-0 tail %+v", c)
	}
	if c := road[len(road)-1]; c.Col != 12 || c.Row != 0 || c.Streak != 6 {
		t.Errorf("streak after the row-0 tail %+v", c)
	}
}

// checkRoad checks the big road's invariants: every cell on the board and alone in its place,
// each streak going down or right one cell at a time, each new streak at the top of a later
// column.
func checkRoad(t *testing.T, road []scoreboard.Cell) {
	t.Helper()
	seen := map[[2]int]bool{}
	start := -1
	for i, c := range road {
		if c.Row < 0 || c.Row >= scoreboard.Rows || c.Col < 0 || seen[[2]int{c.Col, c.Row}] {
			t.Fatalf("cell %d %+v off the board or on another", i, c)
		}
		seen[[2]int{c.Col, c.Row}] = true
		if i == 0 || c.Streak != road[i-1].Streak {
			if c.Row != 0 || c.Col <= start || c.Length != 1 {
				t.Fatalf("cell %d %+v does not start a streak at the top of a later column", i, c)
			}
			start = c.Col
			continue
		}
		p := road[i-1]
		down := c.Col == p.Col && c.Row == p.Row+1
		right := c.Col == p.Col+1 && c.Row == p.Row
		if !down && !right || c.Result != p.Result || c.Length != p.Length+1 {
			t.Fatalf("cell %d %+v does not follow %+v", i, c, p)
		}
	}
}

// FuzzBigRoad feeds arbitrary results and checks the big road's invariants and the bead plate.
func FuzzBigRoad(f *testing.F) {
	f.Add([]byte("TTBTBBBBBBBPPPPPPBBBBB"))
	f.Add([]byte("BBBBBBBBBBBBPPPPPPPPPPPBBBBBBBBBB"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var b scoreboard.Board
		n := 0
		for _, d := range data {
			c := coups(string("BPT"[d%3]))[0]
			if err := b.Add(c); err != nil {
				t.Fatal(err)
			}
			n++
		}
		checkRoad(t, b.BigRoad())
		beads := b.BeadPlate()
		if len(beads) != n || b.Coups() != n {
			t.Fatalf("%d beads for %d coups", len(beads), n)
		}
		ties := 0
		for _, c := range b.BigRoad() {
			ties += c.Ties
		}
		ties += b.View().LeadingTies
		if ties != b.Counts().Tie || len(b.BigRoad()) != n-ties {
			t.Fatalf("ties %d, counts %+v, %d cells", ties, b.Counts(), len(b.BigRoad()))
		}
	})
}

func TestGoldenJSON(t *testing.T) {
	var b scoreboard.Board
	empty, _ := json.Marshal(&b)
	if string(empty) != `{"rows":6,"coups":0,"counts":{"banker":0,"player":0,"tie":0,"player_pair":0,"banker_pair":0,"natural":0},"bead_plate":[],"big_road":[]}` {
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
