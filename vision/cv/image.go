package cv

import (
	"errors"
	"fmt"
	"os"

	"gocv.io/x/gocv"
)

// MaxImageBytes bounds an encoded frame read from a file or given as bytes.
const MaxImageBytes = 16 << 20

// ErrFrame is wrapped by every error about a frame's content: empty, undecodable, wrong size.
var ErrFrame = errors.New("vision: bad frame")

// checkFrame refuses what the recognizer cannot use: an empty Mat, one that is not 8-bit BGR.
func checkFrame(m gocv.Mat) error {
	if m.Empty() {
		return fmt.Errorf("%w: empty image", ErrFrame)
	}
	if m.Type() != gocv.MatTypeCV8UC3 {
		return fmt.Errorf("%w: %v pixels, want 8-bit colour", ErrFrame, m.Type())
	}
	if m.Cols() < 32 || m.Rows() < 32 {
		return fmt.Errorf("%w: %dx%d is too small", ErrFrame, m.Cols(), m.Rows())
	}
	return nil
}

// DecodeImage decodes an encoded image (JPEG, PNG, BMP …) into an 8-bit BGR Mat that the caller
// must Close. Bad bytes are an error, never a crash; with an error the Mat holds nothing (closing
// it does no harm).
func DecodeImage(b []byte) (gocv.Mat, error) {
	if len(b) == 0 {
		return gocv.Mat{}, fmt.Errorf("%w: no bytes", ErrFrame)
	}
	if len(b) > MaxImageBytes {
		return gocv.Mat{}, fmt.Errorf("%w: %d bytes is more than %d", ErrFrame, len(b), MaxImageBytes)
	}
	m, err := gocv.IMDecode(b, gocv.IMReadColor)
	if err != nil {
		m.Close()
		return gocv.Mat{}, fmt.Errorf("%w: %w", ErrFrame, err)
	}
	if m.Empty() {
		m.Close()
		return gocv.Mat{}, fmt.Errorf("%w: not an image OpenCV can decode", ErrFrame)
	}
	return m, nil
}

// ReadImage reads and decodes an image file, as DecodeImage; errors name the file.
func ReadImage(path string) (gocv.Mat, error) {
	st, err := os.Stat(path)
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("vision: %w", err)
	}
	if st.Size() > MaxImageBytes {
		return gocv.Mat{}, fmt.Errorf("%w: %s: %d bytes is more than %d", ErrFrame, path, st.Size(), MaxImageBytes)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("vision: %w", err)
	}
	m, err := DecodeImage(b)
	if err != nil {
		return gocv.Mat{}, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}
