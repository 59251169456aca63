package floor

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/tablebus"
)

// TestWriteText renders simulated tables for a terminal, with and without colour, and compares
// them with golden files.
func TestWriteText(t *testing.T) {
	fl := newFloor()
	for _, g := range []struct {
		game, table string
		n           int
	}{{"punto-banco", "T1", 320}, {"blackjack", "B2", 260}, {"trente-et-quarante", "TQ3", 210}} {
		evs := simulate(t, g.game, g.table, 7, 400, 17, nil)
		for i := range min(g.n, len(evs)) {
			fl.Apply(Delivery{Event: &evs[i]})
		}
	}
	fl.Apply(Delivery{Status: &tablebus.Status{V: 1, Table: "TQ3", Online: false, Session: 1, Seq: 210, TS: t0}})
	s := fl.Snapshot(0)
	now := simStart.Add(2 * time.Minute)
	for _, tc := range []struct {
		name  string
		color bool
	}{{"text", false}, {"ansi", true}} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteText(&b, s, TextOptions{Width: 110, Color: tc.color, Now: now, Loc: time.UTC}); err != nil {
				t.Fatal(err)
			}
			golden(t, "floor."+tc.name+".golden", b.Bytes())
		})
	}
}

func TestCut(t *testing.T) {
	tests := []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello world", 5, "hello…"},
		{"7♠ 2♦ 4♣", 4, "7♠ 2…"},
		{"\x1b[31m7♥\x1b[0m and more", 3, "\x1b[31m7♥\x1b[0m …\x1b[0m"},
	}
	for _, tc := range tests {
		if got := cut(tc.in, tc.n); got != tc.want {
			t.Errorf("cut(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
	if got := bar(ShoeView{Total: 416, Out: 104, CutBehind: 6}, 20); got != "▕█████░░░░░░░░░░░░░░│▏" {
		t.Errorf("bar: %s", got)
	}
	if strings.Contains(bar(ShoeView{}, 20), "█") {
		t.Error("a bar without a shoe")
	}
}
