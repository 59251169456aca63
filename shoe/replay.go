package shoe

import (
	"bytes"
	"fmt"
)

// JournaledStep is one step as the journal kept it: the input (MarshalInput's JSON, nil for
// events no input produced) and the secure payloads of the events it produced.
type JournaledStep struct {
	Input  []byte
	Events [][]byte
}

// Replay steps m through journaled steps, so that a restarted daemon stands exactly where it
// stood: same shoe, same round, same engine state. Every step must produce exactly the events
// the journal holds, byte for byte; the first difference is an error naming the event (the
// journal was written by another configuration, or is damaged), and nothing is rewritten.
func Replay(m *Machine, steps []JournaledStep) error {
	m.replaying = true
	defer func() { m.replaying = false }()
	for _, st := range steps {
		if st.Input == nil {
			continue
		}
		in, err := UnmarshalInput(st.Input)
		if err != nil {
			return err
		}
		evs, err := m.Step(in)
		if err != nil {
			return fmt.Errorf("shoe: replaying the journal: a journaled input is refused now: %w", err)
		}
		if len(evs) != len(st.Events) {
			return fmt.Errorf("shoe: replaying the journal: a step gave %d events, the journal has %d (from event %s)", len(evs), len(st.Events), firstSeq(st.Events))
		}
		for i, e := range evs {
			var env envelope
			if err := jsonUnmarshal(st.Events[i], &env); err != nil {
				return fmt.Errorf("shoe: replaying the journal: %w", err)
			}
			e.V, e.Seq, e.Table, e.Source, e.Session = env.V, env.Seq, env.Table, env.Source, env.Session
			b, err := e.Marshal()
			if err != nil {
				return err
			}
			if !bytes.Equal(b, st.Events[i]) {
				return fmt.Errorf("shoe: replaying the journal: event %d differs:\n journal: %s\n  replay: %s", env.Seq, st.Events[i], b)
			}
		}
	}
	return nil
}

func firstSeq(evs [][]byte) string {
	if len(evs) == 0 {
		return "?"
	}
	var e envelope
	if jsonUnmarshal(evs[0], &e) != nil {
		return "?"
	}
	return fmt.Sprint(e.Seq)
}

// envelope is the part of a journaled event that a replay takes as it is.
type envelope struct {
	V       int    `json:"v"`
	Seq     uint64 `json:"seq"`
	Table   string `json:"table"`
	Source  string `json:"source"`
	Session uint64 `json:"session"`
}
