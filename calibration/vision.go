package calibration

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
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
	VisionVersion = 4
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

// The description geometry a profile's templates are made in (vision/cv's; a profile of other
// sizes was made by another build and is refused).
type Geometry struct {
	FineScale int `json:"fine_scale"` // pixels per card width of the index corner
	FaceScale int `json:"face_scale"` // pixels per card width of the face
	IndexW    int `json:"index_w"`    // the index block, fine pixels
	IndexH    int `json:"index_h"`
}

// VisionView is what calibration learned of one end of one class: its expected description.
type VisionView struct {
	Class string `json:"class"` // "As" … "Kc", "BACK", "CUT"
	End   int    `json:"end"`   // 0: as the first pass showed it; 1: turned end for end
	// Index is the index corner block, IndexW × IndexH × 3 little-endian float32 (BGR,
	// normalized: each channel's mean taken away, unit norm); empty when not seen.
	Index []byte `json:"index,omitempty"`
	// Face is the face, FaceScale × FaceRows × 3 float32, normalized likewise.
	Face     []byte `json:"face,omitempty"`
	FaceRows int    `json:"face_rows"`
	// Plain: the class is the plain card (CUT). IndexPlain, FacePlain: that block has no ink.
	Plain      bool `json:"plain,omitempty"`
	IndexPlain bool `json:"index_plain,omitempty"`
	FacePlain  bool `json:"face_plain,omitempty"`
	// Band is the calibration frame's card as the recognizer saw it (8-bit PNG, for reports).
	Band []byte `json:"band_png,omitempty"`
}

// VisionRule is the rule a view's frames are decided by, derived at calibration: the best class
// is the answer when its relative distance (its distance as a share of the distance between its
// template and the nearest other class's) is at most MaxRelative and it leads the runner-up by
// at least MinLead.
type VisionRule struct {
	MaxRelative float64 `json:"max_relative"`
	MinLead     float64 `json:"min_lead"`
	// Face says whether the face is compared as well as the index corner.
	Face bool `json:"face"`
	// FalseAccept is the estimated share of frames of a card the profile does not hold (read
	// against the profile built without it) that the rule would accept: the target is under
	// 1 in 10,000. ReadRate is the share of the perturbed calibration frames read right.
	FalseAccept float64 `json:"false_accept"`
	ReadRate    float64 `json:"read_rate"`
	// Samples and Impostors are how many perturbed frames the figures come from.
	Samples   int `json:"samples"`
	Impostors int `json:"impostors"`
	// Wrong is how many of the Samples the rule read as another class (with the right class
	// in the profile): it must be 0.
	Wrong int `json:"wrong"`
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
	// InkIndex and InkFace are how much ink a card's index block and face hold (the median of
	// the 52 cards' calibration frames): a plain block is measured against them.
	InkIndex float64 `json:"ink_index"`
	InkFace  float64 `json:"ink_face"`
	FaceRows int     `json:"face_rows"`
	// CardLength is the card's length in card widths, measured from a single pass's frames by
	// the symmetry of a two-ended design, or from photographs as their outlines' median (0: not
	// measured); the recognizer makes the ends the pass did not show from it, and resamples a
	// whole card by it.
	CardLength float64 `json:"card_length,omitempty"`
	// Views are every class's ends as calibrated; Rules the rule of each view the profile can
	// read ("shoe", "table").
	Views []VisionView          `json:"views"`
	Rules map[string]VisionRule `json:"rules"`
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
	if g.FineScale < 16 || g.FineScale > 1024 || g.FaceScale < 4 || g.FaceScale > g.FineScale || g.IndexW < 4 || g.IndexH < 4 || g.IndexW > g.FineScale || g.IndexH > 2*g.FineScale {
		return bad("geometry %+v", g)
	}
	if p.FaceRows < 1 || p.FaceRows > 2*g.FaceScale {
		return bad("%d face rows", p.FaceRows)
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
	if !(p.InkIndex > 0) || !(p.InkFace > 0) {
		return bad("ink %v, %v", p.InkIndex, p.InkFace)
	}
	idxBytes := g.IndexW * g.IndexH * 3 * 4
	seen := map[string]int{}
	ends := map[string]bool{}
	for i, v := range p.Views {
		name := fmt.Sprintf("view %d (%s)", i, v.Class)
		if v.Class != "CUT" && v.Class != "BACK" {
			if c, err := card.Parse(v.Class); err != nil || c.String() != v.Class {
				return bad("%s: unknown class %q", name, v.Class)
			}
		}
		if v.End != 0 && v.End != 1 || v.End >= p.Passes {
			return bad("%s: end %d with %d passes", name, v.End, p.Passes)
		}
		key := fmt.Sprintf("%s/%d", v.Class, v.End)
		if ends[key] {
			return bad("%s: end %d given twice", name, v.End)
		}
		ends[key] = true
		seen[v.Class]++
		if len(v.Index) != 0 && len(v.Index) != idxBytes {
			return bad("%s: index block of %d bytes, want %d", name, len(v.Index), idxBytes)
		}
		if v.FaceRows < 0 || v.FaceRows > p.FaceRows || len(v.Face) != v.FaceRows*g.FaceScale*3*4 {
			return bad("%s: face of %d bytes for %d rows", name, len(v.Face), v.FaceRows)
		}
		if !v.Plain && len(v.Index) == 0 && v.FaceRows == 0 {
			return bad("%s: neither an index nor a face", name)
		}
		for _, b := range [][]byte{v.Index, v.Face} {
			for k := 0; k+4 <= len(b); k += 4 {
				f := math.Float32frombits(binary.LittleEndian.Uint32(b[k:]))
				if f != f || f > 1e3 || f < -1e3 {
					return bad("%s: a value out of range", name)
				}
			}
		}
	}
	var missing []string
	for _, c := range card.Deck() {
		if seen[c.String()] == 0 {
			missing = append(missing, c.String())
		}
	}
	if len(missing) > 0 {
		return bad("no view of %v", missing)
	}
	if seen["CUT"] == 0 {
		return bad("no view of the plain cut card")
	}
	if len(p.Rules) == 0 {
		return bad("no rule for any view")
	}
	for name, r := range p.Rules {
		if name != "shoe" && name != "table" {
			return bad("rule for an unknown view %q", name)
		}
		if !(r.MaxRelative > 0 && r.MaxRelative <= 10) || !(r.MinLead >= 0 && r.MinLead <= 10) {
			return bad("%s rule: relative distance %v, lead %v", name, r.MaxRelative, r.MinLead)
		}
		if r.FalseAccept < 0 || r.FalseAccept > 1 || r.ReadRate < 0 || r.ReadRate > 1 {
			return bad("%s rule: rates %v, %v", name, r.FalseAccept, r.ReadRate)
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

// Floats decodes a view's little-endian float32 block.
func Floats(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// FloatBytes encodes a block as little-endian float32.
func FloatBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return b
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
