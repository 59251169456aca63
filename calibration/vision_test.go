package calibration

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// tinyPNG is a flat w x h PNG, shade v.
func tinyPNG(t testing.TB, w, h int, v uint8) []byte {
	im := image.NewGray(image.Rect(0, 0, w, h))
	for i := range im.Pix {
		im.Pix[i] = v
	}
	var b bytes.Buffer
	if err := png.Encode(&b, im); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// testProfile is a small valid profile (flat templates: enough for the format, not for reading).
func testProfile(t testing.TB) *VisionProfile {
	p := &VisionProfile{
		Deck:            "test",
		Created:         time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Camera:          Camera{Name: "shoe-reader", Width: 320, Height: 240},
		BandWidth:       32,
		BandHeight:      32,
		CardWidthPx:     210,
		CardLength:      48,
		Rank:            Rect{1, 2, 5, 8},
		Suit:            Rect{1, 9, 5, 12},
		IndexSeparation: 1000,
		IndexArea:       Rect{0, 0, 8, 14},
		IndexScale:      2,
		Cards:           map[string]Template{},
	}
	for i, c := range card.Deck() {
		p.Cards[c.String()] = Template{PNG: tinyPNG(t, 32, 32, uint8(i)), ValidRows: 30, Index: tinyPNG(t, 16, 28, uint8(i))}
	}
	p.Back = &Template{PNG: tinyPNG(t, 32, 32, 200), ValidRows: 32}
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
	if q.SHA256 != p.SHA256 || q.Deck != "test" || q.Camera != p.Camera || len(q.Cards) != 52 || q.Back == nil || q.Cut != nil {
		t.Errorf("loaded %+v", q)
	}
	im, err := DecodeTemplate(q.Cards["7h"])
	if err != nil || im.Bounds().Dx() != 32 {
		t.Errorf("DecodeTemplate: %v %v", im, err)
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
		{name: "future version", raw: func(b []byte) []byte { return bytes.Replace(b, []byte(`"version": 2`), []byte(`"version": 3`), 1) }},
		{name: "camera size", change: func(p *VisionProfile) { p.Camera.Width = 0 }},
		{name: "band size", change: func(p *VisionProfile) { p.BandWidth = 4 }},
		{name: "card width", change: func(p *VisionProfile) { p.CardWidthPx = -1 }},
		{name: "card length", change: func(p *VisionProfile) { p.CardLength = 500 }},
		{name: "rank window", change: func(p *VisionProfile) { p.Rank = Rect{0, 0, 40, 8} }},
		{name: "suit window", change: func(p *VisionProfile) { p.Suit = Rect{-1, 0, 4, 4} }},
		{name: "missing cards", change: func(p *VisionProfile) { delete(p.Cards, "As"); delete(p.Cards, "Kc") }},
		{name: "foreign card", change: func(p *VisionProfile) { p.Cards["Zz"] = p.Cards["As"] }},
		{name: "template size", change: func(p *VisionProfile) { p.Cards["5d"] = Template{PNG: tinyPNG(t, 16, 32, 1), ValidRows: 30} }},
		{name: "index size", change: func(p *VisionProfile) {
			p.Cards["5d"] = Template{PNG: tinyPNG(t, 32, 32, 1), ValidRows: 30, Index: tinyPNG(t, 8, 14, 1)}
		}},
		{name: "no index", change: func(p *VisionProfile) { p.Cards["Jh"] = Template{PNG: tinyPNG(t, 32, 32, 1), ValidRows: 30} }},
		{name: "index area", change: func(p *VisionProfile) { p.IndexArea = Rect{2, 2, 8, 14} }},
		{name: "index scale", change: func(p *VisionProfile) { p.IndexScale = 0 }},
		{name: "template not a PNG", change: func(p *VisionProfile) { p.Cards["5d"] = Template{PNG: []byte("GIF89a"), ValidRows: 30} }},
		{name: "valid rows", change: func(p *VisionProfile) { p.Back.ValidRows = 3 }},
		{name: "top rows", change: func(p *VisionProfile) { p.Back.TopRows = 20 }},
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
	f.Add([]byte(`{"format":"sabot-vision-profile","version":2}`))
	f.Add([]byte(`{"cards":{"As":{"png":"iVBORw0KGgo=","valid_rows":3}}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadVision(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrProfile) && !strings.HasPrefix(err.Error(), "calibration:") {
				t.Fatalf("error not from this package: %v", err)
			}
			return
		}
		if len(p.Cards) != 52 || p.Validate() != nil {
			t.Fatalf("accepted an invalid profile")
		}
	})
}
