package vision

import (
	"fmt"
	"sort"
	"strings"

	"github.com/sabot-tables/sabot/shoe/card"
)

// CombineConfig sets how the frames of one card passage are combined.
type CombineConfig struct {
	// MinAgree is how many frames must read the same card (or CUT, or BACK) for the passage to
	// be that card; fewer is a rejection. Zero means 2.
	MinAgree int
}

func (c CombineConfig) minAgree() int {
	if c.MinAgree <= 0 {
		return 2
	}
	return c.MinAgree
}

// Passage is one physical card crossing the reader: the combined result and what it was made of.
type Passage struct {
	Result
	// Frames is how many frames were seen between the two sensor edges; Agree how many of them
	// read the answer.
	Frames, Agree int
	// Tally lists what the frames read, most frequent first: "As×3 NONE×2 reject×1".
	Tally string
}

// Combiner turns the frames seen while a card blocks the card-exit sensor into one answer:
// Begin at the leading edge, Add each frame's Result, End at the trailing edge. The rule is
// RULES.md §1 "Misread": frames that disagree, or too few frames that agree, are a rejection,
// never a guess. A Combiner is not safe for concurrent use; the zero value is ready with the
// default configuration.
type Combiner struct {
	Config CombineConfig
	open   bool
	frames int
	cards  map[card.Card][]float64
	kinds  [None + 1][]float64
	reason map[string]int
}

// Begin starts a passage (the sensor's leading edge), dropping anything not yet ended.
func (c *Combiner) Begin() {
	c.open = true
	c.frames = 0
	c.cards = map[card.Card][]float64{}
	for i := range c.kinds {
		c.kinds[i] = c.kinds[i][:0]
	}
	c.reason = map[string]int{}
}

// Open reports whether a passage has begun and not ended.
func (c *Combiner) Open() bool { return c.open }

// Add counts one frame's result. A frame added outside a passage begins one: a missed leading
// edge must not lose a card.
func (c *Combiner) Add(r Result) {
	if !c.open {
		c.Begin()
	}
	c.frames++
	switch r.Kind {
	case Card:
		if !r.Card.Valid() {
			c.kinds[Reject] = append(c.kinds[Reject], 0)
			c.reason["card kind without a card"]++
			return
		}
		c.cards[r.Card] = append(c.cards[r.Card], r.Confidence)
	case Cut, Back, None:
		c.kinds[r.Kind] = append(c.kinds[r.Kind], r.Confidence)
	default:
		c.kinds[Reject] = append(c.kinds[Reject], r.Confidence)
		c.reason[r.Reason]++
	}
}

// End closes the passage (the sensor's trailing edge) and returns its verdict.
func (c *Combiner) End() Passage {
	if !c.open {
		return Passage{Result: Rejected("no frames: the passage never began", 0)}
	}
	c.open = false
	p := Passage{Frames: c.frames, Tally: c.tally()}
	need := c.Config.minAgree()
	if c.frames == 0 {
		p.Result = Rejected("no frames while the sensor was blocked", 0)
		return p
	}
	cut, back := len(c.kinds[Cut]), len(c.kinds[Back])
	switch {
	case len(c.cards) > 1:
		p.Result = Rejected("frames disagree: "+p.Tally, 0)
	case len(c.cards) == 1 && (cut > 0 || back > 0):
		p.Result = Rejected("a card and a cut card or back in one passage: "+p.Tally, 0)
	case len(c.cards) == 1:
		for k, conf := range c.cards {
			p.Agree = len(conf)
			if p.Agree < need {
				p.Result = Rejected(fmt.Sprintf("only %d frame(s) read %s, %d needed", p.Agree, k, need), mean(conf))
				return p
			}
			p.Result = Result{Kind: Card, Card: k, Confidence: mean(conf)}
		}
	case cut > 0 && back > 0:
		p.Result = Rejected("cut card and back in one passage: "+p.Tally, 0)
	case cut >= need:
		p.Agree = cut
		p.Result = Result{Kind: Cut, Confidence: mean(c.kinds[Cut])}
	case back >= need:
		p.Agree = back
		p.Result = Result{Kind: Back, Confidence: mean(c.kinds[Back])}
	case cut > 0 || back > 0:
		p.Agree = cut + back
		p.Result = Rejected(fmt.Sprintf("only %d frame(s) agree, %d needed: %s", cut+back, need, p.Tally), 0)
	default:
		// The sensor says something crossed: seeing nothing is a misread, not NONE.
		p.Result = Rejected("no frame read the card: "+p.Tally, 0)
	}
	return p
}

func (c *Combiner) tally() string {
	type kv struct {
		k string
		n int
	}
	var l []kv
	for k, v := range c.cards {
		l = append(l, kv{k.String(), len(v)})
	}
	for k := Card; k <= None; k++ {
		if n := len(c.kinds[k]); n > 0 {
			l = append(l, kv{k.String(), n})
		}
	}
	if n := len(c.kinds[Reject]); n > 0 {
		l = append(l, kv{"reject", n})
	}
	sort.Slice(l, func(i, j int) bool {
		if l[i].n != l[j].n {
			return l[i].n > l[j].n
		}
		return l[i].k < l[j].k
	})
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = fmt.Sprintf("%s×%d", e.k, e.n)
	}
	return strings.Join(parts, " ")
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}
