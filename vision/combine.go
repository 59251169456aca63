package vision

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Passage is one physical card crossing the reader: the combined result and what it was made of.
type Passage struct {
	Result
	// Frames is how many frames were seen between the two sensor edges; Evidence how many of
	// them showed the card (gave evidence).
	Frames, Evidence int
	// Tally lists what the frames read on their own, most frequent first: "As×3 NONE×2 reject×1".
	Tally string
}

// Combiner turns the frames seen while a card blocks the card-exit sensor into one answer:
// Begin at the leading edge, Add each frame's Result, End at the trailing edge. Frames are
// combined by their evidence, not by counting their votes: each class's distance is averaged over
// the frames that showed a card of the deck (Evidence.Fits) and the recognizer's rule (its Judge)
// decides on the average, as it decides one frame. One frame that on its own reads another card,
// the cut card or the back rejects the passage (RULES.md §1 "Misread": never a guess). A
// Combiner is not safe for concurrent use.
type Combiner struct {
	Judge  Judge
	open   bool
	frames int
	n      int
	sum    []float64
	count  []int
	reads  map[string]int
	tally  map[string]int
}

// Begin starts a passage (the sensor's leading edge), dropping anything not yet ended.
func (c *Combiner) Begin() {
	c.open = true
	c.frames, c.n = 0, 0
	c.sum, c.count = c.sum[:0], c.count[:0]
	c.reads = map[string]int{}
	c.tally = map[string]int{}
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
	t := r.Token()
	if t == "" {
		t = "reject"
	}
	c.tally[t]++
	if r.Kind == Card || r.Kind == Cut || r.Kind == Back {
		c.reads[t]++
	}
	if r.Evidence == nil || len(r.Evidence.Dist) == 0 || !r.Evidence.Fits {
		return
	}
	if len(c.sum) == 0 {
		c.sum = make([]float64, len(r.Evidence.Dist))
		c.count = make([]int, len(r.Evidence.Dist))
	}
	if len(r.Evidence.Dist) != len(c.sum) {
		return // another recognizer's frame: not comparable
	}
	// A frame that could not be compared with every class (its index out of the window) is no
	// evidence: a class it did not measure is not ruled out by it, and the mean of the others
	// must not rule it out either.
	for _, d := range r.Evidence.Dist {
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return
		}
	}
	c.n++
	for i, d := range r.Evidence.Dist {
		if !math.IsNaN(d) && !math.IsInf(d, 0) {
			c.sum[i] += d
			c.count[i]++
		}
	}
}

// End closes the passage (the sensor's trailing edge) and returns its verdict.
func (c *Combiner) End() Passage {
	if !c.open {
		return Passage{Result: Rejected("no frames: the passage never began", 0)}
	}
	c.open = false
	p := Passage{Frames: c.frames, Evidence: c.n, Tally: c.tallyString()}
	switch {
	case c.frames == 0:
		p.Result = Rejected("no frames while the sensor was blocked", 0)
		return p
	case c.n == 0:
		// The sensor says something crossed: seeing nothing is a misread, not NONE.
		p.Result = Rejected("no frame showed the card: "+p.Tally, 0)
		return p
	case c.Judge == nil:
		p.Result = Rejected("no recognizer to judge the frames", 0)
		return p
	}
	mean := make([]float64, len(c.sum))
	for i := range mean {
		// A class not measured in every frame that showed the card is not measured at all: its
		// frames cannot be compared with the others'.
		if c.count[i] == c.n {
			mean[i] = c.sum[i] / float64(c.n)
		} else {
			mean[i] = math.NaN()
		}
	}
	res := c.Judge.Judge(mean)
	p.Result = res
	if res.Kind == Reject {
		p.Result.Reason = fmt.Sprintf("%s (over %d frames: %s)", res.Reason, c.n, p.Tally)
		return p
	}
	for tok := range c.reads {
		if tok != res.Token() {
			p.Result = Rejected(fmt.Sprintf("frames read %s, but a frame read %s on its own: %s", res.Token(), tok, p.Tally), res.Confidence)
			return p
		}
	}
	return p
}

func (c *Combiner) tallyString() string {
	type kv struct {
		k string
		n int
	}
	var l []kv
	for k, n := range c.tally {
		l = append(l, kv{k, n})
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
