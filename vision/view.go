package vision

import "fmt"

// View is where a frame comes from: the shoe's reader window, or a table camera.
type View uint8

const (
	// Shoe is the card-reading shoe's reader window: one index corner of the card as it slides
	// out, either end first, small rotation, motion blur along the slide.
	Shoe View = iota + 1
	// Table is a camera above the felt: a whole card anywhere, any rotation, some perspective.
	Table
)

// String returns "shoe" or "table", as labels.csv writes them.
func (v View) String() string {
	switch v {
	case Shoe:
		return "shoe"
	case Table:
		return "table"
	}
	return fmt.Sprintf("View(%d)", v)
}

// ParseView reads "shoe" or "table". labels.csv also writes "none" for an empty reader window,
// which is a shoe frame, and "photo" for a photograph of a card lying anywhere, a table frame.
func ParseView(s string) (View, error) {
	switch s {
	case "shoe", "none":
		return Shoe, nil
	case "table", "photo":
		return Table, nil
	}
	return 0, fmt.Errorf("vision: unknown view %q (want shoe, table or none)", s)
}
