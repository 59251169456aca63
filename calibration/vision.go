package calibration

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"os"
	"time"

	"github.com/sabot-tables/sabot/shoe/card"
)

// VisionFormat and VisionVersion identify a vision profile file. A file of another format, or of
// a version this build does not know, is refused.
const (
	VisionFormat  = "sabot-vision-profile"
	VisionVersion = 2
)

// MaxVisionProfileBytes bounds what LoadVision reads: a profile is a few megabytes at most.
const MaxVisionProfileBytes = 32 << 20

// ErrProfile is wrapped by every error about a profile's content (as opposed to I/O).
var ErrProfile = errors.New("calibration: bad profile")

// Camera identifies the camera a profile was made with. A recognizer refuses frames of another
// size: templates learned at one resolution and field of view do not fit another camera.
type Camera struct {
	Name   string `json:"name"`   // what the technician calls it: "shoe-reader", "/dev/video0"
	Width  int    `json:"width"`  // frame width in pixels
	Height int    `json:"height"` // frame height in pixels
}

// String returns "shoe-reader 320x240".
func (c Camera) String() string { return fmt.Sprintf("%s %dx%d", c.Name, c.Width, c.Height) }

// Template is one normalized view of a card: the top band of the card face in card coordinates
// (the card's width spans the image's width), as a PNG, and how many rows of it the camera saw.
type Template struct {
	PNG []byte `json:"png"` // 8-bit colour PNG, BandWidth x BandHeight
	// Rows [TopRows, ValidRows) were inside the frame: a card turned a little may have the
	// corner its top edge rises to just above the frame.
	TopRows   int `json:"top_rows"`
	ValidRows int `json:"valid_rows"`
	// Index is the card's index area (VisionProfile.IndexArea) resampled at IndexScale times
	// the band's resolution, as an 8-bit colour PNG: the rank and suit read finer than the band.
	Index []byte `json:"index_png,omitempty"`
}

// Rect is a rectangle in band coordinates: [X0, X1) x [Y0, Y1).
type Rect struct {
	X0 int `json:"x0"`
	Y0 int `json:"y0"`
	X1 int `json:"x1"`
	Y1 int `json:"y1"`
}

// Empty reports whether r has no area.
func (r Rect) Empty() bool { return r.X1 <= r.X0 || r.Y1 <= r.Y0 }

