package driver

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestImports keeps the data flowing one way (STYLE.md): drivers import the card type and nothing
// else above them, and no gocv (vision owns it).
func TestImports(t *testing.T) {
	const mod = "github.com/sabot-tables/sabot/"
	forbidden := []string{mod + "shoe", mod + "vision", mod + "games", mod + "tablebus", mod + "calibration", mod + "cmd", "gocv.io/"}
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if p == mod+"shoe/card" {
				continue
			}
			for _, bad := range forbidden {
				if p == bad || strings.HasPrefix(p, strings.TrimSuffix(bad, "/")+"/") {
					t.Errorf("%s imports %s", path, p)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("only %d files seen: the walk is broken", files)
	}
}
