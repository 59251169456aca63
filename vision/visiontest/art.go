package visiontest

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Deck is one card design from the installed card art.
type Deck struct {
	Name string // "anglo", "oxygen", …: the file's name without its extension
	File string // the SVG (or SVGZ) file
	kde  bool   // KDE names its elements "1_club", Aisleriot "club_1"
}

// Art directories searched by Decks, in this order.
var ArtDirs = []string{"/usr/share/aisleriot/cards", "/usr/share/carddecks"}

// ErrNoArt is wrapped when a deck or rsvg-convert is missing.
var ErrNoArt = errors.New("visiontest: card art not installed")

// Decks lists the installed card designs, by name. Bitmap-only and non-French decks are skipped.
func Decks() []Deck {
	var out []Deck
	seen := map[string]bool{}
	for _, dir := range ArtDirs {
		filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			ext := filepath.Ext(p)
			if ext != ".svgz" && ext != ".svg" {
				return nil
			}
			name := strings.TrimSuffix(filepath.Base(p), ext)
			kde := filepath.Base(dir) == "carddecks"
			if kde {
				// KDE keeps each deck in a directory of its own: svg-nicu-ornamental/ornamental.svgz
				// is "nicu-ornamental" (Aisleriot has an "ornamental" too).
				name = strings.TrimPrefix(filepath.Base(filepath.Dir(p)), "svg-")
			}
			if strings.Contains(name, "bitmap") || seen[name] {
				return nil
			}
			seen[name] = true
			out = append(out, Deck{Name: name, File: p, kde: kde})
			return nil
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// LookupDeck finds an installed design by name ("anglo", "tango", "oxygen", "ornamental" …).
func LookupDeck(name string) (Deck, error) {
	var names []string
	for _, d := range Decks() {
		if d.Name == name {
			return d, nil
		}
		names = append(names, d.Name)
	}
	if len(names) == 0 {
		return Deck{}, fmt.Errorf("%w: no decks in %v (apt install gnome-cards-data kdegames-card-data-kf5)", ErrNoArt, ArtDirs)
	}
	return Deck{}, fmt.Errorf("%w: no deck %q (have %s)", ErrNoArt, name, strings.Join(names, ", "))
}

// elementIDs returns the SVG element names a card may have in this deck's file.
func (d Deck) elementIDs(tok string) []string {
	if tok == "BACK" {
		return []string{"back"}
	}
	c := card.MustParse(tok)
	suit := [...]string{"spade", "heart", "diamond", "club"}[c.Suit()]
	var rank string
	switch c.Rank() {
	case card.Jack:
		rank = "jack"
	case card.Queen:
		rank = "queen"
	case card.King:
		rank = "king"
	default:
		rank = fmt.Sprint(int(c.Rank()))
	}
	if d.kde {
		return []string{rank + "_" + suit, suit + "_" + rank}
	}
	return []string{suit + "_" + rank, rank + "_" + suit}
}

// faceCache renders faces with rsvg-convert and keeps them as PNG files.
type faceCache struct {
	deck  Deck
	dir   string
	width int
	mu    sync.Mutex
	zoom  float64
}

// CacheDir is where rendered faces are kept: $SABOT_CARD_CACHE, else the user's cache directory,
// else (when that cannot be written, as under a read-only home) the system's temporary directory.
func CacheDir() string {
	if d := os.Getenv("SABOT_CARD_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		d = filepath.Join(d, "sabot", "cards")
		if os.MkdirAll(d, 0o755) == nil {
			return d
		}
	}
	return filepath.Join(os.TempDir(), "sabot-cards")
}

// path returns the cached PNG of a card's face (tok: a card, or "BACK"), rendering it first if
// needed. The face is width pixels wide, trimmed to the card.
func (fc *faceCache) path(tok string) (string, error) {
	p := filepath.Join(fc.dir, fc.deck.Name, fmt.Sprintf("%s-%d.png", tok, fc.width))
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	if fc.zoom == 0 {
		// The deck's scale: render the ace of spades once at zoom 1 and measure it.
		im, err := fc.render("As", 1)
		if err != nil {
			return "", err
		}
		fc.zoom = float64(fc.width) / float64(im.Bounds().Dx())
	}
	im, err := fc.render(tok, fc.zoom)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", fmt.Errorf("visiontest: %w", err)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, im); err != nil {
		return "", fmt.Errorf("visiontest: %w", err)
	}
	tmp := p + fmt.Sprintf(".%d.tmp", os.Getpid())
	if err := os.WriteFile(tmp, buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("visiontest: %w", err)
	}
	if err := os.Rename(tmp, p); err != nil {
		return "", fmt.Errorf("visiontest: %w", err)
	}
	return p, nil
}

// render runs rsvg-convert for one element and trims the result to the card (rsvg-convert's box
// for an element is sometimes far larger than the element: the KDE decks).
func (fc *faceCache) render(tok string, zoom float64) (image.Image, error) {
	bin, err := exec.LookPath("rsvg-convert")
	if err != nil {
		return nil, fmt.Errorf("%w: rsvg-convert (apt install librsvg2-bin)", ErrNoArt)
	}
	var lastErr error
	for _, id := range fc.deck.elementIDs(tok) {
		cmd := exec.Command(bin, "-i", id, "-z", fmt.Sprintf("%.4f", zoom), fc.deck.File)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			lastErr = fmt.Errorf("visiontest: rsvg-convert %s #%s: %v: %s", fc.deck.File, id, err, strings.TrimSpace(errb.String()))
			continue
		}
		im, err := png.Decode(&out)
		if err != nil {
			lastErr = fmt.Errorf("visiontest: rsvg-convert %s #%s: %w", fc.deck.File, id, err)
			continue
		}
		t, err := trim(im)
		if err != nil {
			lastErr = fmt.Errorf("visiontest: %s #%s: %w", fc.deck.File, id, err)
			continue
		}
		return t, nil
	}
	return nil, lastErr
}

// trim crops an RGBA rendering to its opaque pixels.
func trim(im image.Image) (image.Image, error) {
	b := im.Bounds()
	x0, y0, x1, y1 := b.Max.X, b.Max.Y, b.Min.X, b.Min.Y
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if _, _, _, a := im.At(x, y).RGBA(); a > 0x8000 {
				x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x+1), max(y1, y+1)
			}
		}
	}
	if x1 <= x0 || y1 <= y0 {
		return nil, errors.New("empty rendering")
	}
	type sub interface {
		SubImage(image.Rectangle) image.Image
	}
	s, ok := im.(sub)
	if !ok {
		return nil, errors.New("unexpected image type")
	}
	return s.SubImage(image.Rect(x0, y0, x1, y1)), nil
}
