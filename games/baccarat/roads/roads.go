package roads

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Rows is the height of every road: six, as on every baccarat scoreboard.
const Rows = 6

// The results of a coup, as the baccarat engines write them (RULES.md §8).
const (
	Banker = "banker"
	Player = "player"
	Tie    = "tie"
)

// The colours of a derived road's marks.
const (
	Red  = "red"  // the shoe repeats its pattern
	Blue = "blue" // the shoe breaks it
)

// Coup is what the roads record of one coup.
type Coup struct {
	Result      string `json:"result"` // Banker, Player or Tie
	PlayerTotal int    `json:"player_total"`
	BankerTotal int    `json:"banker_total"`
	PlayerPair  bool   `json:"player_pair,omitempty"`
	BankerPair  bool   `json:"banker_pair,omitempty"`
	Natural     bool   `json:"natural,omitempty"` // a hand had a two-card 8 or 9
}

// ErrCoup is wrapped by every error about a coup the roads cannot record.
var ErrCoup = errors.New("roads: coup")

// Check refuses a coup with an unknown result or a total outside 0–9.
func (c Coup) Check() error {
	switch c.Result {
	case Banker, Player, Tie:
	default:
		return fmt.Errorf("%w: result %q (want player, banker or tie)", ErrCoup, c.Result)
	}
	if c.PlayerTotal < 0 || c.PlayerTotal > 9 || c.BankerTotal < 0 || c.BankerTotal > 9 {
		return fmt.Errorf("%w: totals %d and %d (a baccarat total is 0–9)", ErrCoup, c.PlayerTotal, c.BankerTotal)
	}
	return nil
}

// Bead is one coup on the bead plate: column by column, top to bottom.
type Bead struct {
	Coup
	Col int `json:"col"`
	Row int `json:"row"`
}

// Cell is one mark on the big road: a banker or player win, with the ties marked on it.
type Cell struct {
	Col    int    `json:"col"` // where it is drawn
	Row    int    `json:"row"`
	Result string `json:"result"`         // Banker or Player
	Ties   int    `json:"ties,omitempty"` // ties marked on it: those after it, and on the shoe's first win those before it
	// The pairs of the coups it stands for: its win and the ties marked on it.
	PlayerPair bool `json:"player_pair,omitempty"`
	BankerPair bool `json:"banker_pair,omitempty"`
	Natural    bool `json:"natural,omitempty"` // the win was a natural
	Streak     int  `json:"streak"`            // its logical column (0 first)
	Length     int  `json:"length"`            // its place in the streak, 1 first: its logical row + 1
	Coup       int  `json:"coup"`              // the coup's number in the shoe, 1 first
}

// Mark is one mark on a derived road.
type Mark struct {
	Col    int    `json:"col"` // where it is drawn
	Row    int    `json:"row"`
	Color  string `json:"color"`  // Red or Blue
	Streak int    `json:"streak"` // its logical column on its road (0 first)
	Length int    `json:"length"` // its place in its run of one colour, 1 first
	Cell   int    `json:"cell"`   // the big road mark that made it (index in BigRoad)
	Coup   int    `json:"coup"`   // that mark's coup
}

// Derived roads, by offset: the column a derived road compares with is k columns back.
const (
	BigEyeBoy    = 1 // 大眼仔
	SmallRoad    = 2 // 小路
	CockroachPig = 3 // 曱甴路
)

// Next is what each derived road would mark if the next coup were a win of one side: Red, Blue,
// or "" where that road has not started (and would not start with it).
type Next struct {
	BigEyeBoy    string `json:"big_eye_boy"`
	SmallRoad    string `json:"small_road"`
	CockroachPig string `json:"cockroach_pig"`
}

// Prediction is the "ask the road" box: the marks a banker win and a player win would add.
type Prediction struct {
	Banker Next `json:"banker"`
	Player Next `json:"player"`
}

// grid places the marks of one road: a run goes down its column while the cell below is free
// and on the board, then right along its row (the dragon tail); a new run starts at the top of
// the column after the last run's first, or the next column whose top is free.
type grid struct {
	taken     map[[2]int]bool
	startCol  int // where the current run started
	col, row  int // the last mark
	any, tail bool
}

