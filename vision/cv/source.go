package cv

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/vision"
)

// FrameInfo describes one frame a Source delivered.
type FrameInfo struct {
	Seq  int64     // 1, 2, … in the order delivered
	Time time.Time // when it was captured (read, for files)
	Name string    // the file it came from, for a directory source; "" otherwise
}

// Source delivers camera frames: a V4L2 camera (OpenDevice), a directory of images (OpenDir) or
// a video file (OpenVideo), and the simulator's rendered frames (vision/visiontest). Read fills
// dst with the next 8-bit BGR frame; it returns io.EOF after the last frame of a directory or a
// file. A Source is not safe for concurrent use. Close is idempotent.
type Source interface {
	Read(ctx context.Context, dst *gocv.Mat) (FrameInfo, error)
	Close() error
	String() string
}

var (
	_ Source = (*DeviceSource)(nil)
	_ Source = (*DirSource)(nil)
	_ Source = (*VideoSource)(nil)
)

// ErrSourceClosed is returned by Read after Close.
var ErrSourceClosed = errors.New("vision: source closed")

// DeviceOptions sets up a camera. Zero values leave the camera's own setting.
type DeviceOptions struct {
	Width, Height int     // frame size to ask for
	FPS           float64 // frame rate to ask for
}

// DeviceSource reads a V4L2 camera (/dev/videoN) through OpenCV.
type DeviceSource struct {
	path string
	mu   sync.Mutex
	cap  *gocv.VideoCapture
	seq  int64
	now  func() time.Time
}

// OpenDevice opens a V4L2 camera by path ("/dev/video0") or number ("0"). A camera that is not
// there, or that gives no frames, is an error naming it.
func OpenDevice(path string, opt DeviceOptions) (*DeviceSource, error) {
	n := -1
	if _, err := fmt.Sscanf(strings.TrimPrefix(path, "/dev/video"), "%d", &n); err != nil || n < 0 {
		return nil, fmt.Errorf("vision: camera %q: want /dev/videoN or N", path)
	}
	if _, err := os.Stat(fmt.Sprintf("/dev/video%d", n)); err != nil {
		return nil, fmt.Errorf("vision: camera %s: %w", path, err)
	}
	c, err := gocv.VideoCaptureDeviceWithAPI(n, gocv.VideoCaptureV4L2)
	if err != nil || !c.IsOpened() {
		c.Close()
		return nil, fmt.Errorf("vision: camera %s: cannot open it (in use, or not a capture device?)", path)
	}
	if opt.Width > 0 && opt.Height > 0 {
		c.Set(gocv.VideoCaptureFrameWidth, float64(opt.Width))
		c.Set(gocv.VideoCaptureFrameHeight, float64(opt.Height))
	}
	if opt.FPS > 0 {
		c.Set(gocv.VideoCaptureFPS, opt.FPS)
	}
	return &DeviceSource{path: path, cap: c, now: time.Now}, nil
}

// Read waits for the camera's next frame. The camera gives one every frame period, so a
// cancelled ctx is noticed within one frame.
func (s *DeviceSource) Read(ctx context.Context, dst *gocv.Mat) (FrameInfo, error) {
	if err := ctx.Err(); err != nil {
		return FrameInfo{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cap == nil {
		return FrameInfo{}, ErrSourceClosed
	}
	if !s.cap.Read(dst) || dst.Empty() {
		return FrameInfo{}, fmt.Errorf("vision: camera %s: no frame (unplugged?)", s.path)
	}
	if err := checkFrame(*dst); err != nil {
		return FrameInfo{}, fmt.Errorf("vision: camera %s: %w", s.path, err)
	}
	s.seq++
	return FrameInfo{Seq: s.seq, Time: s.now()}, nil
}

// Close releases the camera.
func (s *DeviceSource) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cap != nil {
		s.cap.Close()
		s.cap = nil
	}
	return nil
}

// Halt is Close: it leaves the camera released.
func (s *DeviceSource) Halt() error { return s.Close() }

// String returns "camera /dev/video0".
func (s *DeviceSource) String() string { return "camera " + s.path }

// imageExts are the file kinds a directory source reads.
var imageExts = map[string]bool{".jpg": true, ".jpeg": true, ".png": true, ".bmp": true, ".ppm": true}

// DirSource replays a directory of images in name order, for tests and for replaying captured
// frames. Loop starts over after the last one instead of returning io.EOF.
type DirSource struct {
	dir   string
	files []string
	next  int
	seq   int64
	Loop  bool
	now   func() time.Time
}

// OpenDir lists the images (.jpg, .jpeg, .png, .bmp, .ppm) in dir. An empty directory is an error.
func OpenDir(dir string) (*DirSource, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	s := &DirSource{dir: dir, now: time.Now}
	for _, e := range entries {
		if !e.IsDir() && imageExts[strings.ToLower(filepath.Ext(e.Name()))] {
			s.files = append(s.files, e.Name())
		}
	}
	if len(s.files) == 0 {
		return nil, fmt.Errorf("vision: %s: no images", dir)
	}
	sort.Strings(s.files)
	return s, nil
}

// Read decodes the next image. A file that does not decode is an error naming it; the next Read
// goes on with the file after it.
func (s *DirSource) Read(ctx context.Context, dst *gocv.Mat) (FrameInfo, error) {
	if err := ctx.Err(); err != nil {
		return FrameInfo{}, err
	}
	if s.files == nil {
		return FrameInfo{}, ErrSourceClosed
	}
	if s.next >= len(s.files) {
		if !s.Loop {
			return FrameInfo{}, io.EOF
		}
		s.next = 0
	}
	name := s.files[s.next]
	s.next++
	m, err := ReadImage(filepath.Join(s.dir, name))
	defer m.Close()
	if err != nil {
		return FrameInfo{Name: name}, err
	}
	m.CopyTo(dst)
	s.seq++
	return FrameInfo{Seq: s.seq, Time: s.now(), Name: name}, nil
}

// Close ends the replay.
func (s *DirSource) Close() error {
	s.files = nil
	return nil
}

// Len returns how many images the directory holds.
func (s *DirSource) Len() int { return len(s.files) }

// String returns "images in DIR".
func (s *DirSource) String() string { return "images in " + s.dir }

// VideoSource replays a video file (one OpenCV can decode: MJPEG AVI always, others through
// FFmpeg where it is installed).
type VideoSource struct {
	path string
	cap  *gocv.VideoCapture
	seq  int64
	now  func() time.Time
}

// OpenVideo opens a video file for replay.
func OpenVideo(path string) (*VideoSource, error) {
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("vision: %w", err)
	}
	c, err := gocv.VideoCaptureFile(path)
	if err != nil || !c.IsOpened() {
		c.Close()
		return nil, fmt.Errorf("vision: %s: not a video OpenCV can read", path)
	}
	return &VideoSource{path: path, cap: c, now: time.Now}, nil
}