// VisionProfile is the calibration of the card recognizer for one deck design and one camera.
type VisionProfile struct {
	Format  string    `json:"format"`
	Version int       `json:"version"`
	Deck    string    `json:"deck"`    // the technician's name for the deck design
	Created time.Time `json:"created"` // when it was made
	Camera  Camera    `json:"camera"`

	// BandWidth and BandHeight are the size of every template: the card's width is BandWidth
	// pixels, and the band covers the top BandHeight rows of the card face.
	BandWidth  int `json:"band_width"`
	BandHeight int `json:"band_height"`
	// CardWidthPx is the median width of the card in the camera's frames, in pixels.
	CardWidthPx float64 `json:"card_width_px"`
	// CardLength is the card's length in band pixels (its aspect ratio times BandWidth), as
	// measured from the symmetry of the calibration frames; 0 when it could not be measured.
	CardLength float64 `json:"card_length"`
	// Rank and Suit are the windows of the card's index, in band pixels, learned from the
	// calibration frames: where the 52 cards differ by rank but not by suit, and by suit but not
	// by rank. Suit may be empty (a deck without a suit symbol in its index).
	Rank Rect `json:"rank_window"`
	Suit Rect `json:"suit_window"`
	// IndexSeparation is how well the rank window tells the closest two ranks apart in the
	// calibration frames (a signal-to-noise figure; under 100 the index is not relied on).
	IndexSeparation float64 `json:"index_separation"`
	// IndexArea is the part of the band, around the rank and suit windows, that every card
	// template also holds at IndexScale times the band's resolution (Template.Index).
	IndexArea  Rect `json:"index_area"`
	IndexScale int  `json:"index_scale"`

	// Cards holds the 52 templates, keyed by card ("As" … "Kc"). Cut and Back are optional.
	Cards map[string]Template `json:"cards"`
	Cut   *Template           `json:"cut,omitempty"`
	Back  *Template           `json:"back,omitempty"`

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
	if p.BandWidth < 16 || p.BandWidth > 1024 || p.BandHeight < p.BandWidth/4 || p.BandHeight > 2*p.BandWidth {
		return bad("band size %dx%d", p.BandWidth, p.BandHeight)
	}
	if !(p.CardWidthPx > 0) || p.CardWidthPx > float64(2*p.Camera.Width) {
		return bad("card width %v px", p.CardWidthPx)
	}
	if p.CardLength != 0 && !(p.CardLength >= float64(p.BandWidth) && p.CardLength <= 2*float64(p.BandWidth)) {
		return bad("card length %v", p.CardLength)
	}
	inBand := func(r Rect) bool { return r.X0 >= 0 && r.Y0 >= 0 && r.X1 <= p.BandWidth && r.Y1 <= p.BandHeight }
	if r := p.Rank; r.Empty() || !inBand(r) {
		return bad("rank window %+v empty or outside the %dx%d band", r, p.BandWidth, p.BandHeight)
	}
	if r := p.Suit; !r.Empty() && !inBand(r) {
		return bad("suit window %+v outside the %dx%d band", r, p.BandWidth, p.BandHeight)
	}
	indexBottom := max(p.Rank.Y1, p.Suit.Y1)
	if r := p.IndexArea; r.Empty() || !inBand(r) || r.X0 > p.Rank.X0 || r.Y0 > p.Rank.Y0 || r.X1 < p.Rank.X1 || r.Y1 < p.Rank.Y1 {
		return bad("index area %+v does not hold the rank window %+v", r, p.Rank)
	}
	if p.IndexScale < 1 || p.IndexScale > 4 {
		return bad("index scale %d", p.IndexScale)
	}
	var missing []string
	for _, c := range card.Deck() {
		if _, ok := p.Cards[c.String()]; !ok {
			missing = append(missing, c.String())
		}
	}
	if len(missing) > 0 {
		return bad("missing card template(s) %v", missing)
	}
	if len(p.Cards) != 52 {
		for k := range p.Cards {
			if _, err := card.Parse(k); err != nil || len(k) != 2 {
				return bad("unknown card template %q", k)
			}
		}
	}
	check := func(name string, t *Template) error {
		if t.ValidRows < indexBottom || t.ValidRows > p.BandHeight {
			return bad("template %s: %d valid rows (need %d…%d)", name, t.ValidRows, indexBottom, p.BandHeight)
		}
		if t.TopRows < 0 || t.TopRows > t.ValidRows/4 {
			return bad("template %s: top %d rows outside the frame (at most a quarter of %d valid)", name, t.TopRows, t.ValidRows)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(t.PNG))
		if err != nil {
			return bad("template %s is not a PNG: %v", name, err)
		}
		if cfg.Width != p.BandWidth || cfg.Height != p.BandHeight {
			return bad("template %s is %dx%d, want %dx%d", name, cfg.Width, cfg.Height, p.BandWidth, p.BandHeight)
		}
		if name == "CUT" || name == "BACK" {
			return nil
		}
		if len(t.Index) == 0 {
			return bad("template %s has no index image", name)
		}
		cfg, err = png.DecodeConfig(bytes.NewReader(t.Index))
		if err != nil {
			return bad("template %s: index is not a PNG: %v", name, err)
		}
		w, h := (p.IndexArea.X1-p.IndexArea.X0)*p.IndexScale, (p.IndexArea.Y1-p.IndexArea.Y0)*p.IndexScale
		if cfg.Width != w || cfg.Height != h {
			return bad("template %s: index is %dx%d, want %dx%d", name, cfg.Width, cfg.Height, w, h)
		}
		return nil
	}
	for _, c := range card.Deck() {
		t := p.Cards[c.String()]
		if err := check(c.String(), &t); err != nil {
			return err
		}
	}
	if p.Cut != nil {
		if err := check("CUT", p.Cut); err != nil {
			return err
		}
	}
	if p.Back != nil {
		if err := check("BACK", p.Back); err != nil {
			return err
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

// DecodeTemplate decodes a template's PNG into an image (pure Go, for tools and tests; the
// recognizer decodes with OpenCV).
func DecodeTemplate(t Template) (image.Image, error) {
	im, err := png.Decode(bytes.NewReader(t.PNG))
	if err != nil {
		return nil, fmt.Errorf("%w: template: %w", ErrProfile, err)
	}
	return im, nil
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
