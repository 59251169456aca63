package calibration

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// testProfile is a small valid profile (flat templates: enough for the format, not for
// reading).
func testProfile(t testing.TB) *VisionProfile {
	g := Geometry{FineScale: 32, CornerW: 12, CornerH: 16, FaceScale: 8}
	noise := []NoiseModel{{"left corner", 0.05, 0.01}, {"right corner", 0.05, 0.01}, {"face", 0.03, 0.005}}
	p := &VisionProfile{
		Deck:        "test",
		Created:     time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		Camera:      Camera{Name: "shoe-reader", Width: 320, Height: 240},
		Source:      "shoe",
		Passes:      1,
		Geometry:    g,
		CardWidthPx: 210,
		CardLength:  1.5,
		Rules:       map[string]VisionRule{"shoe": {MaxDistance: 2.5, MaxPart: 4.1, MinLead: 0.25, Noise: noise, FalseAccept: 9e-5, ReadRate: 0.95, Samples: 2000}},
	}
	template := func(class string, v byte) VisionTemplate {
		b := make([]byte, 32*48*3)
		for i := range b {
			b[i] = v
		}
		return VisionTemplate{Class: class, Rows: 48, Scale: 0.01, Card: b, Known: [][2]int{{0, 15}, {32, 47}}}
	}
	for i, c := range card.Deck() {
		p.Templates = append(p.Templates, template(c.String(), byte(i)))
	}
	p.Templates = append(p.Templates, template("CUT", 0), template("BACK", 7))
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
	if q.SHA256 != p.SHA256 || q.Deck != "test" || q.Camera != p.Camera || len(q.Templates) != 54 || q.Rules["shoe"].MinLead != 0.25 || len(q.Rules["shoe"].Noise) != 3 {
		t.Errorf("loaded %+v", q)
	}
	if tm := q.Templates[7]; len(tm.Card) != 32*48*3 || tm.Card[0] != 7 || tm.Known[1] != [2]int{32, 47} {
		t.Errorf("template 7: %d bytes, first %v, known %v", len(tm.Card), tm.Card[:1], tm.Known)
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
		{name: "future version", raw: func(b []byte) []byte {
			return bytes.Replace(b, fmt.Appendf(nil, `"version": %d`, VisionVersion), fmt.Appendf(nil, `"version": %d`, VisionVersion+1), 1)
		}},
		{name: "camera size", change: func(p *VisionProfile) { p.Camera.Width = 0 }},
		{name: "source", change: func(p *VisionProfile) { p.Source = "webcam" }},
		{name: "passes", change: func(p *VisionProfile) { p.Passes = 3 }},
		{name: "geometry", change: func(p *VisionProfile) { p.Geometry.CornerW = 400 }},
		{name: "card width", change: func(p *VisionProfile) { p.CardWidthPx = -1 }},
		{name: "card length", change: func(p *VisionProfile) { p.CardLength = 500 }},
		{name: "rows unlike the length", change: func(p *VisionProfile) { p.CardLength = 1.2 }},
		{name: "unknown class", change: func(p *VisionProfile) { p.Templates[3].Class = "Zz" }},
		{name: "class twice", change: func(p *VisionProfile) { p.Templates[4] = p.Templates[3] }},
		{name: "rows", change: func(p *VisionProfile) { p.Templates[5].Rows = 3 }},
		{name: "rows unlike the others", change: func(p *VisionProfile) { p.Templates[5].Rows = 47 }},
		{name: "card size", change: func(p *VisionProfile) { p.Templates[5].Card = p.Templates[5].Card[:40] }},
		{name: "scale", change: func(p *VisionProfile) { p.Templates[6].Scale = 0 }},
		{name: "template's card width", change: func(p *VisionProfile) { p.Templates[6].WidthPx = 3 }},
		{name: "known rows out of order", change: func(p *VisionProfile) { p.Templates[8].Known = [][2]int{{32, 47}, {0, 15}} }},
		{name: "known rows beyond the card", change: func(p *VisionProfile) { p.Templates[8].Known = [][2]int{{0, 48}} }},
		{name: "nothing known", change: func(p *VisionProfile) { p.Templates[8].Known = nil }},
		{name: "missing cards", change: func(p *VisionProfile) { p.Templates = p.Templates[2:] }},
		{name: "no cut card", change: func(p *VisionProfile) { p.Templates = p.Templates[:52] }},
		{name: "no rule", change: func(p *VisionProfile) { p.Rules = nil }},
		{name: "rule of an unknown view", change: func(p *VisionProfile) { p.Rules["window"] = p.Rules["shoe"] }},
		{name: "rule's distance", change: func(p *VisionProfile) { r := p.Rules["shoe"]; r.MaxDistance = 0; p.Rules["shoe"] = r }},
		{name: "rule's part distance", change: func(p *VisionProfile) { r := p.Rules["shoe"]; r.MaxPart = 0; p.Rules["shoe"] = r }},
		{name: "rule's rates", change: func(p *VisionProfile) { r := p.Rules["shoe"]; r.FalseAccept = 2; p.Rules["shoe"] = r }},
		{name: "rule's noise", change: func(p *VisionProfile) { r := p.Rules["shoe"]; r.Noise = r.Noise[:2]; p.Rules["shoe"] = r }},
		{name: "rule's noise values", change: func(p *VisionProfile) {
			r := p.Rules["shoe"]
			r.Noise = []NoiseModel{{"left corner", 0, 0}, r.Noise[1], r.Noise[2]}
			p.Rules["shoe"] = r
		}},
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
	f.Add([]byte(`{"format":"sabot-vision-profile","version":5}`))
	f.Add([]byte(`{"templates":[{"class":"As","rows":1,"card":"AAAA","known":[[0,0]]}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ReadVision(bytes.NewReader(b))
		if err != nil {
			if !errors.Is(err, ErrProfile) && !strings.HasPrefix(err.Error(), "calibration:") {
				t.Fatalf("error not from this package: %v", err)
			}
			return
		}
		if len(p.Templates) < 53 || p.Validate() != nil {
			t.Fatalf("accepted an invalid profile")
		}
	})
}
