//go:build !amd64

package cv

func dotVec(a, b []float32) (float32, bool)    { return 0, false }
func dotRevVec(a, b []float32) (float32, bool) { return 0, false }
