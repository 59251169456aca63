package calibration

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

// VisionFormat and VisionVersion identify a vision profile file. A file of another format, or of
// a version this build does not know, is refused.
const (
	VisionFormat  = "sabot-vision-profile"
	VisionVersion = 8 // 8: the outline band is not compared (noise models fitted without it); 7: the rules' part threshold (MaxPart)
)

// MaxVisionProfileBytes bounds what LoadVision reads: a profile is a few megabytes at most.
const MaxVisionProfileBytes = 32 << 20

// ErrProfile is wrapped by every error about a profile's content (as opposed to I/O).
var ErrProfile = errors.New("calibration: bad profile")

// Camera identifies the camera a profile was made with. A shoe recognizer refuses frames of
// another size: its reader window's geometry is the camera's.
type Camera struct {
	Name   string `json:"name"`   // what the technician calls it: "shoe-reader", "/dev/video0"
	Width  int    `json:"width"`  // frame width in pixels
	Height int    `json:"height"` // frame height in pixels
}

// String returns "shoe-reader 320x240".
func (c Camera) String() string { return fmt.Sprintf("%s %dx%d", c.Name, c.Width, c.Height) }

// Geometry is the description geometry a profile's templates are made in (vision/cv's; a
// profile of other sizes was made by another build and is refused).
type Geometry struct {
	FineScale int `json:"fine_scale"` // pixels a card width of the templates and the corners
	CornerW   int `json:"corner_w"`   // a corner part, fine pixels across
	CornerH   int `json:"corner_h"`   // and down
	FaceScale int `json:"face_scale"` // pixels a card width of the face
}

// VisionTemplate is what calibration learned of one class: the whole card in card coordinates,
// seen from the end calibrated first, as the recognizer describes a frame (each channel divided
// by the card's white, the local mean taken away).
type VisionTemplate struct {
	Class string `json:"class"` // "As" … "Kc", "BACK", "CUT"
	// Rows is the card's length in template rows (FineScale a card width); Card holds
	// FineScale × Rows × 3 values (BGR, row by row), each a signed byte times Scale.
	Rows  int     `json:"rows"`
	Scale float64 `json:"scale"`
	Card  []byte  `json:"card"`
	// Known lists the row ranges [first, last] calibration saw or inferred; the others are
	// compared for no class.
	Known [][2]int `json:"known"`
	// WidthPx is the card's width in pixels in the calibration frame the template was made
	// from (the smallest, of two): how sharp the template is (0: not recorded).
	WidthPx float64 `json:"width_px,omitempty"`
	// Bands are the calibration frames' cards as the recognizer saw them (8-bit PNG, for
	// reports): one per pass that showed the class.
	Bands [][]byte `json:"bands_png,omitempty"`
}

// NoiseModel is how much a frame of a class differs from its template in one part, measured at
// calibration: the variance of a value is Sigma0² + Kappa·g, g the template's squared slope
// there.
type NoiseModel struct {
	Part   string  `json:"part"`
	Sigma0 float64 `json:"sigma0"`
	Kappa  float64 `json:"kappa"`
}

// VisionRule is the rule a view's frames are decided by, derived at calibration: the best class
// is the answer when its distance is at most MaxDistance, none of its parts' distances is over
// MaxPart, and it leads the runner-up by at least MinLead.
type VisionRule struct {
	MaxDistance float64 `json:"max_distance"`
	MaxPart     float64 `json:"max_part"`
	MinLead     float64 `json:"min_lead"`
	// Noise is the view's noise model, a part each (left corner, right corner, face).
	Noise []NoiseModel `json:"noise"`
	// FalseAccept is the estimated share of frames some other class would lead by MinLead or
	// more (the target is under 1 in 10,000). ReadRate is the share of the perturbed
	// calibration frames read right; Samples how many were read, and Wrong how many of them the
	// rule read as another class (it must be 0).
	FalseAccept float64 `json:"false_accept"`
	ReadRate    float64 `json:"read_rate"`
	Samples     int     `json:"samples"`
	Wrong       int     `json:"wrong"`
}