// Read decodes the next frame; io.EOF after the last.
func (s *VideoSource) Read(ctx context.Context, dst *gocv.Mat) (FrameInfo, error) {
	if err := ctx.Err(); err != nil {
		return FrameInfo{}, err
	}
	if s.cap == nil {
		return FrameInfo{}, ErrSourceClosed
	}
	if !s.cap.Read(dst) || dst.Empty() {
		return FrameInfo{}, io.EOF
	}
	if err := checkFrame(*dst); err != nil {
		return FrameInfo{}, fmt.Errorf("vision: %s frame %d: %w", s.path, s.seq+1, err)
	}
	s.seq++
	return FrameInfo{Seq: s.seq, Time: s.now()}, nil
}

// Close releases the file.
func (s *VideoSource) Close() error {
	if s.cap != nil {
		s.cap.Close()
		s.cap = nil
	}
	return nil
}

// String returns "video FILE".
func (s *VideoSource) String() string { return "video " + s.path }

// Reader reads a source through a recognizer: each Next is one frame's Result. It is what the
// camera shoe's loop consumes (with the card-exit sensor's edges framing each card for a
// vision.Combiner), so that nothing outside vision/ handles an OpenCV Mat. Not safe for
// concurrent use.
type Reader struct {
	src   Source
	rec   *Recognizer
	frame gocv.Mat
}

// NewReader reads src with rec. Close closes both.
func NewReader(src Source, rec *Recognizer) *Reader {
	return &Reader{src: src, rec: rec, frame: gocv.NewMat()}
}

// Next reads and recognizes one frame. Source errors (io.EOF at the end of a replay, a camera
// gone) are returned as they are; a frame the recognizer cannot use at all is an error too, and
// the next call goes on with the next frame.
func (r *Reader) Next(ctx context.Context) (vision.Result, FrameInfo, error) {
	if r.rec == nil {
		return vision.Result{}, FrameInfo{}, ErrSourceClosed
	}
	info, err := r.src.Read(ctx, &r.frame)
	if err != nil {
		return vision.Result{}, info, err
	}
	res, err := r.rec.Recognize(r.frame)
	if err != nil {
		return vision.Result{}, info, fmt.Errorf("%s frame %d: %w", r.src, info.Seq, err)
	}
	return res, info, nil
}

// Judge returns what decides a passage of the reader's frames: its recognizer's rule. Judging
// reads only the profile's templates and rule, never the recognizer's working Mats, so it may
// run beside Next.
func (r *Reader) Judge() vision.Judge {
	if r.rec == nil {
		return nil // closed
	}
	return r.rec
}

// Close closes the source and the recognizer. It is idempotent.
func (r *Reader) Close() error {
	if r.rec == nil {
		return nil
	}
	err := r.src.Close()
	r.rec.Close()
	r.frame.Close()
	r.rec = nil
	return err
}

// String names the reader for logs.
func (r *Reader) String() string { return fmt.Sprintf("%s read by %s", r.src, r.rec) }
