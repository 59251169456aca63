//go:build matprofile

package cv

import (
	"bytes"

	"gocv.io/x/gocv"
)

// openMats counts the Mats not yet closed, with where they were made.
func openMats() (int, string) {
	var b bytes.Buffer
	gocv.MatProfile.WriteTo(&b, 1)
	return gocv.MatProfile.Count(), b.String()
}