// VisionProfile is the calibration of the card recognizer for one deck design and one camera.
type VisionProfile struct {
	Format  string    `json:"format"`
	Version int       `json:"version"`
	Deck    string    `json:"deck"`    // the technician's name for the deck design
	Created time.Time `json:"created"` // when it was made
	Camera  Camera    `json:"camera"`
	// Source is what the calibration frames were: "shoe" (the reader window) or "photo" (whole
	// cards anywhere in a frame). Passes is 1, or 2 with a second pass turned end for end.
	Source   string   `json:"source"`
	Passes   int      `json:"passes"`
	Geometry Geometry `json:"geometry"`
	// CardWidthPx is the median width of the card in the calibration frames, in pixels.
	CardWidthPx float64 `json:"card_width_px"`
	// EdgeContrast is the faintest card the shoe's calibration frames showed: the least, over
	// the frames, of the 90th percentile of the window's columns' largest steps (8-bit levels
	// summed over the three channels). The empty window is told from a card by it; 0 for
	// photographs.
	EdgeContrast float64 `json:"edge_contrast,omitempty"`
	// CardLength is the card's length in card widths: measured from two passes where the two
	// ends meet, from one pass by the symmetry of a two-ended design, or from photographs as
	// their outlines' median; 0 when one pass of a one-ended design cannot tell it (the
	// templates then hold the end seen only). A whole card is resampled by it.
	CardLength float64 `json:"card_length,omitempty"`
	// Templates are every class's card as calibrated; Rules the rule of each view the profile
	// can read ("shoe", "table").
	Templates []VisionTemplate      `json:"templates"`
	Rules     map[string]VisionRule `json:"rules"`
	// Notes are what calibration found worth telling the technician.
	Notes []string `json:"notes,omitempty"`

	// SHA256 is the hex SHA-256 of the profile's JSON encoding with this field empty.
	SHA256 string `json:"sha256"`
}

// Seal sets Format, Version and the checksum; call it after the last change, before Save.
func (p *VisionProfile) Seal() error {
	p.Format, p.Version = VisionFormat, VisionVersion
	sum, err := p.checksum()
	if err != nil {
		return err
	}
	p.SHA256 = sum
	return nil
}