func (g *grid) place(newRun bool) (col, row int) {
	if g.taken == nil {
		g.taken = map[[2]int]bool{}
	}
	switch {
	case !g.any:
		col, row = 0, 0
	case newRun:
		col = g.startCol + 1
		for g.taken[[2]int{col, 0}] {
			col++
		}
		row = 0
	case !g.tail && g.row+1 < Rows && !g.taken[[2]int{g.col, g.row + 1}]:
		col, row = g.col, g.row+1
	default:
		// The dragon tail: right along the row. The cell is free (an earlier tail to the
		// right would have crossed this run's column above where it turned), but look on all
		// the same rather than draw one mark over another.
		col, row = g.col+1, g.row
		for g.taken[[2]int{col, row}] {
			col++
		}
		g.tail = true
	}
	if newRun || !g.any {
		g.startCol, g.tail = col, false
	}
	g.any = true
	g.col, g.row = col, row
	g.taken[[2]int{col, row}] = true
	return col, row
}

// derived is one derived road as it grows.
type derived struct {
	k     int
	marks []Mark
	runs  int // logical columns so far
	g     grid
}

func (d *derived) add(color string, cell, coup int) {
	m := Mark{Color: color, Cell: cell, Coup: coup, Length: 1}
	newRun := true
	if n := len(d.marks); n > 0 {
		last := d.marks[n-1]
		if last.Color == color {
			newRun = false
			m.Streak, m.Length = last.Streak, last.Length+1
		} else {
			m.Streak = last.Streak + 1
		}
	}
	m.Col, m.Row = d.g.place(newRun)
	d.marks = append(d.marks, m)
}

// colorAt is the derived road rule (see the package doc): the colour that offset k gives a big
// road mark at logical column c, row r, given the lengths of the logical columns (lens[c] is
// the length of column c counting that mark). ok is false before the road starts.
func colorAt(lens []int, c, r, k int) (color string, ok bool) {
	if r == 0 {
		if c-1-k < 0 {
			return "", false
		}
		if lens[c-1] == lens[c-1-k] {
			return Red, true
		}
		return Blue, true
	}
	if c-k < 0 {
		return "", false
	}
	switch l := lens[c-k]; {
	case r < l: // the compared column reaches this row
		return Red, true
	case r == l: // it ended just above: the first empty cell
		return Blue, true
	}
	return Red, true // it ended higher still: two empty cells in a row "repeat" the emptiness
}

// Roads is one shoe's five roads. The zero value is an empty shoe ready for use.
type Roads struct {
	coups   []Coup
	beads   []Bead
	road    []Cell
	lens    []int // the logical big road: each column's length
	leading int   // ties before the first win
	// leadPP and leadBP are the pairs of the ties before the first win.
	leadPP, leadBP bool
	g              grid
	derived        [3]derived
}

// Add records a completed coup.
func (r *Roads) Add(c Coup) error {
	if err := c.Check(); err != nil {
		return err
	}
	n := len(r.coups)
	r.coups = append(r.coups, c)
	r.beads = append(r.beads, Bead{Coup: c, Col: n / Rows, Row: n % Rows})
	if c.Result == Tie {
		if len(r.road) == 0 {
			r.leading++
			r.leadPP, r.leadBP = r.leadPP || c.PlayerPair, r.leadBP || c.BankerPair
			return nil
		}
		last := &r.road[len(r.road)-1]
		last.Ties++
		last.PlayerPair, last.BankerPair = last.PlayerPair || c.PlayerPair, last.BankerPair || c.BankerPair
		return nil
	}
	cell := Cell{Result: c.Result, PlayerPair: c.PlayerPair, BankerPair: c.BankerPair, Natural: c.Natural, Coup: n + 1, Length: 1}
	newRun := true
	switch {
	case len(r.road) == 0:
		cell.Ties, r.leading = r.leading, 0
		cell.PlayerPair, cell.BankerPair = cell.PlayerPair || r.leadPP, cell.BankerPair || r.leadBP
		r.leadPP, r.leadBP = false, false
		r.lens = append(r.lens, 1)
	case r.road[len(r.road)-1].Result != c.Result:
		cell.Streak = r.road[len(r.road)-1].Streak + 1
		r.lens = append(r.lens, 1)
	default:
		last := r.road[len(r.road)-1]
		cell.Streak, cell.Length = last.Streak, last.Length+1
		r.lens[cell.Streak]++
		newRun = false
	}
	cell.Col, cell.Row = r.g.place(newRun)
	r.road = append(r.road, cell)
	for i := range r.derived {
		d := &r.derived[i]
		d.k = i + 1
		if color, ok := colorAt(r.lens, cell.Streak, cell.Length-1, d.k); ok {
			d.add(color, len(r.road)-1, cell.Coup)
		}
	}
	return nil
}

