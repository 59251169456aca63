package roads_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games/baccarat/roads"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// coups reads a shoe written one letter a coup: B banker, P player, T tie; a lower-case b, p
// or t is the same result with a player pair, and a "*" after a letter makes that coup's win
// a natural.
func coups(t testing.TB, s string) []roads.Coup {
	t.Helper()
	var out []roads.Coup
	for _, ch := range s {
		var c roads.Coup
		switch ch {
		case 'B', 'b':
			c = roads.Coup{Result: roads.Banker, BankerTotal: 7, PlayerTotal: 5}
		case 'P', 'p':
			c = roads.Coup{Result: roads.Player, BankerTotal: 5, PlayerTotal: 7}
		case 'T', 't':
			c = roads.Coup{Result: roads.Tie, BankerTotal: 6, PlayerTotal: 6}
		case '*':
			out[len(out)-1].Natural = true
			continue
		case ' ', '|':
			continue
		default:
			t.Fatalf("coups: %q", ch)
		}
		c.PlayerPair = ch >= 'a'
		out = append(out, c)
	}
	return out
}

func build(t testing.TB, s string) *roads.Roads {
	t.Helper()
	var r roads.Roads
	for _, c := range coups(t, s) {
		if err := r.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	return &r
}

// colors writes a derived road as letters, R red and B blue, in the order its marks were made.
func colors(ms []roads.Mark) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteByte(strings.ToUpper(m.Color[:1])[0])
	}
	return b.String()
}

type pos struct{ col, row int }

func cells(r *roads.Roads) []pos {
	var out []pos
	for _, c := range r.BigRoad() {
		out = append(out, pos{c.Col, c.Row})
	}
	return out
}

func marks(ms []roads.Mark) []pos {
	var out []pos
	for _, m := range ms {
		out = append(out, pos{m.Col, m.Row})
	}
	return out
}

func samePos(t *testing.T, what string, got, want []pos) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d marks %v, want %d %v", what, len(got), got, len(want), want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("%s: mark %d at %v, want %v", what, i, got[i], want[i])
		}
	}
}

// TestHandChecked compares the roads with shoes worked out by hand on paper, column by column
// with the rule of the package doc. Each case gives the logical big road (the streaks'
// lengths), the three derived roads as colours in the order they are marked, and the
// prediction after the last coup (the marks a banker win, then a player win, would add to big
// eye boy, small road and cockroach pig, "-" for none).
func TestHandChecked(t *testing.T) {
	for _, tc := range []struct {
		name    string
		shoe    string
		columns []int
		beb     string
		small   string
		roach   string
		banker  string // prediction if banker wins next
		player  string
	}{
		{
			// Columns 2, 1, 3, 2, 8 (a dragon), 1, 1, 2. By hand, big eye boy: column 2's top
			// compares 1 with 2 (blue), its row 1 finds column 1 ending there (blue), its row 2
			// finds it ended higher (red); column 3: 3≠1 blue, row 1 inside column 2 red;
			// column 4: 2≠3 blue, then red, blue (column 3 ends at row 1), red for rows 3–7;
			// columns 5 and 6 start blue (1≠2 compares 8 and 2, then 1 and 8); column 7: 1=1
			// red, then blue (column 6 ends at row 0).
			name: "dragon of eight", shoe: "BB P BBB PP BBBBBBBB P B PP",
			columns: []int{2, 1, 3, 2, 8, 1, 1, 2},
			beb:     "BBRBRBRBRRRRRBBRB",
			small:   "RBBBBRRBRRRRBBBB",
			roach:   "RRBRRRRRRBBBR",
			// A banker win starts column 8 (column 7 has 2: beside 1, 1 and 8, all blue);
			// a player win makes row 2 of column 7 (columns 6, 5, 4 end above it, above it,
			// below it: red, red, red). The two always differ.
			banker: "BBB", player: "RRR",
		},
		{
			// A chop: every column one mark. Each top compares two columns of one: red.
			name: "chop", shoe: "BPBPBPBPBP",
			columns: []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1},
			beb:     "RRRRRRRR", small: "RRRRRRR", roach: "RRRRRR",
			banker: "RRR", player: "BBB",
		},
		{
			// Ties at the start of the shoe and in the middle change no derived road.
			name: "ties at the start", shoe: "TTBTBBBBBBBPPPPPPBBBBB",
			columns: []int{8, 6, 5},
			// Column 1 rows 1–5 lie inside column 0's eight: red ×5; column 2 starts 6≠8
			// blue, then rows 1–4 inside column 1: red ×4. Small road: column 2 rows 1–4
			// inside column 0: red ×4. The cockroach pig needs a fourth column.
			beb: "RRRRRBRRRR", small: "RRRR", roach: "",
			banker: "RR-", player: "BB-",
		},
		{
			name: "only ties", shoe: "TTT", columns: nil, banker: "---", player: "---",
		},
		{
			// Big eye boy starts at column 1, row 1 when column 1 has two marks ...
			name: "big eye boy at column 1 row 1", shoe: "B PP", columns: []int{1, 2},
			beb: "B", banker: "B--", player: "R--",
		},
		{
			// ... and at column 2, row 0 when it has one.
			name: "big eye boy at column 2 row 0", shoe: "BB P B", columns: []int{2, 1, 1},
			beb: "B", banker: "BR-", player: "RB-",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := build(t, tc.shoe)
			if got := r.Columns(); !equalInts(got, tc.columns) {
				t.Errorf("logical big road %v, want %v", got, tc.columns)
			}
			for _, d := range []struct {
				name string
				k    int
				want string
			}{{"big eye boy", roads.BigEyeBoy, tc.beb}, {"small road", roads.SmallRoad, tc.small}, {"cockroach pig", roads.CockroachPig, tc.roach}} {
				if got := colors(r.Derived(d.k)); got != d.want {
					t.Errorf("%s %s, want %s", d.name, got, d.want)
				}
			}
			p := r.Predict()
			if got := predicted(p.Banker); got != tc.banker {
				t.Errorf("prediction for banker %s, want %s", got, tc.banker)
			}
			if got := predicted(p.Player); got != tc.player {
				t.Errorf("prediction for player %s, want %s", got, tc.player)
			}
		})
	}
}

