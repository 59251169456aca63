package cv

import "testing"

// The margins round the card take the card's own pixels, mirrored at its sides and its top: the
// felt never reaches the local mean.
func TestMirrorMargins(t *testing.T) {
	const rows, cardTop = fineMargin + 6, fineMargin
	px := make([]float32, fineW*rows*3)
	val := func(x, y int) float32 { return float32(1000*y + x) }
	for y := range rows {
		for x := range fineW {
			v := float32(-1) // the felt
			if y >= cardTop && x >= fineMargin && x < fineMargin+fineScale {
				v = val(x, y)
			}
			for c := range 3 {
				px[(y*fineW+x)*3+c] = v
			}
		}
	}
	mirrorMargins(px, rows, cardTop)
	for y := range rows {
		for x := range fineW {
			sx, sy := x, y
			if x < fineMargin {
				sx = 2*fineMargin - 1 - x
			}
			if x >= fineMargin+fineScale {
				sx = 2*(fineMargin+fineScale) - 1 - x
			}
			if y < cardTop {
				sy = 2*cardTop - 1 - y
			}
			for c := range 3 {
				if got, want := px[(y*fineW+x)*3+c], val(sx, sy); got != want {
					t.Fatalf("pixel (%d, %d) channel %d: %v, want the card's (%d, %d): %v", x, y, c, got, sx, sy, want)
				}
			}
		}
	}
}
