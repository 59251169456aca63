package floor

import (
	"sort"

	"github.com/sabot-tables/sabot/tablebus"
)

// meter takes a progressive pool's meter (the controller's, verified by whoever delivers it)
// and reports whether it is news: a display keeps the highest version. The caller holds f.mu.
func (f *Floor) meter(m tablebus.Meter) bool {
	if f.meters == nil {
		f.meters = map[string]tablebus.Meter{}
	}
	if old, ok := f.meters[m.Pool]; ok && old.Version > m.Version {
		return false
	}
	m.Kid, m.Sig = "", ""
	f.meters[m.Pool] = m
	return true
}

// pools returns the meters by pool. The caller holds f.mu.
func (f *Floor) pools() []tablebus.Meter {
	var out []tablebus.Meter
	for _, m := range f.meters {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pool < out[j].Pool })
	return out
}

// Pit returns the floor's pit figures (pit.go).
func (f *Floor) Pit() *Pit { return f.pit }

// progressiveLink follows a table's progressive.link: whether it takes progressive bets. The caller holds
// f.mu.
func (f *Floor) progressiveLink(e tablebus.Event) {
	if e.Type != tablebus.ProgressiveLink {
		return
	}
	if f.links == nil {
		f.links = map[string]string{}
	}
	f.links[e.Table] = e.State
}