func predicted(n roads.Next) string {
	var b strings.Builder
	for _, c := range []string{n.BigEyeBoy, n.SmallRoad, n.CockroachPig} {
		if c == "" {
			b.WriteByte('-')
		} else {
			b.WriteByte(strings.ToUpper(c[:1])[0])
		}
	}
	return b.String()
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestDragonTail places the dragon of the first hand-checked shoe: the eight bankers go down
// column 4 and turn right along row 5 into columns 5 and 6, yet the player after them starts
// at the top of column 5 (the column after the streak's first), and the derived roads count
// the dragon as one column of eight (they would differ if they read the drawn columns).
func TestDragonTail(t *testing.T) {
	r := build(t, "BB P BBB PP BBBBBBBB P B PP")
	samePos(t, "big road", cells(r), []pos{
		{0, 0}, {0, 1}, {1, 0}, {2, 0}, {2, 1}, {2, 2}, {3, 0}, {3, 1},
		{4, 0}, {4, 1}, {4, 2}, {4, 3}, {4, 4}, {4, 5}, {5, 5}, {6, 5},
		{5, 0}, {6, 0}, {7, 0}, {7, 1},
	})
	// Big eye boy BB R B R B R B RRRRR BB R B: runs of 2, 1, 1, 1, 1, 1, 1, 5, 2, 1, 1.
	samePos(t, "big eye boy", marks(r.Derived(roads.BigEyeBoy)), []pos{
		{0, 0}, {0, 1}, {1, 0}, {2, 0}, {3, 0}, {4, 0}, {5, 0}, {6, 0},
		{7, 0}, {7, 1}, {7, 2}, {7, 3}, {7, 4}, {8, 0}, {8, 1}, {9, 0}, {10, 0},
	})
	// The cockroach pig RR B RRRRRR BBB R: its run of six reds fills column 2 to row 5 exactly.
	samePos(t, "cockroach pig", marks(r.Derived(roads.CockroachPig)), []pos{
		{0, 0}, {0, 1}, {1, 0}, {2, 0}, {2, 1}, {2, 2}, {2, 3}, {2, 4}, {2, 5}, {3, 0}, {3, 1}, {3, 2}, {4, 0},
	})
	// A chop of ten columns gives big eye boy eight reds: a tail of its own on row 5.
	r = build(t, "BPBPBPBPBP")
	samePos(t, "chop's big eye boy", marks(r.Derived(roads.BigEyeBoy)), []pos{
		{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 4}, {0, 5}, {1, 5}, {2, 5},
	})
	d := r.Derived(roads.BigEyeBoy)
	if last := d[len(d)-1]; last.Streak != 0 || last.Length != 8 || last.Cell != 9 || last.Coup != 10 {
		t.Errorf("last mark of the chop's big eye boy %+v", last)
	}
}

// TestBigRoad follows a shoe with leading ties, a dragon tail of eight bankers, a player streak
// that turns right above the tail, and a banker streak that turns right above that.
func TestBigRoad(t *testing.T) {
	r := build(t, "TTBTBBBBBBBPPPPPPBBBBB")
	type cell struct{ col, row, streak, length, coup, ties int }
	want := []cell{
		{0, 0, 0, 1, 3, 3}, {0, 1, 0, 2, 5, 0}, {0, 2, 0, 3, 6, 0}, {0, 3, 0, 4, 7, 0}, {0, 4, 0, 5, 8, 0}, {0, 5, 0, 6, 9, 0},
		{1, 5, 0, 7, 10, 0}, {2, 5, 0, 8, 11, 0},
		{1, 0, 1, 1, 12, 0}, {1, 1, 1, 2, 13, 0}, {1, 2, 1, 3, 14, 0}, {1, 3, 1, 4, 15, 0}, {1, 4, 1, 5, 16, 0}, {2, 4, 1, 6, 17, 0},
		{2, 0, 2, 1, 18, 0}, {2, 1, 2, 2, 19, 0}, {2, 2, 2, 3, 20, 0}, {2, 3, 2, 4, 21, 0}, {3, 3, 2, 5, 22, 0},
	}
	road := r.BigRoad()
	if len(road) != len(want) {
		t.Fatalf("%d cells, want %d", len(road), len(want))
	}
	for i, c := range road {
		if got := (cell{c.Col, c.Row, c.Streak, c.Length, c.Coup, c.Ties}); got != want[i] {
			t.Errorf("cell %d: %+v, want %+v", i, got, want[i])
		}
	}
	beads := r.BeadPlate()
	if len(beads) != 22 || beads[0].Col != 0 || beads[5].Row != 5 || beads[6].Col != 1 || beads[6].Row != 0 || beads[21].Col != 3 || beads[21].Row != 3 {
		t.Errorf("bead plate %+v", beads)
	}
	if c := r.Counts(); c != (roads.Counts{Banker: 13, Player: 6, Tie: 3}) {
		t.Errorf("counts %+v", c)
	}
	r.Reset()
	if r.Coups() != 0 || len(r.BigRoad()) != 0 || len(r.Derived(roads.BigEyeBoy)) != 0 {
		t.Error("reset left coups")
	}
}

// TestTiesAndPairs: ties before the first win wait on no mark, then go on the first win with
// their pairs; a tie's pair is marked where the tie is; a natural is the win's own.
func TestTiesAndPairs(t *testing.T) {
	r := build(t, "tT")
	if len(r.BigRoad()) != 0 || r.LeadingTies() != 2 || r.View().LeadingTies != 2 {
		t.Fatalf("two ties: %+v, leading %d", r.BigRoad(), r.LeadingTies())
	}
	for _, c := range coups(t, "B*TtP") {
		if err := r.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	road := r.BigRoad()
	if len(road) != 2 || r.LeadingTies() != 0 {
		t.Fatalf("road %+v", road)
	}
	if c := road[0]; c.Ties != 4 || !c.PlayerPair || c.BankerPair || !c.Natural || c.Coup != 3 {
		t.Errorf("first win: %+v, want 2 ties before and 2 after, a player pair from the ties, a natural", c)
	}
	if c := road[1]; c.Ties != 0 || c.PlayerPair || c.Natural || c.Col != 1 {
		t.Errorf("second win: %+v", c)
	}
	if c := r.Counts(); c != (roads.Counts{Banker: 1, Player: 1, Tie: 4, PlayerPair: 2, Natural: 1}) {
		t.Errorf("counts %+v", c)
	}
	if b := r.BeadPlate(); len(b) != 6 || b[0].Result != roads.Tie || !b[0].PlayerPair || b[2].Result != roads.Banker || b[5].Col != 0 || b[5].Row != 5 {
		t.Errorf("bead plate %+v", b)
	}
}

// TestStaircase builds tails on rows 5, 4, 3, 2, 1 and 0: each streak turns right above the
// last one's tail, and the streak after the row-0 tail starts in the first free column.
func TestStaircase(t *testing.T) {
	seq := strings.Repeat("B", 12) + strings.Repeat("P", 11) + strings.Repeat("B", 10) +
		strings.Repeat("P", 9) + strings.Repeat("B", 8) + strings.Repeat("P", 7) + "B"
	r := build(t, seq)
	road := r.BigRoad()
	checkRoad(t, road)
	if c := road[len(road)-2]; c.Col != 11 || c.Row != 0 || c.Streak != 5 {
		t.Errorf("end of the row-0 tail %+v", c)
	}
	if c := road[len(road)-1]; c.Col != 12 || c.Row != 0 || c.Streak != 6 {
		t.Errorf("streak after the row-0 tail %+v", c)
	}
	if got := r.Columns(); !equalInts(got, []int{12, 11, 10, 9, 8, 7, 1}) {
		t.Errorf("logical columns %v", got)
	}
}

// checkRoad checks a road's drawing: every mark on the board and alone in its place, each run
// going down or right one cell at a time, each new run at the top of a later column.
func checkRoad(t *testing.T, road []roads.Cell) {
	t.Helper()
	ms := make([]roads.Mark, len(road))
	for i, c := range road {
		ms[i] = roads.Mark{Col: c.Col, Row: c.Row, Color: c.Result, Streak: c.Streak, Length: c.Length}
	}
	checkMarks(t, "big road", ms)
}

func checkMarks(t *testing.T, what string, ms []roads.Mark) {
	t.Helper()
	seen := map[[2]int]bool{}
	start := -1
	for i, c := range ms {
		if c.Row < 0 || c.Row >= roads.Rows || c.Col < 0 || seen[[2]int{c.Col, c.Row}] {
			t.Fatalf("%s: mark %d %+v off the board or on another", what, i, c)
		}
		seen[[2]int{c.Col, c.Row}] = true
		if i == 0 || c.Streak != ms[i-1].Streak {
			if c.Row != 0 || c.Col <= start || c.Length != 1 || i > 0 && c.Streak != ms[i-1].Streak+1 {
				t.Fatalf("%s: mark %d %+v does not start a run at the top of a later column", what, i, c)
			}
			start = c.Col
			continue
		}
		p := ms[i-1]
		down := c.Col == p.Col && c.Row == p.Row+1
		right := c.Col == p.Col+1 && c.Row == p.Row
		if !down && !right || c.Color != p.Color || c.Length != p.Length+1 {
			t.Fatalf("%s: mark %d %+v does not follow %+v", what, i, c, p)
		}
	}
}

// reference recomputes the derived road of offset k from the results alone, the long way: it
// builds the logical big road as a list of columns and applies the rule to every mark.
func reference(results []string, k int) string {
	var cols [][]string
	var out strings.Builder
	for _, res := range results {
		if res == roads.Tie {
			continue
		}
		if n := len(cols); n == 0 || cols[n-1][0] != res {
			cols = append(cols, []string{res})
		} else {
			cols[n-1] = append(cols[n-1], res)
		}
		c := len(cols) - 1
		r := len(cols[c]) - 1
		switch {
		case r == 0 && c-1-k >= 0:
			if len(cols[c-1]) == len(cols[c-1-k]) {
				out.WriteByte('R')
			} else {
				out.WriteByte('B')
			}
		case r > 0 && c-k >= 0:
			has := func(col, row int) bool { return row < len(cols[col]) }
			switch {
			case has(c-k, r):
				out.WriteByte('R')
			case has(c-k, r-1):
				out.WriteByte('B')
			default:
				out.WriteByte('R')
			}
		}
	}
	return out.String()
}

// FuzzRoads feeds arbitrary shoes and checks: the drawing of every road; the derived roads
// against the long way round (reference); the prediction against what the next coup then
// adds; the two predictions opposite whenever a road has started; the bead plate and ties.
func FuzzRoads(f *testing.F) {
	f.Add([]byte("TTBTBBBBBBBPPPPPPBBBBB"))
	f.Add([]byte("BBBBBBBBBBBBPPPPPPPPPPPBBBBBBBBBB"))
	f.Add([]byte("BBPBBBPPBBBBBBBBPBPP"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r roads.Roads
		var results []string
		for i, d := range data {
			res := []string{roads.Banker, roads.Player, roads.Tie}[d%3]
			before := r.Predict()
			var was [3]int
			for k := roads.BigEyeBoy; k <= roads.CockroachPig; k++ {
				was[k-1] = len(r.Derived(k))
			}
			c := roads.Coup{Result: res, PlayerPair: d&8 != 0, BankerPair: d&16 != 0}
			if err := r.Add(c); err != nil {
				t.Fatal(err)
			}
			results = append(results, res)
			for k := roads.BigEyeBoy; k <= roads.CockroachPig; k++ {
				want := [3]string{}
				switch res {
				case roads.Banker:
					want = [3]string{before.Banker.BigEyeBoy, before.Banker.SmallRoad, before.Banker.CockroachPig}
				case roads.Player:
					want = [3]string{before.Player.BigEyeBoy, before.Player.SmallRoad, before.Player.CockroachPig}
				}
				ms := r.Derived(k)
				got := ""
				if len(ms) > was[k-1] {
					got = ms[len(ms)-1].Color
				}
				if len(ms)-was[k-1] > 1 || got != want[k-1] {
					t.Fatalf("coup %d (%s): road %d added %q, predicted %q", i+1, res, k, got, want[k-1])
				}
			}
			p := r.Predict()
			for _, pair := range [][2]string{{p.Banker.BigEyeBoy, p.Player.BigEyeBoy}, {p.Banker.SmallRoad, p.Player.SmallRoad}, {p.Banker.CockroachPig, p.Player.CockroachPig}} {
				if (pair[0] == "") != (pair[1] == "") || pair[0] != "" && pair[0] == pair[1] {
					t.Fatalf("after coup %d: predictions %+v", i+1, p)
				}
			}
		}
		checkRoad(t, r.BigRoad())
		for k := roads.BigEyeBoy; k <= roads.CockroachPig; k++ {
			ms := r.Derived(k)
			checkMarks(t, "derived", ms)
			if got, want := colors(ms), reference(results, k); got != want {
				t.Fatalf("road %d: %s, the long way %s", k, got, want)
			}
		}
		beads := r.BeadPlate()
		if len(beads) != len(data) || r.Coups() != len(data) {
			t.Fatalf("%d beads for %d coups", len(beads), len(data))
		}
		ties := r.LeadingTies()
		for _, c := range r.BigRoad() {
			ties += c.Ties
		}
		if ties != r.Counts().Tie || len(r.BigRoad()) != len(data)-ties {
			t.Fatalf("ties %d, counts %+v, %d cells", ties, r.Counts(), len(r.BigRoad()))
		}
	})
}

func TestGoldenJSON(t *testing.T) {
	var r roads.Roads
	empty, _ := json.Marshal(&r)
	const want = `{"rows":6,"coups":0,"counts":{"banker":0,"player":0,"tie":0,"player_pair":0,"banker_pair":0,"natural":0},` +
		`"bead_plate":[],"big_road":[],"big_eye_boy":[],"small_road":[],"cockroach_pig":[],` +
		`"next":{"banker":{"big_eye_boy":"","small_road":"","cockroach_pig":""},"player":{"big_eye_boy":"","small_road":"","cockroach_pig":""}}}`
	if string(empty) != want {
		t.Errorf("empty roads %s", empty)
	}
	for _, c := range coups(t, "TBBPTBBPPB") {
		if err := r.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Add(roads.Coup{Result: roads.Player, PlayerTotal: 9, BankerTotal: 3, PlayerPair: true, BankerPair: true, Natural: true}); err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(&r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	const golden = "testdata/roads.golden.json"
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wantB, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if !bytes.Equal(got, wantB) {
		t.Errorf("roads JSON differs from %s:\n%s", golden, got)
	}
}

func TestBadCoup(t *testing.T) {
	var r roads.Roads
	for _, c := range []roads.Coup{{Result: "dragon"}, {Result: roads.Banker, BankerTotal: 12}, {Result: roads.Player, PlayerTotal: -1}} {
		if err := r.Add(c); !errors.Is(err, roads.ErrCoup) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if r.Coups() != 0 {
		t.Error("a refused coup was recorded")
	}
	if r.Derived(0) != nil || r.Derived(4) != nil {
		t.Error("roads other than 1–3")
	}
}

// BenchmarkAdd is one coup's update of the five roads and the prediction (issue 20), on a full
// shoe of 80 coups.
func BenchmarkAdd(b *testing.B) {
	shoe := coups(b, strings.Repeat("BBPBTPPPBBBBBBBBPBPPBTBPBBPPPBPBTBBBPPBP", 2))
	for b.Loop() {
		var r roads.Roads
		for _, c := range shoe {
			if err := r.Add(c); err != nil {
				b.Fatal(err)
			}
			_ = r.Predict()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(shoe)), "ns/coup")
}
