package games

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The message catalogs: games/text/<lang>.txt, one per language, one message a line:
//
//	code = words with {argument} placeholders
//
// Blank lines and lines starting with # are comments. A placeholder names an argument of the
// Msg; a term argument is rendered from the same catalog. English is the feed's own language
// (the guide event's "say"); every other catalog must hold every code English holds, with the
// same placeholders (TestCatalogs).
//
//go:embed text/*.txt
var catalogFiles embed.FS

// Languages of the catalogs.
const (
	English = "en"
	Spanish = "es"
)

// Languages returns the languages there is a catalog for, English first.
func Languages() []string { return []string{English, Spanish} }

var (
	catalogOnce sync.Once
	catalogs    map[string]map[string]string
	catalogErr  error
)

// Catalog returns the templates of a language by code, or an error naming a catalog's bad line.
func Catalog(lang string) (map[string]string, error) {
	catalogOnce.Do(loadCatalogs)
	if catalogErr != nil {
		return nil, catalogErr
	}
	c, ok := catalogs[lang]
	if !ok {
		return nil, fmt.Errorf("games: no message catalog for language %q (have %s)", lang, strings.Join(Languages(), ", "))
	}
	return c, nil
}

func loadCatalogs() {
	catalogs = map[string]map[string]string{}
	for _, lang := range Languages() {
		name := "text/" + lang + ".txt"
		b, err := catalogFiles.ReadFile(name)
		if err != nil {
			catalogErr = fmt.Errorf("games: %w", err)
			return
		}
		c, err := ParseCatalog(b)
		if err != nil {
			catalogErr = fmt.Errorf("games: %s: %w", name, err)
			return
		}
		catalogs[lang] = c
	}
}

// ParseCatalog reads a catalog: code = template lines. A code given twice, a line without " = "
// or a template with an unclosed brace is an error naming the line.
func ParseCatalog(b []byte) (map[string]string, error) {
	c := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		code, tmpl, ok := strings.Cut(line, " = ")
		code, tmpl = strings.TrimSpace(code), strings.TrimSpace(tmpl)
		if !ok || code == "" || strings.ContainsAny(code, " {}") {
			return nil, fmt.Errorf("line %d: want code = template", n)
		}
		if _, dup := c[code]; dup {
			return nil, fmt.Errorf("line %d: %s given twice", n, code)
		}
		if _, err := Placeholders(tmpl); err != nil {
			return nil, fmt.Errorf("line %d: %s: %w", n, code, err)
		}
		c[code] = tmpl
	}
	return c, sc.Err()
}

// Placeholders returns the argument names a template uses, sorted, once each.
func Placeholders(tmpl string) ([]string, error) {
	var out []string
	for rest := tmpl; ; {
		i := strings.IndexAny(rest, "{}")
		if i < 0 {
			break
		}
		if rest[i] == '}' {
			return nil, fmt.Errorf("a } without its {")
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return nil, fmt.Errorf("a { without its }")
		}
		name := rest[i+1 : i+j]
		if name == "" || strings.ContainsAny(name, "{ ") {
			return nil, fmt.Errorf("bad placeholder {%s}", name)
		}
		if !slices.Contains(out, name) {
			out = append(out, name)
		}
		rest = rest[i+j+1:]
	}
	slices.Sort(out)
	return out, nil
}

// Text renders m in lang. A code the language lacks is rendered in English; a code no catalog
// holds, or an argument a template names that m lacks, is written as the code or as {name}
// rather than dropped (TestCatalogs makes sure neither happens).
func Text(lang string, m Msg) string {
	c, err := Catalog(lang)
	if err != nil {
		if c, err = Catalog(English); err != nil {
			return m.Code
		}
	}
	tmpl, ok := c[m.Code]
	if !ok && lang != English {
		return Text(English, m)
	}
	if !ok {
		return m.Code
	}
	var b strings.Builder
	for rest := tmpl; ; {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			b.WriteString(rest)
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		b.WriteString(rest[:i])
		name := rest[i+1 : i+j]
		a, ok := m.Args[name]
		switch {
		case !ok:
			b.WriteString("{" + name + "}")
		case a.Kind == ArgNum:
			b.WriteString(strconv.FormatInt(a.Num, 10))
		case a.Kind == ArgTerm && a.Term != nil:
			b.WriteString(Text(lang, *a.Term))
		default:
			b.WriteString(a.Text)
		}
		rest = rest[i+j+1:]
	}
	return b.String()
}
