package readershoetest

import "github.com/sabot-tables/sabot/shoe/card"

// Unload takes every card left in the shoe out by hand, without reading them (the end of a
// shoe: the cards behind the stop card go to the shuffler to be counted). The cut card, if
// still inside, is put aside.
func (s *Sim) Unload() []card.Card {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []card.Card
	for _, it := range s.stack {
		if !it.Cut {
			out = append(out, it.Card)
		}
	}
	s.stack = nil
	return out
}
