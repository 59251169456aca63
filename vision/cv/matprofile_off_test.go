//go:build !matprofile

package cv

// openMats counts nothing without -tags matprofile: gocv only keeps count with that tag.
func openMats() (int, string) { return 0, "" }
