package shoe

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// The journal keeps every input beside the events it produced, so that a restarted daemon
// rebuilds its machine by stepping the same inputs again (and checks it gets the same events).
// inputJSON is an input's durable form; inputs are never published.
type inputJSON struct {
	Kind     string          `json:"kind"`
	Time     time.Time       `json:"time"`
	Counts   *card.Counts    `json:"counts,omitempty"`
	Cards    int             `json:"cards,omitempty"`
	By       string          `json:"by,omitempty"`
	At       int             `json:"at,omitempty"`
	Behind   int             `json:"behind,omitempty"`
	Read     ReadKind        `json:"read,omitempty"`
	Card     card.Card       `json:"card,omitempty"`
	BurnMode bool            `json:"burn_mode,omitempty"`
	Detail   string          `json:"detail,omitempty"`
	Seen     []card.Card     `json:"seen,omitempty"`
	Raw      string          `json:"raw,omitempty"`
	Bets     []games.Bet     `json:"bets,omitempty"`
	Seat     int             `json:"seat,omitempty"`
	Choice   string          `json:"choice,omitempty"`
	Device   string          `json:"device,omitempty"`
	Code     string          `json:"code,omitempty"`
	Action   string          `json:"action,omitempty"`
	Amount   int64           `json:"amount,omitempty"`
	Open     bool            `json:"open,omitempty"`
	Round    uint64          `json:"round,omitempty"`
	Award    *tablebus.Award `json:"award,omitempty"`
	Approved string          `json:"approved,omitempty"`
	Op       string          `json:"op,omitempty"`
	Limits   []games.Limit   `json:"limits,omitempty"`
	// Bare says that Limits is an empty list (every limit lifted), not absent.
	Bare     bool `json:"bare,omitempty"`
	Attested bool `json:"attested,omitempty"`
}

// MarshalInput encodes an input for the journal.
func MarshalInput(in Input) ([]byte, error) {
	j := inputJSON{Time: in.when().UTC()}
	switch in := in.(type) {
	case NewCards:
		j.Kind, j.Counts, j.By, j.Attested = "new-cards", &in.Counts, in.By, in.Attested
	case ShuffleDone:
		j.Kind, j.Cards, j.By = "shuffled", in.Cards, in.By
	case CutDone:
		j.Kind, j.At, j.By = "cut", in.At, in.Dealer
	case CutCardPlaced:
		j.Kind, j.Behind, j.By = "cutcard", in.Behind, in.Dealer
	case Read:
		j.Kind, j.Read, j.Card, j.BurnMode, j.Detail, j.Seen, j.Raw = "read", in.Kind, in.Card, in.BurnMode, in.Detail, in.Seen, in.Raw
	case OpenRound:
		j.Kind, j.Bets, j.By = "bets", in.Bets, in.Dealer
	case PlayerDecision:
		j.Kind, j.Seat, j.Choice, j.By = "decision", in.Seat, in.Choice, in.Dealer
	case ManualCard:
		j.Kind, j.Card, j.By, j.Approved = "manual", in.Card, in.Dealer, in.Supervisor
	case VoidRound:
		j.Kind, j.Detail, j.By, j.Approved = "void", in.Reason, in.Dealer, in.Supervisor
	case LeftCounted:
		j.Kind, j.Counts, j.By = "left", &in.Counts, in.By
	case DeviceFault:
		j.Kind, j.Device, j.Code, j.Detail = "device-fault", in.Device, in.Code, in.Detail
	case TableAction:
		j.Kind, j.Action, j.Seat, j.Amount, j.By = "table", in.Action.Action, in.Action.Seat, in.Action.Amount, in.Dealer
	case ProgressiveLink:
		j.Kind, j.Open, j.Detail = "progressive-link", in.Open, in.Reason
	case ProgressiveAward:
		j.Kind, j.Award = "progressive-award", &in.Award
	case ProgressiveTimeout:
		j.Kind, j.Round = "progressive-timeout", in.Round
	case EndShoe:
		j.Kind, j.By = "end-shoe", in.By
	case TableOp:
		j.Kind, j.Op, j.By, j.Approved, j.Detail = "table-op", in.Op, in.By, in.Approved, in.Reason
	case ChangeLimits:
		j.Kind, j.Limits, j.By, j.Approved, j.Bare = "limits", in.Limits, in.Dealer, in.Supervisor, len(in.Limits) == 0
	default:
		return nil, fmt.Errorf("shoe: cannot journal input %T", in)
	}
	return json.Marshal(j)
}

// UnmarshalInput decodes a journaled input.
func UnmarshalInput(b []byte) (Input, error) {
	var j inputJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return nil, fmt.Errorf("shoe: journaled input: %w", err)
	}
	t := j.Time
	counts := func() (card.Counts, error) {
		if j.Counts == nil {
			return card.Counts{}, fmt.Errorf("shoe: journaled %s input without counts", j.Kind)
		}
		return *j.Counts, nil
	}
	switch j.Kind {
	case "new-cards":
		c, err := counts()
		return NewCards{Counts: c, By: j.By, Attested: j.Attested, Time: t}, err
	case "shuffled":
		return ShuffleDone{Cards: j.Cards, By: j.By, Time: t}, nil
	case "cut":
		return CutDone{At: j.At, Dealer: j.By, Time: t}, nil
	case "cutcard":
		return CutCardPlaced{Behind: j.Behind, Dealer: j.By, Time: t}, nil
	case "read":
		return Read{Kind: j.Read, Card: j.Card, BurnMode: j.BurnMode, Detail: j.Detail, Seen: j.Seen, Raw: j.Raw, Time: t}, nil
	case "bets":
		return OpenRound{Bets: j.Bets, Dealer: j.By, Time: t}, nil
	case "decision":
		return PlayerDecision{Seat: j.Seat, Choice: j.Choice, Dealer: j.By, Time: t}, nil
	case "manual":
		return ManualCard{Card: j.Card, Dealer: j.By, Supervisor: j.Approved, Time: t}, nil
	case "void":
		return VoidRound{Reason: j.Detail, Dealer: j.By, Supervisor: j.Approved, Time: t}, nil
	case "left":
		c, err := counts()
		return LeftCounted{Counts: c, By: j.By, Time: t}, err
	case "table":
		return TableAction{Action: games.Action{Action: j.Action, Seat: j.Seat, Amount: j.Amount}, Dealer: j.By, Time: t}, nil
	case "end-shoe":
		return EndShoe{By: j.By, Time: t}, nil
	case "table-op":
		return TableOp{Op: j.Op, By: j.By, Approved: j.Approved, Reason: j.Detail, Time: t}, nil
	case "limits":
		if j.Limits == nil && !j.Bare {
			return nil, fmt.Errorf("shoe: journaled limits input without limits")
		}
		if j.Bare {
			j.Limits = []games.Limit{}
		}
		return ChangeLimits{Limits: j.Limits, Dealer: j.By, Supervisor: j.Approved, Time: t}, nil
	case "device-fault":
		return DeviceFault{Device: j.Device, Code: j.Code, Detail: j.Detail, Time: t}, nil
	case "progressive-link":
		return ProgressiveLink{Open: j.Open, Reason: j.Detail, Time: t}, nil
	case "progressive-award":
		if j.Award == nil {
			return nil, fmt.Errorf("shoe: journaled progressive-award input without its award")
		}
		return ProgressiveAward{Award: *j.Award, Time: t}, nil
	case "progressive-timeout":
		return ProgressiveTimeout{Round: j.Round, Time: t}, nil
	}
	return nil, fmt.Errorf("shoe: unknown journaled input %q", j.Kind)
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