// Coups returns how many coups the roads hold.
func (r *Roads) Coups() int { return len(r.coups) }

// BeadPlate returns the bead plate.
func (r *Roads) BeadPlate() []Bead { return append([]Bead(nil), r.beads...) }

// BigRoad returns the big road's marks in the order they were made.
func (r *Roads) BigRoad() []Cell { return append([]Cell(nil), r.road...) }

// Columns returns the logical big road: the length of each streak, in order.
func (r *Roads) Columns() []int { return append([]int(nil), r.lens...) }

// LeadingTies returns the ties so far when no side has won yet.
func (r *Roads) LeadingTies() int { return r.leading }

// Derived returns the marks of the derived road with offset k (BigEyeBoy, SmallRoad or
// CockroachPig), in the order they were made.
func (r *Roads) Derived(k int) []Mark {
	if k < BigEyeBoy || k > CockroachPig {
		return nil
	}
	return append([]Mark(nil), r.derived[k-1].marks...)
}

// Predict returns the marks a banker win and a player win would add to each derived road.
func (r *Roads) Predict() Prediction {
	return Prediction{Banker: r.next(Banker), Player: r.next(Player)}
}

func (r *Roads) next(side string) Next {
	if len(r.road) == 0 {
		return Next{} // the first win starts column 0: no road has a column to compare
	}
	last := r.road[len(r.road)-1]
	c, row := last.Streak+1, 0
	lens := append(r.lens[:len(r.lens):len(r.lens)], 1)
	if last.Result == side {
		c, row = last.Streak, last.Length
		lens = append([]int(nil), r.lens...)
		lens[c]++
	}
	var out [3]string
	for k := BigEyeBoy; k <= CockroachPig; k++ {
		out[k-1], _ = colorAt(lens, c, row, k)
	}
	return Next{BigEyeBoy: out[0], SmallRoad: out[1], CockroachPig: out[2]}
}

// Reset clears the roads for a new shoe.
func (r *Roads) Reset() { *r = Roads{} }

// Counts are the shoe's totals by result and side bet.
type Counts struct {
	Banker     int `json:"banker"`
	Player     int `json:"player"`
	Tie        int `json:"tie"`
	PlayerPair int `json:"player_pair"`
	BankerPair int `json:"banker_pair"`
	Natural    int `json:"natural"`
}

// Counts returns the shoe's totals.
func (r *Roads) Counts() Counts {
	var c Counts
	for _, x := range r.coups {
		switch x.Result {
		case Banker:
			c.Banker++
		case Player:
			c.Player++
		default:
			c.Tie++
		}
		if x.PlayerPair {
			c.PlayerPair++
		}
		if x.BankerPair {
			c.BankerPair++
		}
		if x.Natural {
			c.Natural++
		}
	}
	return c
}

// View is the roads as published: what MarshalJSON writes.
type View struct {
	Rows         int        `json:"rows"`
	Coups        int        `json:"coups"`
	Counts       Counts     `json:"counts"`
	LeadingTies  int        `json:"leading_ties,omitempty"` // ties so far with no win yet
	BeadPlate    []Bead     `json:"bead_plate"`
	BigRoad      []Cell     `json:"big_road"`
	BigEyeBoy    []Mark     `json:"big_eye_boy"`
	SmallRoad    []Mark     `json:"small_road"`
	CockroachPig []Mark     `json:"cockroach_pig"`
	Next         Prediction `json:"next"`
}

// View returns the roads as published.
func (r *Roads) View() View {
	v := View{Rows: Rows, Coups: len(r.coups), Counts: r.Counts(), LeadingTies: r.leading,
		BeadPlate: r.BeadPlate(), BigRoad: r.BigRoad(),
		BigEyeBoy: r.Derived(BigEyeBoy), SmallRoad: r.Derived(SmallRoad), CockroachPig: r.Derived(CockroachPig),
		Next: r.Predict()}
	// Empty roads are [] for the pages that draw them, never null.
	if v.BeadPlate == nil {
		v.BeadPlate = []Bead{}
	}
	if v.BigRoad == nil {
		v.BigRoad = []Cell{}
	}
	for _, m := range []*[]Mark{&v.BigEyeBoy, &v.SmallRoad, &v.CockroachPig} {
		if *m == nil {
			*m = []Mark{}
		}
	}
	return v
}

// MarshalJSON writes the View.
func (r *Roads) MarshalJSON() ([]byte, error) {
	type view View // no MarshalJSON
	return json.Marshal(view(r.View()))
}
