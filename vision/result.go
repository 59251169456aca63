package vision

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Kind is what a frame (or a combined card passage) was read as.
type Kind uint8

// The kinds of RULES.md §0: a card, the cut card, a card seen face down, nothing in the reader;
// and Reject, a frame that could not be read with confidence (RULES.md §1 "Misread").
const (
	Reject Kind = iota // the zero value: never a card by accident
	Card
	Cut
	Back
	None
)

var kindNames = [...]string{Reject: "reject", Card: "card", Cut: "CUT", Back: "BACK", None: "NONE"}

// String returns "card", "CUT", "BACK", "NONE" or "reject".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", k)
}

// Result is what the recognizer says about one frame.
type Result struct {
	Kind Kind
	// Card is the card read when Kind is Card, card.None otherwise.
	Card card.Card
	// Confidence is in [0, 1]: how far the answer stands above the next best one. A rejection
	// carries the confidence of the best candidate it turned down.
	Confidence float64
	// Reason says why a frame was rejected ("index does not match any card", …); empty otherwise.
	Reason string
	// Elapsed is the time the recognizer spent on the frame.
	Elapsed time.Duration
	// Evidence is what the answer was decided from, for combining a card's frames (nil when
	// the frame gave none: no card outline, or an unusable frame).
	Evidence *Evidence
}

// Evidence is one frame's distances as its recognizer measures them, in its order (NaN where a
// class could not be measured): vision/cv's, every class's, then every class's blank's. A
// Combiner averages it over the frames of one card passage and asks the recognizer's Judge to
// decide, by the same rule as for one frame.
type Evidence struct {
	Dist []float64
	// Fits says whether the frame's best class is within the rule's distance: the frame shows a
	// card of the deck as calibrated. A frame that fits no class (the card half out of the
	// window, a blur) tells nothing of which card it is and is left out of the average.
	Fits bool
}

// A Judge decides from evidence: the recognizer that made it.
type Judge interface {
	Judge(dist []float64) Result
}

// Token returns the RULES.md §0 token for the result: a card ("Qh"), "CUT", "BACK" or "NONE";
// the empty string for a rejection.
func (r Result) Token() string {
	switch r.Kind {
	case Card:
		if r.Card.Valid() {
			return r.Card.String()
		}
	case Cut:
		return "CUT"
	case Back:
		return "BACK"
	case None:
		return "NONE"
	}
	return ""
}

// String is for people and logs: "Qh (0.98)", "CUT (0.91)", "reject: index does not match any card".
func (r Result) String() string {
	if t := r.Token(); t != "" {
		return fmt.Sprintf("%s (%.2f)", t, r.Confidence)
	}
	return "reject: " + r.Reason
}

// Rejected returns a rejection with the given reason and the confidence of the best candidate.
func Rejected(reason string, confidence float64) Result {
	return Result{Kind: Reject, Reason: reason, Confidence: confidence}
}

// ParseToken reads a label or a printed result: a card in RULES.md §0 notation, "CUT", "BACK" or
// "NONE". It returns the Kind and, for a card, the card.
func ParseToken(s string) (Kind, card.Card, error) {
	switch s {
	case "CUT":
		return Cut, card.None, nil
	case "BACK":
		return Back, card.None, nil
	case "NONE":
		return None, card.None, nil
	}
	c, err := card.Parse(s)
	if err != nil {
		return Reject, card.None, fmt.Errorf("vision: %q is not a card, CUT, BACK or NONE: %w", s, err)
	}
	return Card, c, nil
}

// resultJSON is the wire form of a Result: {"card":"Qh","confidence":0.98} or
// {"card":null,"reject":"…","confidence":0.4}, as `sabot vision read` prints it.
type resultJSON struct {
	Card       *string `json:"card"`
	Confidence float64 `json:"confidence"`
	Reject     string  `json:"reject,omitempty"`
}

// MarshalJSON writes the wire form; Elapsed is left to the caller (it is not part of a result's
// identity).
func (r Result) MarshalJSON() ([]byte, error) {
	out := resultJSON{Confidence: round3(r.Confidence)}
	if t := r.Token(); t != "" {
		out.Card = &t
	} else {
		out.Reject = r.Reason
		if out.Reject == "" {
			out.Reject = "unreadable"
		}
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads the wire form back.
func (r *Result) UnmarshalJSON(b []byte) error {
	var in resultJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return fmt.Errorf("vision: result: %w", err)
	}
	if in.Confidence < 0 || in.Confidence > 1 {
		return fmt.Errorf("vision: result: confidence %v outside [0, 1]", in.Confidence)
	}
	if in.Card == nil {
		if in.Reject == "" {
			return fmt.Errorf("vision: result: neither a card nor a reject reason")
		}
		*r = Rejected(in.Reject, in.Confidence)
		return nil
	}
	if in.Reject != "" {
		return fmt.Errorf("vision: result: both a card and a reject reason")
	}
	k, c, err := ParseToken(*in.Card)
	if err != nil {
		return err
	}
	*r = Result{Kind: k, Card: c, Confidence: in.Confidence}
	return nil
}

func round3(v float64) float64 {
	if v != v { // NaN
		return 0
	}
	return float64(int64(v*1000+0.5)) / 1000
}
