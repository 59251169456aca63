package simcam_test

import (
	"context"
	"image/color"
	"math/rand/v2"
	"testing"

	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/vision"
	"github.com/sabot-tables/sabot/vision/cv"
	"github.com/sabot-tables/sabot/vision/visiontest"
	"github.com/sabot-tables/sabot/vision/visiontest/simcam"
)

// TestCameraShoe passes cards through the simulated reader camera, reads its frames and combines
// each passage by its evidence, as the daemon does: every passage is its card or a rejection,
// never another card, and the empty window between them reads NONE.
func TestCameraShoe(t *testing.T) {
	if testing.Short() {
		t.Skip("calibrates a rendered deck (-short)")
	}
	r := visiontest.NeedArt(t, "anglo")
	defer r.Close()
	p, err := simcam.Calibrate(t.Context(), r, rand.New(rand.NewPCG(1, 17)), "sim")
	if err != nil {
		t.Fatal(err)
	}
	rec, err := cv.New(p, vision.Shoe)
	if err != nil {
		t.Fatal(err)
	}
	cam, err := simcam.NewCameraShoe(r, 0, 3)
	if err != nil {
		t.Fatal(err)
	}
	reader := cv.NewReader(cam, rec)
	defer reader.Close()
	ctx := context.Background()
	empty := 0
	for range 5 {
		res, _, err := reader.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Kind == vision.None {
			empty++
		} else if res.Kind != vision.Reject {
			t.Errorf("the empty window read as %v", res)
		}
	}
	if empty < 4 {
		t.Errorf("%d of 5 frames of the empty window read NONE", empty)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	var subjects []visiontest.Subject
	for range 24 {
		subjects = append(subjects, visiontest.CardSubject(card.Deck()[rng.IntN(52)]))
	}
	subjects = append(subjects, visiontest.Subject{Token: "BACK"},
		visiontest.CutSubject(visiontest.Cut{Colour: color.RGBA{240, 200, 20, 0}, Word: "CUT", Ink: color.RGBA{20, 30, 120, 0}}))
	read := 0
	for _, s := range subjects {
		want := s.Token
		if s.Cut != nil {
			want = "CUT"
		}
		cam.Pass(s)
		c := vision.Combiner{Judge: rec}
		c.Begin()
		for cam.Pending() > 0 {
			res, _, err := reader.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			c.Add(res)
		}
		pass := c.End()
		switch got := pass.Result.Token(); got {
		case want:
			read++
		case "":
			t.Logf("%s rejected: %s", want, pass.Result.Reason)
		default:
			t.Errorf("passage of %s read as %s (%s)", want, got, pass.Tally)
		}
	}
	t.Logf("%d of %d passages read", read, len(subjects))
	if read < len(subjects)*3/4 {
		t.Errorf("only %d of %d passages read", read, len(subjects))
	}
}
