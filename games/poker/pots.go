package poker

import (
	"slices"
	"sort"

	"github.com/sabot-tables/sabot/games/poker/hand"
)

// Pot is one pot of a circle game at the showdown: the main pot or a side pot made when a seat
// went all-in for less than others put in (RULES.md §6).
type Pot struct {
	Amount   int64   `json:"amount"`         // what the seats put in it
	Rake     int64   `json:"rake"`           // the house's share, taken before the split
	Eligible []int   `json:"eligible"`       // seats that can win it: in the hand, and put in its whole level
	Winners  []int   `json:"winners"`        // seats that share it
	Shares   []Share `json:"shares"`         // what each winner takes
	Level    int64   `json:"level,omitzero"` // the contribution it takes from each seat, cumulative
}

// Share is one winner's part of a pot.
type Share struct {
	Seat   int   `json:"seat"`
	Amount int64 `json:"amount"`
}

// Contribution is what one seat put in the pots during a round, and whether it is still in the
// hand.
type Contribution struct {
	Seat   int
	Amount int64
	Folded bool
}

// Uncalled returns the part of the largest contribution that nobody else matched (a bet or an
// all-in nobody could call), which goes back to its seat untaken and unraked, and that seat;
// (0, 0) when the two largest contributions are equal or the largest is a folded seat's (what a
// seat put in before folding stays in the pot).
func Uncalled(cs []Contribution) (seat int, amount int64) {
	var top, second int64
	folded := false
	for _, c := range cs {
		switch {
		case c.Amount > top:
			second, top, seat, folded = top, c.Amount, c.Seat, c.Folded
		case c.Amount > second:
			second = c.Amount
		}
	}
	if top == second || folded {
		return 0, 0
	}
	return seat, top - second
}

// BuildPots splits the contributions (the uncalled part already taken off) into the main pot and
// the side pots: one pot per distinct contribution of a seat still in the hand, smallest first,
// each taking from every seat (folded ones too) what lies between the previous level and its
// own, and open to the seats still in the hand that reached it. What folded seats put in above
// the top level joins the last pot (or makes the only pot, open to every seat still in the hand,
// when those put in nothing).
func BuildPots(cs []Contribution) []Pot {
	var levels []int64
	for _, c := range cs {
		if !c.Folded && c.Amount > 0 && !slices.Contains(levels, c.Amount) {
			levels = append(levels, c.Amount)
		}
	}
	slices.Sort(levels)
	var pots []Pot
	prev := int64(0)
	for _, l := range levels {
		p := Pot{Level: l}
		for _, c := range cs {
			p.Amount += min(c.Amount, l) - min(c.Amount, prev)
			if !c.Folded && c.Amount >= l {
				p.Eligible = append(p.Eligible, c.Seat)
			}
		}
		sort.Ints(p.Eligible)
		pots = append(pots, p)
		prev = l
	}
	var over int64
	for _, c := range cs {
		over += max(0, c.Amount-prev)
	}
	switch {
	case over > 0 && len(pots) > 0:
		pots[len(pots)-1].Amount += over
	case over > 0:
		p := Pot{Amount: over}
		for _, c := range cs {
			if !c.Folded {
				p.Eligible = append(p.Eligible, c.Seat)
			}
		}
		sort.Ints(p.Eligible)
		pots = append(pots, p)
	}
	return pots
}

// Rake takes the house's share of each pot: bp basis points of it, rounded down, and no more than
// limit over the round when limit is above zero (RULES.md §6: "takes the configured rake from
// each pot"). It returns the total.
func Rake(pots []Pot, bp, limit int64) int64 {
	var total int64
	for i := range pots {
		r := pots[i].Amount / 10000 * bp
		r += pots[i].Amount % 10000 * bp / 10000
		if limit > 0 {
			r = min(r, limit-total)
		}
		pots[i].Rake = r
		total += r
	}
	return total
}

// Award gives each pot, less its rake, to the best hands among its eligible seats, split evenly
// on an exact tie; the cents that do not divide go one each to the winners nearest the button's
// left (RULES.md §6: "odd chip to the first seat left of the button"). order lists the seats from
// the button's left round the table; ranks holds the hand of every seat at the showdown (a pot
// with one eligible seat needs none).
func Award(pots []Pot, ranks map[int]hand.Rank, order []int) {
	pos := map[int]int{}
	for i, s := range order {
		pos[s] = i
	}
	for i := range pots {
		p := &pots[i]
		var best hand.Rank
		p.Winners = nil
		for _, s := range p.Eligible {
			switch r := ranks[s]; {
			case r > best || p.Winners == nil:
				best, p.Winners = r, []int{s}
			case r == best:
				p.Winners = append(p.Winners, s)
			}
		}
		slices.SortFunc(p.Winners, func(a, b int) int { return pos[a] - pos[b] })
		if len(p.Winners) == 0 {
			continue
		}
		net := p.Amount - p.Rake
		each, odd := net/int64(len(p.Winners)), net%int64(len(p.Winners))
		p.Shares = make([]Share, len(p.Winners))
		for j, s := range p.Winners {
			p.Shares[j] = Share{Seat: s, Amount: each}
			if int64(j) < odd {
				p.Shares[j].Amount++
			}
		}
		slices.SortFunc(p.Shares, func(a, b Share) int { return a.Seat - b.Seat })
		sort.Ints(p.Winners)
	}
}
