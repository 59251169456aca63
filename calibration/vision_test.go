package calibration

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// testProfile is a small valid profile (flat blocks: enough for the format, not for reading).
func testProfile(t testing.TB) *VisionProfile {
	g := Geometry{FineScale: 32, FaceScale: 8, IndexW: 8, IndexH: 12}
	p := &VisionProfile{
		Deck:        "test",
		Created:     time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Camera:      Camera{Name: "shoe-reader", Width: 320, Height: 240},
		Source:      "shoe",
		Passes:      1,
		Geometry:    g,
		CardWidthPx: 210,
		InkIndex:    0.1,
		InkFace:     0.05,
		FaceRows:    10,
		CardLength:  1.5,
		Rules:       map[string]VisionRule{"shoe": {MaxRelative: 0.7, MinLead: 0.25, FalseAccept: 9e-5, ReadRate: 0.95, Samples: 2000, Impostors: 2000}},
	}
	block := func(n int, v float32) []byte {
		f := make([]float32, n)
		for i := range f {
			f[i] = v
		}
		return FloatBytes(f)
	}
	for i, c := range card.Deck() {
		p.Views = append(p.Views, VisionView{Class: c.String(), Index: block(g.IndexW*g.IndexH*3, float32(i)/52), Face: block(10*g.FaceScale*3, 0.5), FaceRows: 10})
	}
	p.Views = append(p.Views, VisionView{Class: "CUT", Plain: true}, VisionView{Class: "BACK", Face: block(4*g.FaceScale*3, 0.2), FaceRows: 4})
	if err := p.Seal(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestVisionRoundTrip(t *testing.T) {
	p := testProfile(t)
	path := filepath.Join(t.TempDir(), "profile.json")
	if err := SaveVision(path, p); err != nil {
		t.Fatal(err)
	}
	q, err := LoadVision(path)
	if err != nil {
		t.Fatal(err)
	}
	if q.SHA256 != p.SHA256 || q.Deck != "test" || q.Camera != p.Camera || len(q.Views) != 54 || q.Rules["shoe"] != p.Rules["shoe"] {
		t.Errorf("loaded %+v", q)
	}
	if f := Floats(q.Views[7].Index); len(f) != 8*12*3 || f[0] != float32(7)/52 {
		t.Errorf("view 7's index block: %d values, first %v", len(f), f[:1])
	}
	if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("temporary file left behind: %v", err)
	}
}

// TestVisionErrors checks that every kind of damage is refused with its own message; the
// messages are in testdata/vision-errors.golden (go test -update rewrites it).
func TestVisionErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(p *VisionProfile)
		raw    func(b []byte) []byte
	}{
		{name: "wrong format", raw: func(b []byte) []byte {
			return bytes.Replace(b, []byte(`"sabot-vision-profile"`), []byte(`"sabot-shuffler-profile"`), 1)
		}},
		{name: "future version", raw: func(b []byte) []byte { return bytes.Replace(b, []byte(`"version": 4`), []byte(`"version": 5`), 1) }},
		{name: "camera size", change: func(p *VisionProfile) { p.Camera.Width = 0 }},
		{name: "source", change: func(p *VisionProfile) { p.Source = "webcam" }},
		{name: "passes", change: func(p *VisionProfile) { p.Passes = 3 }},
		{name: "geometry", change: func(p *VisionProfile) { p.Geometry.IndexW = 400 }},
		{name: "face rows", change: func(p *VisionProfile) { p.FaceRows = 0 }},
		{name: "card width", change: func(p *VisionProfile) { p.CardWidthPx = -1 }},
		{name: "card length", change: func(p *VisionProfile) { p.CardLength = 500 }},
		{name: "ink", change: func(p *VisionProfile) { p.InkIndex = 0 }},
		{name: "unknown class", change: func(p *VisionProfile) { p.Views[3].Class = "Zz" }},
		{name: "end beyond the passes", change: func(p *VisionProfile) { p.Views[3].End = 1 }},
		{name: "end twice", change: func(p *VisionProfile) { p.Views[4] = p.Views[3] }},
		{name: "index size", change: func(p *VisionProfile) { p.Views[5].Index = p.Views[5].Index[:40] }},
		{name: "face size", change: func(p *VisionProfile) { p.Views[5].FaceRows = 9 }},
		{name: "empty view", change: func(p *VisionProfile) { p.Views[6].Index, p.Views[6].Face, p.Views[6].FaceRows = nil, nil, 0 }},
		{name: "value out of range", change: func(p *VisionProfile) { p.Views[8].Index = FloatBytes(append(Floats(p.Views[8].Index)[1:], 1e9)) }},
		{name: "missing cards", change: func(p *VisionProfile) { p.Views = p.Views[2:] }},
		{name: "no cut card", change: func(p *VisionProfile) { p.Views = p.Views[:52] }},
		{name: "no rule", change: func(p *VisionProfile) { p.Rules = nil }},
		{name: "rule of an unknown view", change: func(p *VisionProfile) { p.Rules["window"] = p.Rules["shoe"] }},
		{name: "rule's distance", change: func(p *VisionProfile) { r := p.Rules["shoe"]; r.MaxRelative = 0; p.Rules["shoe"] = r }},
		{name: "rule's rates", change: func(p *VisionProfile) { r := p.Rules["shoe"]; r.FalseAccept = 2; p.Rules["shoe"] = r }},
		{name: "checksum", raw: func(b []byte) []byte { return bytes.Replace(b, []byte(`"deck": "test"`), []byte(`"deck": "tesT"`), 1) }},
		{name: "unknown field", raw: func(b []byte) []byte { return bytes.Replace(b, []byte(`"deck"`), []byte(`"colour": 1, "deck"`), 1) }},
		{name: "truncated", raw: func(b []byte) []byte { return b[:len(b)/2] }},
		{name: "two values", raw: func(b []byte) []byte { return append(b, []byte("{}")...) }},
		{name: "empty", raw: func([]byte) []byte { return nil }},
	}
	var golden strings.Builder
	for _, tc := range tests {
		p := testProfile(t)
		if tc.change != nil {
			tc.change(p)
			if err := p.Seal(); err != nil {
				t.Fatal(err)
			}
		}
		b, err := json.MarshalIndent(p, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		if tc.raw != nil {
			b = tc.raw(b)
		}
		_, err = ReadVision(bytes.NewReader(b))
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if !errors.Is(err, ErrProfile) {
			t.Errorf("%s: %v does not wrap ErrProfile", tc.name, err)
		}
		golden.WriteString(tc.name + ": " + err.Error() + "\n")
	}
	path := filepath.Join("testdata", "vision-errors.golden")
	if *update {
		if err := os.WriteFile(path, []byte(golden.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if golden.String() != string(want) {
		t.Errorf("errors differ from %s:\n%s", path, golden.String())
	}
}

func TestLoadVisionNamesFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "damaged.json")
	os.WriteFile(path, []byte(`{"format":"sabot-vision-profile"`), 0o644)
	_, err := LoadVision(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+": calibration: bad profile") {
		t.Errorf("error %v does not name the file", err)
	}
	if _, err := LoadVision(filepath.Join(t.TempDir(), "missing.json")); err == nil || !strings.Contains(err.Error(), "missing.json") {
		t.Errorf("missing file: %v", err)
	}
}

func TestCameraString(t *testing.T) {
	if s := (Camera{Name: "shoe-reader", Width: 320, Height: 240}).String(); s != "shoe-reader 320x240" {
		t.Errorf("String() = %q", s)
	}
}

func FuzzReadVision(f *testing.F) {
	p := testProfile(f)
	b, _ := json.Marshal(p)
	f.Add(b)
	f.Add([]byte(`{"format":"sabot-vision-profile","version":3}`))
	f.Add([]byte(`{"views":[{"class":"As","index":"AAAA","face_rows":1}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadVision(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrProfile) && !strings.HasPrefix(err.Error(), "calibration:") {
				t.Fatalf("error not from this package: %v", err)
			}
			return
		}
		if len(p.Views) < 53 || p.Validate() != nil {
			t.Fatalf("accepted an invalid profile")
		}
	})
}
