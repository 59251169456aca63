package vision

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Label is one row of a labels.csv file (`file,card,view`): a frame and what it shows.
type Label struct {
	File string // a file name relative to the labels file's directory
	Kind Kind   // Card, Cut, Back or None
	Card card.Card
	View View
	// Group is the view column as written: "shoe", "table", or "none" for an empty reader
	// window (a shoe frame). Evaluations count each group apart.
	Group string
}

// Token returns the label's card, "CUT", "BACK" or "NONE".
func (l Label) Token() string { return Result{Kind: l.Kind, Card: l.Card}.Token() }

// ErrLabels is wrapped by every ReadLabels error.
var ErrLabels = errors.New("vision: labels")

// ReadLabels reads a labels.csv: a header `file,card,view`, then one frame per line. File names
// must be plain relative paths (no "..", not absolute).
func ReadLabels(r io.Reader) ([]Label, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = 3
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrLabels, err)
	}
	if strings.TrimPrefix(head[0], "\ufeff") != "file" || head[1] != "card" || head[2] != "view" {
		return nil, fmt.Errorf("%w: header is %q, want file,card,view", ErrLabels, strings.Join(head, ","))
	}
	var out []Label
	seen := map[string]bool{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrLabels, err)
		}
		f := rec[0]
		if f == "" || path.IsAbs(f) || strings.HasPrefix(path.Clean(f), "..") || strings.ContainsRune(f, '\\') {
			return nil, fmt.Errorf("%w: line %d: file %q is not a plain relative path", ErrLabels, line, f)
		}
		if seen[f] {
			return nil, fmt.Errorf("%w: line %d: file %q listed twice", ErrLabels, line, f)
		}
		seen[f] = true
		k, c, err := ParseToken(rec[1])
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrLabels, line, err)
		}
		v, err := ParseView(rec[2])
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %w", ErrLabels, line, err)
		}
		out = append(out, Label{File: f, Kind: k, Card: c, View: v, Group: rec[2]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no frames listed", ErrLabels)
	}
	return out, nil
}
