package floor

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// DefaultCardArt is the deck the view draws its cards from: Aisleriot's "anglo" theme, in
// Debian's gnome-cards-data package (GPL-3+; /usr/share/doc/gnome-cards-data/copyright).
const DefaultCardArt = "/usr/share/aisleriot/cards/anglo.svgz"

// Art is a card deck drawn as one SVG sheet in the Aisleriot layout: 13 columns (ace to king)
// and 5 rows (clubs, diamonds, hearts, spades, then the black joker, the red joker and the
// back). The page shows a card as that cell of the sheet (a CSS sprite).
type Art struct {
	Path    string  `json:"path"`
	Width   float64 `json:"width"`  // the sheet's size in SVG user units
	Height  float64 `json:"height"` //
	CardW   float64 `json:"card_w"` // one cell
	CardH   float64 `json:"card_h"` //
	gz      []byte  // the sheet, gzip-compressed
	plain   []byte  // and as it is
	License string  `json:"license"`
}

// The Aisleriot sheet's layout.
const (
	artCols = 13
	artRows = 5
)

var (
	svgTag  = regexp.MustCompile(`(?s)<svg\b[^>]*>`)
	attrRe  = regexp.MustCompile(`\s(width|height|viewBox)\s*=\s*"([^"]*)"`)
	numUnit = regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]*)?)\s*(px)?\s*$`)
)

// LoadArt reads a deck sheet (.svg, or .svgz as Debian ships them) and checks that it has the
// Aisleriot layout: a root <svg> whose size divides into 13 × 5 cells of a playing card's shape.
func LoadArt(path string) (*Art, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("floor: card art %s: no such file (install gnome-cards-data, or give another Aisleriot deck)", path)
		}
		return nil, fmt.Errorf("floor: card art: %w", err)
	}
	return parseArt(path, raw)
}

func parseArt(path string, raw []byte) (*Art, error) {
	a := &Art{Path: path, License: "card art: Aisleriot card themes, Debian gnome-cards-data, GPL-3+ (https://download.gnome.org/sources/aisleriot/)"}
	if len(raw) >= 2 && raw[0] == 0x1f && raw[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return nil, fmt.Errorf("floor: card art %s: %w", path, err)
		}
		a.plain, err = io.ReadAll(io.LimitReader(zr, 32<<20))
		if err != nil {
			return nil, fmt.Errorf("floor: card art %s: %w", path, err)
		}
		a.gz = raw
	} else {
		a.plain = raw
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(raw)
		zw.Close()
		a.gz = b.Bytes()
	}
	tag := svgTag.Find(a.plain)
	if tag == nil {
		return nil, fmt.Errorf("floor: card art %s: no <svg> element", path)
	}
	attrs := map[string]string{}
	for _, m := range attrRe.FindAllSubmatch(tag, -1) {
		attrs[string(m[1])] = string(m[2])
	}
	w, errW := svgLength(attrs["width"])
	h, errH := svgLength(attrs["height"])
	if errW != nil || errH != nil {
		// Without a size in user units, take the viewBox's.
		f := strings.Fields(strings.ReplaceAll(attrs["viewBox"], ",", " "))
		if len(f) != 4 {
			return nil, fmt.Errorf("floor: card art %s: the <svg> element has no usable width, height or viewBox", path)
		}
		var err1, err2 error
		w, err1 = strconv.ParseFloat(f[2], 64)
		h, err2 = strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("floor: card art %s: bad viewBox %q", path, attrs["viewBox"])
		}
	}
	a.Width, a.Height = w, h
	a.CardW, a.CardH = w/artCols, h/artRows
	// A playing card is about 2.5 × 3.5 in (0.71); the Aisleriot decks are 0.64 to 0.75.
	if r := a.CardW / a.CardH; w <= 0 || h <= 0 || r < 0.55 || r > 0.85 {
		return nil, fmt.Errorf("floor: card art %s: a %g × %g sheet is not 13 × 5 cards (Aisleriot layout)", path, w, h)
	}
	return a, nil
}

func svgLength(s string) (float64, error) {
	m := numUnit.FindStringSubmatch(s)
	if m == nil {
		return 0, fmt.Errorf("not a length in user units: %q", s)
	}
	return strconv.ParseFloat(m[1], 64)
}

// ServeHTTP serves the sheet (gzip-compressed to a client that takes it), for a page of its own
// (the dealer terminal) to draw cards with the view's art.
func (a *Art) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Header().Set("Vary", "Accept-Encoding")
	if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(a.gz)
		return
	}
	w.Write(a.plain)
}
