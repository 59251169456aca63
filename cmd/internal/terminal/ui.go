package terminal

import (
	"embed"
	"fmt"
	"strings"
	"sync"

	"github.com/sabot-tables/sabot/games"
)

// The terminal's own words (ui/<lang>.txt), in the format of the engines' catalogs: one
// catalog per language of games.Languages.
//
//go:embed ui/*.txt
var uiFiles embed.FS

// English is the language of a page nobody is signed in at, and of the logs.
const English = games.English

var (
	uiOnce sync.Once
	ui     map[string]map[string]string
	uiErr  error
)

// UI returns the terminal's catalog of a language (English where there is none).
func UI(lang string) (map[string]string, error) {
	uiOnce.Do(func() {
		ui = map[string]map[string]string{}
		for _, l := range games.Languages() {
			b, err := uiFiles.ReadFile("ui/" + l + ".txt")
			if err != nil {
				uiErr = fmt.Errorf("terminal: %w", err)
				return
			}
			c, err := games.ParseCatalog(b)
			if err != nil {
				uiErr = fmt.Errorf("terminal: ui/%s.txt: %w", l, err)
				return
			}
			ui[l] = c
		}
	})
	if uiErr != nil {
		return nil, uiErr
	}
	if c, ok := ui[lang]; ok {
		return c, nil
	}
	return ui[English], nil
}

// Say renders a code of the terminal's catalog in lang with text arguments.
func Say(lang, code string, args map[string]string) string {
	c, err := UI(lang)
	if err != nil {
		return code
	}
	tmpl, ok := c[code]
	if !ok {
		return code
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
		if v, ok := args[name]; ok {
			b.WriteString(v)
		} else {
			b.WriteString("{" + name + "}")
		}
		rest = rest[i+j+1:]
	}
	return b.String()
}
