package cv

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gocv.io/x/gocv"

	"github.com/sabot-tables/sabot/vision"
)

func TestDirSource(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(devDir(t), "tango", "calib")
	for _, n := range []string{"Qh.jpg", "2c.jpg", "As.jpg"} {
		b, err := os.ReadFile(filepath.Join(src, n))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, n), b, 0o644)
	}
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a frame"), 0o644)
	os.WriteFile(filepath.Join(dir, "B-broken.png"), []byte("broken"), 0o644)
	s, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Len() != 4 || s.String() != "images in "+dir {
		t.Fatalf("Len %d, %s", s.Len(), s)
	}
	m := gocv.NewMat()
	defer m.Close()
	ctx := context.Background()
	var names []string
	for {
		info, err := s.Read(ctx, &m)
		if err == io.EOF {
			break
		}
		if err != nil {
			if !errors.Is(err, ErrFrame) || !strings.Contains(err.Error(), "B-broken.png") {
				t.Fatalf("bad file: %v", err)
			}
			names = append(names, "!"+info.Name)
			continue
		}
		if m.Cols() != 320 {
			t.Fatalf("frame %dx%d", m.Cols(), m.Rows())
		}
		names = append(names, info.Name)
	}
	if got := strings.Join(names, " "); got != "2c.jpg As.jpg !B-broken.png Qh.jpg" {
		t.Errorf("read %s", got)
	}
	s.Loop = true
	if info, err := s.Read(ctx, &m); err != nil || info.Name != "2c.jpg" || info.Seq != 4 {
		t.Errorf("looping: %+v %v", info, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := s.Read(cctx, &m); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	s.Close()
	if _, err := s.Read(ctx, &m); !errors.Is(err, ErrSourceClosed) {
		t.Errorf("after Close: %v", err)
	}
	if _, err := OpenDir(t.TempDir()); err == nil || !strings.HasSuffix(err.Error(), ": no images") {
		t.Errorf("empty directory: %v", err)
	}
}

// TestVideoSource writes a short MJPEG video and replays it.
func TestVideoSource(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pass.avi")
	w, err := gocv.VideoWriterFile(path, "MJPG", 10, 320, 240, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"As", "Kd", "7c"} {
		m, err := ReadImage(filepath.Join(devDir(t), "anglo", "calib", n+".jpg"))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(m); err != nil {
			t.Fatal(err)
		}
		m.Close()
	}
	w.Close()
	s, err := OpenVideo(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(devProfile(t, "anglo"), vision.Shoe)
	if err != nil {
		t.Fatal(err)
	}
	reader := NewReader(s, r)
	defer reader.Close()
	var got []string
	for {
		res, info, err := reader.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, res.Token())
		if info.Seq != int64(len(got)) {
			t.Errorf("frame %d has Seq %d", len(got), info.Seq)
		}
	}
	if strings.Join(got, " ") != "As Kd 7c" {
		t.Errorf("video read as %v", got)
	}
	reader.Close() // idempotent
	if _, _, err := reader.Next(context.Background()); !errors.Is(err, ErrSourceClosed) {
		t.Errorf("after Close: %v", err)
	}
	if _, err := OpenVideo(filepath.Join(t.TempDir(), "none.avi")); err == nil || !strings.Contains(err.Error(), "none.avi") {
		t.Errorf("missing video: %v", err)
	}
	notVideo := filepath.Join(t.TempDir(), "x.avi")
	os.WriteFile(notVideo, []byte("RIFF junk"), 0o644)
	if _, err := OpenVideo(notVideo); err == nil || err.Error() != "vision: "+notVideo+": not a video OpenCV can read" {
		t.Errorf("junk video: %v", err)
	}
}

func TestOpenDeviceErrors(t *testing.T) {
	for _, tc := range []struct{ path, want string }{
		{"/dev/sda", `vision: camera "/dev/sda": want /dev/videoN or N`},
		{"/dev/video97", "vision: camera /dev/video97: stat /dev/video97: no such file or directory"},
		{"97", "vision: camera 97: stat /dev/video97: no such file or directory"},
	} {
		if _, err := OpenDevice(tc.path, DeviceOptions{}); err == nil || err.Error() != tc.want {
			t.Errorf("OpenDevice(%s): %v, want %q", tc.path, err, tc.want)
		}
	}
}

func TestLocate(t *testing.T) {
	p := devProfile(t, "anglo")
	m, err := ReadImage(filepath.Join(devDir(t), "anglo", "calib", "9h.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	loc, err := Locate(m, p)
	if err != nil {
		t.Fatal(err)
	}
	// The 9h calibration frame: the card's top-left corner near (22, 16), about 214 pixels wide.
	if c := loc.Band[0]; c.X < 16 || c.X > 28 || c.Y < 10 || c.Y > 22 || loc.WidthPx < 205 || loc.WidthPx > 222 || loc.Fit < 0.5 {
		t.Errorf("location %+v", loc)
	}
	if loc.Rank[0].X < loc.Band[0].X || loc.Rank[2].Y <= loc.Rank[0].Y {
		t.Errorf("rank window %v", loc.Rank)
	}
	empty, err := ReadImage(filepath.Join(devDir(t), "anglo", "frames", "f00006.jpg"))
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	if _, err := Locate(empty, p); err == nil || !strings.HasPrefix(err.Error(), "vision: no card in the reader window") {
		t.Errorf("empty window: %v", err)
	}
}
