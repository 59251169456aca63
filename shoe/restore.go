package shoe

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/tablebus"

	"github.com/sabot-tables/sabot/tablebus/journal"
)

// Journal is what Restore reads of a table's journal (tablebus/journal.Journal).
type Journal interface {
	OpenShoe(ctx context.Context) ([]journal.Step, int, uint64, error)
	EngineState(ctx context.Context, seq uint64) (json.RawMessage, error)
	LastOf(ctx context.Context, seq uint64, types ...tablebus.Type) ([]byte, error)
	NextSeq() uint64
}

// Restore builds a table's machine from its journal, as a restarted daemon must: the shoe and
// round counters where they were, the engine's state across shoes (the chemin de fer bank) given
// back, and the open shoe, if any, replayed input by input with every event checked byte for
// byte against the journal (Replay). cfg's FirstShoe and FirstRound are set from the journal.
func Restore(ctx context.Context, j Journal, cfg Config) (*Machine, error) {
	steps, shoes, lastRound, err := j.OpenShoe(ctx)
	if err != nil {
		return nil, err
	}
	cfg.FirstShoe, cfg.FirstRound = uint64(shoes), lastRound
	m, err := NewMachine(cfg)
	if err != nil {
		return nil, err
	}
	// The engine's state: as it was when the open shoe was loaded, or as it was last.
	at := j.NextSeq()
	if len(steps) > 0 {
		at = steps[0].Events[0].Seq
	}
	state, err := j.EngineState(ctx, at)
	if err != nil {
		return nil, err
	}
	if err := m.RestoreEngine(state); err != nil {
		return nil, err
	}
	// The table's state across shoes: closed or open, and the limits a supervisor set.
	var closed bool
	var limits []games.Limit
	if b, err := j.LastOf(ctx, at, tablebus.TableOpened, tablebus.TableClosed); err != nil {
		return nil, err
	} else if b != nil {
		e, err := tablebus.Decode(b)
		if err != nil {
			return nil, fmt.Errorf("shoe: restoring the table's state: %w", err)
		}
		closed = e.Type == tablebus.TableClosed
	}
	if b, err := j.LastOf(ctx, at, tablebus.LimitsChanged); err != nil {
		return nil, err
	} else if b != nil {
		e, err := tablebus.Decode(b)
		if err != nil {
			return nil, fmt.Errorf("shoe: restoring the table's limits: %w", err)
		}
		limits = tablebus.GameLimits(e.Limits)
		if limits == nil {
			limits = []games.Limit{} // every limit lifted
		}
	}
	if err := m.RestoreTable(closed, limits); err != nil {
		return nil, err
	}
	js := make([]JournaledStep, len(steps))
	for i, st := range steps {
		js[i].Input = st.Input
		for _, r := range st.Events {
			js[i].Events = append(js[i].Events, r.Secure)
		}
	}
	if err := Replay(m, js); err != nil {
		return nil, err
	}
	return m, nil
}
