package cv_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/sabot-tables/sabot/vision"
	"github.com/sabot-tables/sabot/vision/cv"
)

// A technician's calibration pass (one frame per card, named by card) makes a profile; a
// recognizer built from it reads the reader camera's frames.
func Example() {
	dev := os.Getenv("SABOT_VISION_DEV")
	if dev == "" {
		dev = filepath.Join("..", "..", "..", "shared", "vision-dev")
	}
	deck := filepath.Join(dev, "tango")
	p, err := cv.CalibrateDir(filepath.Join(deck, "calib"), cv.CalibrateOptions{Deck: "tango", Camera: "shoe-reader"})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := cv.New(p, vision.Shoe)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer r.Close()
	for _, f := range []string{"Qh.jpg", "CUT.jpg", "BACK.jpg"} {
		res, err := r.RecognizeFile(filepath.Join(deck, "calib", f))
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Println(f, res.Token())
	}
	// Output:
	// Qh.jpg Qh
	// CUT.jpg CUT
	// BACK.jpg BACK
}
