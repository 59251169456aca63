// Package simcam is the simulated reader camera: a cv.Source of frames rendered by visiontest,
// and a profile calibrated on a rendered pass, for the daemon's simulation and for tests.
package simcam

import (
	"context"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/vision/cv"
	"github.com/sabot-tables/sabot/vision/visiontest"
)

// simPerturbations: the simulated camera's rule is derived from 8 perturbed frames of each
// calibration frame, not a technician's 40, so that `make run` and the daemon's tests start in
// a minute; its estimate of the false-accept rate is the coarser for it.
const simPerturbations = 8

// Calibrate renders a calibration pass of r's deck (in a temporary directory) and learns a
// profile from it, for the shoe camera named camera; it ends between two frames when ctx does.
func Calibrate(ctx context.Context, r *visiontest.Renderer, rng *rand.Rand, camera string) (*calibration.VisionProfile, error) {
	dir, err := os.MkdirTemp("", "sabot-calib-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	if err := r.WriteCalibrationContext(ctx, dir, rng); err != nil {
		return nil, err
	}
	return cv.CalibrateDirs(ctx, []string{dir}, cv.CalibrateOptions{Deck: r.Deck().Name, Camera: camera, Perturbations: simPerturbations})
}

// CameraShoe is a simulated reader camera: a cv.Source of rendered frames. Pass queues the frames
// of one card crossing the window (its top sliding up from the bottom of the window to the top);
// with nothing queued, Read shows the empty window. Frames come at the given frame rate (Read
// waits for the next frame time, or returns at once when FPS is 0).
type CameraShoe struct {
	r   *visiontest.Renderer
	rng *rand.Rand
	fps float64

	mu     sync.Mutex
	queue  []shoeFrame
	seq    int64
	last   time.Time
	closed bool
	asp    float64
	look   visiontest.Look // the light of the current passage
}

type shoeFrame struct {
	s    visiontest.Subject
	look visiontest.Look
}

var _ cv.Source = (*CameraShoe)(nil)

// NewCameraShoe simulates a reader camera showing r's cards, at fps frames a second (0: as fast
// as Read is called). Its randomness comes from seed.
func NewCameraShoe(r *visiontest.Renderer, fps float64, seed uint64) (*CameraShoe, error) {
	asp, err := r.Aspect()
	if err != nil {
		return nil, err
	}
	return &CameraShoe{r: r, rng: rand.New(rand.NewPCG(seed, seed^0x5ab07)), fps: fps, asp: asp}, nil
}

// PassFrames is how many frames a card takes to cross the window.
const PassFrames = 6

// Pass queues one card's passage (a card, "BACK" as Token, or a cut card): PassFrames frames, the
// card's top edge moving up the window, under one light and either end first.
func (s *CameraShoe) Pass(sub visiontest.Subject) {
	s.mu.Lock()
	defer s.mu.Unlock()
	base := visiontest.RandomShoeLook(s.rng, visiontest.Hard, s.asp)
	// Slide the card: its top edge from low in the window to the top, then past it.
	tops := []float64{150, 95, 55, 30, 12, -15}
	for i := 0; i < PassFrames; i++ {
		l := base
		dy := tops[i%len(tops)] - base.Corners[0][1]
		for k := range l.Corners {
			l.Corners[k][1] += dy
		}
		s.queue = append(s.queue, shoeFrame{s: sub, look: l})
	}
}

// Gap queues n frames of the empty window: the pause between two cards.
func (s *CameraShoe) Gap(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.queue = append(s.queue, shoeFrame{s: visiontest.Empty, look: visiontest.RandomShoeLook(s.rng, visiontest.Hard, s.asp)})
	}
}

// Pending returns how many frames are queued.
func (s *CameraShoe) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Read renders the next frame: the next queued frame, or the empty window.
func (s *CameraShoe) Read(ctx context.Context, dst *gocv.Mat) (cv.FrameInfo, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return cv.FrameInfo{}, cv.ErrSourceClosed
	}
	var f shoeFrame
	if len(s.queue) > 0 {
		f = s.queue[0]
		s.queue = s.queue[1:]
	} else {
		f = shoeFrame{s: visiontest.Empty, look: visiontest.RandomShoeLook(s.rng, visiontest.Hard, s.asp)}
	}
	wait := time.Duration(0)
	if s.fps > 0 && !s.last.IsZero() {
		wait = time.Until(s.last.Add(time.Duration(float64(time.Second) / s.fps)))
	}
	rng := rand.New(rand.NewPCG(s.rng.Uint64(), s.rng.Uint64()))
	s.mu.Unlock()
	if wait > 0 {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return cv.FrameInfo{}, ctx.Err()
		case <-t.C:
		}
	}
	if err := ctx.Err(); err != nil {
		return cv.FrameInfo{}, err
	}
	if err := s.r.Render(dst, visiontest.ShoeSize, f.s, f.look, rng); err != nil {
		return cv.FrameInfo{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	s.last = time.Now()
	return cv.FrameInfo{Seq: s.seq, Time: s.last}, nil
}

// Close ends the simulation; Read then returns cv.ErrSourceClosed.
func (s *CameraShoe) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.queue = nil
	return nil
}

// String returns "simulated reader camera (anglo)".
func (s *CameraShoe) String() string { return "simulated reader camera (" + s.r.Deck().Name + ")" }
