package poker

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/sabot-tables/sabot/games/poker/hand"
)

// PayTable is what a bet pays, "X to 1", by the hand's category; a category that is not in the
// table pays nothing (the bet is lost, or, where the bet is settled against the dealer, pays as
// the table's lowest entry: see House).
type PayTable map[hand.Category]int64

// String writes the table as ParsePayTable reads it, best hand first.
func (t PayTable) String() string {
	var parts []string
	for i := len(hand.Categories) - 1; i >= 0; i-- {
		c := hand.Categories[i]
		if p, ok := t[c]; ok {
			parts = append(parts, fmt.Sprintf("%s=%d", strings.ReplaceAll(c.String(), " ", "-"), p))
		}
	}
	return strings.Join(parts, ",")
}

// ParsePayTable reads "royal-flush=100,straight-flush=50,pair=1": each category once, a
// non-negative integer pay (X to 1). Named categories replace those of base; base is not changed.
func ParsePayTable(s string, base PayTable) (PayTable, error) {
	t := PayTable{}
	for k, v := range base {
		t[k] = v
	}
	seen := map[hand.Category]bool{}
	for _, item := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			return nil, fmt.Errorf("pay table item %q is not category=pays", item)
		}
		c, err := hand.ParseCategory(name)
		if err != nil {
			return nil, err
		}
		if seen[c] {
			return nil, fmt.Errorf("pay table names %s twice", c)
		}
		seen[c] = true
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n < 0 || n > 1_000_000 {
			return nil, fmt.Errorf("pay table: %s pays %q, not a whole number from 0 to 1000000", c, val)
		}
		t[c] = n
	}
	return t, nil
}

// options reads a Config's Options, refusing names the engine does not know.
type options struct {
	game string
	m    map[string]string
	used map[string]bool
}

func newOptions(game string, m map[string]string, known ...string) (*options, error) {
	var unknown []string
	for k := range m {
		if !slices.Contains(known, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		sort.Strings(known)
		return nil, fmt.Errorf("poker: %s: unknown option %q (known: %s)", game, unknown[0], strings.Join(known, ", "))
	}
	return &options{game: game, m: m}, nil
}

func (o *options) has(k string) bool { _, ok := o.m[k]; return ok }

// int reads a whole number from lo to hi, or def when the option is absent.
func (o *options) int(k string, def, lo, hi int64) (int64, error) {
	s, ok := o.m[k]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("poker: %s: option %s: %q is not a whole number from %d to %d", o.game, k, s, lo, hi)
	}
	return n, nil
}

// payTable reads a pay table option over def.
func (o *options) payTable(k string, def PayTable) (PayTable, error) {
	s, ok := o.m[k]
	if !ok {
		return def, nil
	}
	t, err := ParsePayTable(s, def)
	if err != nil {
		return nil, fmt.Errorf("poker: %s: option %s: %w", o.game, k, err)
	}
	return t, nil
}

// basisPoints reads a percentage "5%", "2.5%" (to a hundredth) into basis points.
func (o *options) basisPoints(k string) (int64, error) {
	s, ok := o.m[k]
	if !ok {
		return 0, nil
	}
	bad := fmt.Errorf("poker: %s: option %s: %q is not a percentage from 0%% to 100%% such as \"5%%\" or \"2.5%%\"", o.game, k, s)
	num, isPct := strings.CutSuffix(strings.TrimSpace(s), "%")
	if !isPct {
		return 0, bad
	}
	whole, frac, _ := strings.Cut(num, ".")
	if len(frac) > 2 || whole == "" {
		return 0, bad
	}
	frac += strings.Repeat("0", 2-len(frac))
	w, err1 := strconv.ParseInt(whole, 10, 64)
	f, err2 := strconv.ParseInt(frac, 10, 64)
	if err1 != nil || err2 != nil || w < 0 || f < 0 || w*100+f > 10000 {
		return 0, bad
	}
	return w*100 + f, nil
}

// seats reads a list of seat numbers "2,5"; "dealer" may appear where allowDealer is set and is
// returned as seat 0.
func (o *options) seats(k string, allowDealer bool) ([]int, error) {
	s, ok := o.m[k]
	if !ok {
		return nil, nil
	}
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if allowDealer && f == "dealer" {
			out = append(out, 0)
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("poker: %s: option %s: %q is not a seat number", o.game, k, f)
		}
		out = append(out, n)
	}
	return out, nil
}