func (p *VisionProfile) checksum() (string, error) {
	q := *p
	q.SHA256 = ""
	b, err := json.Marshal(&q)
	if err != nil {
		return "", fmt.Errorf("calibration: encoding the profile: %w", err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}

// Validate checks everything a recognizer relies on. Each problem is named; the first found is
// returned, wrapping ErrProfile.
func (p *VisionProfile) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", ErrProfile, fmt.Sprintf(format, a...))
	}
	if p.Format != VisionFormat {
		return bad("format is %q, want %q (is this a vision profile?)", p.Format, VisionFormat)
	}
	if p.Version != VisionVersion {
		return bad("version %d, this build reads version %d: recalibrate with `sabot calibrate vision`", p.Version, VisionVersion)
	}
	if p.Camera.Width < 32 || p.Camera.Height < 32 || p.Camera.Width > 8192 || p.Camera.Height > 8192 {
		return bad("camera size %dx%d", p.Camera.Width, p.Camera.Height)
	}
	if p.Source != "shoe" && p.Source != "photo" {
		return bad("source %q (want shoe or photo)", p.Source)
	}
	if p.Passes != 1 && p.Passes != 2 {
		return bad("%d passes (want 1 or 2)", p.Passes)
	}
	g := p.Geometry
	if g.FineScale < 16 || g.FineScale > 1024 || g.CornerW < 4 || g.CornerW > g.FineScale || g.CornerH < 4 || g.CornerH > g.FineScale || g.FaceScale < 4 || g.FaceScale > g.FineScale {
		return bad("geometry %+v", g)
	}
	if !(p.CardWidthPx > 0) || p.CardWidthPx > float64(2*max(p.Camera.Width, p.Camera.Height)) {
		return bad("card width %v px", p.CardWidthPx)
	}
	if p.CardLength != 0 && !(p.CardLength >= 1 && p.CardLength <= 2) {
		return bad("card length %v card widths", p.CardLength)
	}
	if !(p.EdgeContrast >= 0 && p.EdgeContrast <= 3*255) {
		return bad("edge contrast %v", p.EdgeContrast)
	}
	seen := map[string]bool{}
	rows := -1
	for i, t := range p.Templates {
		name := fmt.Sprintf("template %d (%s)", i, t.Class)
		if t.Class != "CUT" && t.Class != "BACK" {
			if c, err := card.Parse(t.Class); err != nil || c.String() != t.Class {
				return bad("%s: unknown class %q", name, t.Class)
			}
		}
		if seen[t.Class] {
			return bad("%s: %s given twice", name, t.Class)
		}
		seen[t.Class] = true
		if t.Rows < g.CornerH || t.Rows > 2*g.FineScale {
			return bad("%s: %d rows", name, t.Rows)
		}
		if rows >= 0 && t.Rows != rows {
			return bad("%s: %d rows, the others %d: one card, one length", name, t.Rows, rows)
		}
		rows = t.Rows
		if p.CardLength > 0 && math.Abs(float64(t.Rows)-p.CardLength*float64(g.FineScale)) > 1 {
			return bad("%s: %d rows for a card %.3f widths long", name, t.Rows, p.CardLength)
		}
		if len(t.Card) != g.FineScale*t.Rows*3 {
			return bad("%s: %d bytes for %d rows", name, len(t.Card), t.Rows)
		}
		if t.WidthPx != 0 && !(t.WidthPx >= 16 && t.WidthPx <= 10000) {
			return bad("%s: a card %v pixels wide", name, t.WidthPx)
		}
		if !(t.Scale > 0 && t.Scale < 1) {
			return bad("%s: scale %v", name, t.Scale)
		}
		last := -1
		for _, k := range t.Known {
			if k[0] <= last || k[1] < k[0] || k[1] >= t.Rows {
				return bad("%s: known rows %v", name, t.Known)
			}
			last = k[1]
		}
		if len(t.Known) == 0 {
			return bad("%s: no row known", name)
		}
	}
	var missing []string
	for _, c := range card.Deck() {
		if !seen[c.String()] {
			missing = append(missing, c.String())
		}
	}
	if len(missing) > 0 {
		return bad("no template of %v", missing)
	}
	if !seen["CUT"] {
		return bad("no template of the plain cut card")
	}
	if len(p.Rules) == 0 {
		return bad("no rule for any view")
	}
	for name, r := range p.Rules {
		if name != "shoe" && name != "table" {
			return bad("rule for an unknown view %q", name)
		}
		if !(r.MaxDistance > 0 && r.MaxDistance <= 1e3) || !(r.MinLead >= 0 && r.MinLead <= 1e3) {
			return bad("%s rule: distance %v, lead %v", name, r.MaxDistance, r.MinLead)
		}
		if !(r.MaxPart > 0 && r.MaxPart <= 1e3) {
			return bad("%s rule: part distance %v", name, r.MaxPart)
		}
		if r.FalseAccept < 0 || r.FalseAccept > 1 || r.ReadRate < 0 || r.ReadRate > 1 {
			return bad("%s rule: rates %v, %v", name, r.FalseAccept, r.ReadRate)
		}
		if len(r.Noise) != 3 {
			return bad("%s rule: %d noise models, want 3 (left corner, right corner, face)", name, len(r.Noise))
		}
		for _, n := range r.Noise {
			if !(n.Sigma0 > 0 && n.Sigma0 < 10) || !(n.Kappa >= 0 && n.Kappa < 1e3) {
				return bad("%s rule: noise %+v", name, n)
			}
		}
	}
	sum, err := p.checksum()
	if err != nil {
		return err
	}
	if sum != p.SHA256 {
		return bad("checksum mismatch: the file was changed or damaged after calibration")
	}
	return nil
}

// ReadVision decodes and validates a profile.
func ReadVision(r io.Reader) (*VisionProfile, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxVisionProfileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("calibration: reading the profile: %w", err)
	}
	if len(b) > MaxVisionProfileBytes {
		return nil, fmt.Errorf("%w: larger than %d bytes", ErrProfile, MaxVisionProfileBytes)
	}
	var p VisionProfile
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrProfile, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: more than one JSON value", ErrProfile)
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// LoadVision reads and validates the profile in a file; errors name the file.
func LoadVision(path string) (*VisionProfile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("calibration: %w", err)
	}
	defer f.Close()
	p, err := ReadVision(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// WriteVision validates p and writes it as indented JSON.
func WriteVision(w io.Writer, p *VisionProfile) error {
	if err := p.Validate(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return fmt.Errorf("calibration: encoding the profile: %w", err)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("calibration: writing the profile: %w", err)
	}
	return nil
}

// SaveVision validates p and writes it to path atomically (a temporary file renamed over it), so
// that a daemon never loads half a profile.
func SaveVision(path string, p *VisionProfile) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("calibration: %w", err)
	}
	if err := WriteVision(f, p); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("calibration: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("calibration: %w", err)
	}
	return nil
}
