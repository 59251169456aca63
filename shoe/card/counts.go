package card

import (
	"fmt"
	"strings"
)

// Counts is a composition of cards: how many of each of the 52 there are. It describes a shoe of
// N decks, what is left in a shoe, or what a shuffler read on load.
type Counts [52]int

// Decks returns the composition of n complete decks.
func Decks(n int) Counts {
	var c Counts
	for i := range c {
		c[i] = n
	}
	return c
}

// Add counts one more of card x.
func (c *Counts) Add(x Card) {
	if x.Valid() {
		c[x.Index()]++
	}
}

// Remove takes one x away; it reports false, changing nothing, when there is no x left.
func (c *Counts) Remove(x Card) bool {
	if !x.Valid() || c[x.Index()] <= 0 {
		return false
	}
	c[x.Index()]--
	return true
}

// Of returns how many of x there are.
func (c *Counts) Of(x Card) int {
	if !x.Valid() {
		return 0
	}
	return c[x.Index()]
}

// Total returns the number of cards.
func (c *Counts) Total() int {
	t := 0
	for _, n := range c {
		t += n
	}
	return t
}

// CountOf returns the composition of a list of cards.
func CountOf(cards []Card) Counts {
	var c Counts
	for _, x := range cards {
		c.Add(x)
	}
	return c
}

// Discrepancy is one card whose count differs from what a composition should hold.
type Discrepancy struct {
	Card Card
	Want int
	Got  int
}

// String reads "As: 7 of 8 (1 missing)" or "Kd: 9 of 8 (1 extra)".
func (d Discrepancy) String() string {
	if d.Got < d.Want {
		return fmt.Sprintf("%s: %d of %d (%d missing)", d.Card, d.Got, d.Want, d.Want-d.Got)
	}
	return fmt.Sprintf("%s: %d of %d (%d extra)", d.Card, d.Got, d.Want, d.Got-d.Want)
}

// Diff lists every card whose count in got differs from want, in Index order.
func Diff(want, got Counts) []Discrepancy {
	var out []Discrepancy
	for i := range want {
		if want[i] != got[i] {
			out = append(out, Discrepancy{Card: FromIndex(i), Want: want[i], Got: got[i]})
		}
	}
	return out
}

// DescribeDiff summarises discrepancies for a fault message: missing cards first, then extras,
// e.g. "missing As, 7h×2; extra Kd".
func DescribeDiff(ds []Discrepancy) string {
	var miss, extra []string
	for _, d := range ds {
		n := d.Want - d.Got
		list := &miss
		if n < 0 {
			n, list = -n, &extra
		}
		s := d.Card.String()
		if n > 1 {
			s += fmt.Sprintf("×%d", n)
		}
		*list = append(*list, s)
	}
	var parts []string
	if len(miss) > 0 {
		parts = append(parts, "missing "+strings.Join(miss, ", "))
	}
	if len(extra) > 0 {
		parts = append(parts, "extra "+strings.Join(extra, ", "))
	}
	if len(parts) == 0 {
		return "complete"
	}
	return strings.Join(parts, "; ")
}
