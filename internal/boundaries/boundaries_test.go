package boundaries

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/sabot-tables/sabot"

// An imp is one import of one file: from is the importing package's directory (relative to the
// module root, "/"-separated), to the import path.
type imp struct {
	file string
	from string
	to   string
	test bool // the file is a _test.go file
}

// within says whether pkg is dir or below it.
func within(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

// libs says where each third-party library may be imported (a package and those below it), in
// every file, tests included: the rest of the tree is pure Go and builds and tests without
// OpenCV, a broker or a device (STYLE.md habit 2). A library not listed may be imported
// anywhere (golang.org/x/sys, golang.org/x/sync).
var libs = []struct {
	lib   string // an import path prefix
	where []string
}{
	{"gocv.io/x/gocv", []string{"vision"}},                                           // all gocv code lives in vision/
	{"github.com/eclipse/paho.mqtt.golang", []string{"tablebus/mqttbus"}},            // one package speaks MQTT
	{"go.bug.st/serial", []string{"driver"}},                                         // the only code that touches hardware
	{"periph.io/x", []string{"driver"}},                                              // GPIO: the camera shoe's sensors, buttons, LED
	{"github.com/creack/pty", []string{"driver/internal/ptyline"}},                   // the simulators' serial lines
	{"github.com/mochi-mqtt/server", []string{"tablebus/broker"}},                    // the embedded broker
	{"modernc.org/sqlite", []string{"tablebus/journal", "games/progressive/ledger"}}, // the two durable stores
	{"github.com/jackc/pgx", []string{"games/progressive/ledger"}},                   // a floor's pools on PostgreSQL
	{"github.com/prometheus/client_golang", []string{"cmd"}},                         // metrics are the commands' business
	{"github.com/chromedp", []string{"cmd/sabotd"}},                                  // the browser test of the web view
}

// libExceptions are the packages that import a library outside its place, each with its reason
// (none today: cmd/sabot reaches OpenCV through vision/cv and vision/camcheck). An exception that
// no longer occurs fails the test: remove it.
var libExceptions = []struct{ lib, pkg, why string }{}

// The layers. Data flows one way, driver → shoe → tablebus → games, with vision feeding the
// shoe and calibration making the profiles vision loads (STYLE.md "The shape"). The layers meet
// in cmd/, which wires them through interfaces the consumer declares (the shoe's Shuffler and
// Sink, a games.Engine), so a package of one layer imports another layer only where listed in
// crossings. shoe/card, the card type, belongs to no layer: everyone imports it.
var layers = []string{"driver", "shoe", "tablebus", "games", "vision", "calibration"}

// flow is the data flow's order: no package of an earlier layer imports a later one, except by
// a crossing marked as against the flow. vision and calibration are beside it.
var flow = []string{"driver", "shoe", "tablebus", "games"}

// free are the parts of the tree that may import any package of the module.
var free = []string{"cmd", "internal"}

// crossings are today's imports from one layer into another, each with its reason: from and to
// are exact packages, so that, say, shoe importing games/catalog or tablebus/outbox fails.
var crossings = []struct{ from, to, why string }{
	// Against the flow: an earlier layer uses a later layer's types.
	{"shoe", "games", "the machine deals into a games.Engine and asks it what the round needs next (games.Need): the engine is the other half of the dealing rules, driven from Step"},
	{"shoe", "tablebus", "Step's outputs are the wire events themselves (tablebus.Event), so what the machine decides is what is journaled, signed and published, with no mapping between"},
	{"shoe", "tablebus/journal", "Restore's Journal interface returns the journal's own steps (journal.Step)"},
	{"shoe/shoetest", "games", "the simulated table runs a Machine with a game engine"},
	{"shoe/shoetest", "tablebus", "the simulated table collects the events the Machine emits"},
	{"shoe/shoetest", "games/progressive", "the simulated table answers its progressive claims as a floor's controller would, with the pool's prize table"},
	{"tablebus", "games", "the wire types are tablebus's own, mapped from the games' types (bets, places, needs, hands, settlements) in tablebus/games.go alone (TestOnlyGamesGoImportsGames)"},
	// Along the flow: a later layer reads what an earlier one hands it.
	{"games/follow", "tablebus", "the loop that feeds an engine from the table's feed reads tablebus events"},
	// Beside it.
	{"vision/cv", "calibration", "the recognizer loads the vision profile that calibration defines"},
	{"vision/visiontest/simcam", "calibration", "the simulated camera's profile is calibrated from a rendered pass"},
	{"vision/camcheck", "calibration", "the camera check compares the frame with the vision profile's camera and card width"},
}

func layerOf(pkg string) string {
	for _, l := range layers {
		if within(pkg, l) {
			return l
		}
	}
	return ""
}

func before(a, b string) bool {
	i, j := slices.Index(flow, a), slices.Index(flow, b)
	return i >= 0 && j >= 0 && i < j
}

// check returns each import that breaks a rule, and which exceptions were needed.
func check(imps []imp) (bad []string, used map[string]bool) {
	used = map[string]bool{}
	for _, m := range imps {
		where := m.file
		if own, ok := strings.CutPrefix(m.to, module+"/"); ok || m.to == module {
			if !ok {
				own = ""
			}
			if within(m.from, "shoe/card") {
				bad = append(bad, fmt.Sprintf("%s imports %s: the card type imports nothing else of the module", where, m.to))
				continue
			}
			if m.test || within(own, "shoe/card") {
				continue // tests may build their fixtures from other layers
			}
			if slices.ContainsFunc(free, func(d string) bool { return within(m.from, d) }) {
				continue
			}
			lf, lt := layerOf(m.from), layerOf(own)
			switch {
			case lf == "":
				bad = append(bad, fmt.Sprintf("%s: package %s is in no layer of STYLE.md's shape (%s) nor in %s: add it to the layers of internal/boundaries",
					where, m.from, strings.Join(layers, ", "), strings.Join(free, ", ")))
			case lt == "" && !slices.ContainsFunc(free, func(d string) bool { return within(own, d) }):
				bad = append(bad, fmt.Sprintf("%s imports %s, which is in no layer", where, m.to))
			case lt == lf:
			case slices.ContainsFunc(free, func(d string) bool { return within(own, d) }):
				bad = append(bad, fmt.Sprintf("%s imports %s: only cmd/ wires the layers; cmd/ and internal/ are imported by nothing else", where, m.to))
			default:
				k := m.from + " → " + own
				if slices.ContainsFunc(crossings, func(c struct{ from, to, why string }) bool { return c.from == m.from && c.to == own }) {
					used[k] = true
					continue
				}
				rule := "the layers meet in cmd/, through interfaces the consumer declares"
				if before(lf, lt) {
					rule = fmt.Sprintf("data flows %s: %s may not import %s", strings.Join(flow, " → "), lf, lt)
				}
				bad = append(bad, fmt.Sprintf("%s imports %s: %s (if it must, list %s in crossings with its reason)", where, m.to, rule, k))
			}
			continue
		}
		for _, l := range libs {
			if m.to != l.lib && !strings.HasPrefix(m.to, l.lib+"/") {
				continue
			}
			if slices.ContainsFunc(l.where, func(d string) bool { return within(m.from, d) }) {
				break
			}
			k := l.lib + " in " + m.from
			if slices.ContainsFunc(libExceptions, func(e struct{ lib, pkg, why string }) bool { return e.lib == l.lib && e.pkg == m.from }) {
				used[k] = true
				break
			}
			bad = append(bad, fmt.Sprintf("%s imports %s: %s is imported only under %s", where, m.to, l.lib, strings.Join(l.where, ", ")))
			break
		}
	}
	return bad, used
}

// scan reads the imports of every .go file under root, as the go tool would see the module:
// not testdata, not directories whose name starts with . or _, not another module.
func scan(root string) ([]imp, int, error) {
	var imps []imp
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == root {
				return nil
			}
			n := d.Name()
			if n == "testdata" || n == "vendor" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		for _, s := range f.Imports {
			p, err := strconv.Unquote(s.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: %w", rel, err)
			}
			imps = append(imps, imp{file: rel, from: filepath.ToSlash(filepath.Dir(rel)), to: p, test: strings.HasSuffix(rel, "_test.go")})
		}
		return nil
	})
	return imps, files, err
}

// TestImports checks the whole module's imports against the rules.
func TestImports(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(root, "go.mod")); err != nil || !strings.HasPrefix(string(b), "module "+module+"\n") {
		t.Fatalf("%s is not the module's root (%v)", root, err)
	}
	imps, files, err := scan(root)
	if err != nil {
		t.Fatal(err)
	}
	if files < 200 {
		t.Fatalf("only %d .go files under %s: the walk is broken", files, root)
	}
	bad, used := check(imps)
	for _, b := range bad {
		t.Error(b)
	}
	for _, c := range crossings {
		if k := c.from + " → " + c.to; !used[k] {
			t.Errorf("the crossing %s no longer occurs: remove it from crossings", k)
		}
	}
	for _, e := range libExceptions {
		if k := e.lib + " in " + e.pkg; !used[k] {
			t.Errorf("%s no longer imports %s: remove it from libExceptions", e.pkg, e.lib)
		}
	}
	t.Logf("%d files, %d imports, %d known exceptions", files, len(imps), len(used))
}

// TestRules shows that each rule fails on a violation and lets the allowed imports by.
func TestRules(t *testing.T) {
	for _, c := range []struct {
		from, to string
		test     bool
		want     string // part of the complaint; "" for none
	}{
		{"vision/cv", "gocv.io/x/gocv", false, ""},
		{"vision/cv", "gocv.io/x/gocv", true, ""},
		{"tablebus/outbox", "gocv.io/x/gocv", false, "gocv.io/x/gocv is imported only under vision"},
		{"cmd/sabotd", "gocv.io/x/gocv", false, "only under vision"},
		{"shoe", "gocv.io/x/gocv", true, "only under vision"},
		{"cmd/sabot", "gocv.io/x/gocv", false, "only under vision"},
		{"vision/camcheck", "gocv.io/x/gocv", false, ""},
		{"calibration", "gocv.io/x/gocv", false, "only under vision"},
		{"tablebus/mqttbus", "github.com/eclipse/paho.mqtt.golang", false, ""},
		{"tablebus/outbox", "github.com/eclipse/paho.mqtt.golang", false, "only under tablebus/mqttbus"},
		{"cmd/sabot", "github.com/eclipse/paho.mqtt.golang", true, "only under tablebus/mqttbus"},
		{"driver/shuffler", "go.bug.st/serial", false, ""},
		{"cmd/sabotd", "go.bug.st/serial", false, "only under driver"},
		{"driver/camerashoe", "periph.io/x/host/v3", false, ""},
		{"shoe", "periph.io/x/conn/v3/gpio", false, "only under driver"},
		{"tablebus", "github.com/prometheus/client_golang/prometheus", false, "only under cmd"},
		{"shoe/card", "fmt", false, ""},
		{"shoe/card", module + "/games", false, "the card type imports nothing else"},
		{"shoe/card", module + "/shoe", true, "the card type imports nothing else"},
		{"driver/shuffler", module + "/shoe/card", false, ""},
		{"driver/shuffler", module + "/shoe", false, "data flows driver → shoe → tablebus → games: driver may not import shoe"},
		{"driver/readershoe", module + "/tablebus", false, "driver may not import tablebus"},
		{"driver/readershoe", module + "/vision", false, "the layers meet in cmd/"},
		{"shoe", module + "/games", false, ""},
		{"shoe", module + "/games/catalog", false, "shoe may not import games"},
		{"shoe", module + "/games/catalog", true, ""}, // a test's fixtures
		{"shoe", module + "/tablebus/outbox", false, "shoe may not import tablebus"},
		{"shoe", module + "/driver/shuffler", false, "the layers meet in cmd/"},
		{"shoe", module + "/vision", false, "the layers meet in cmd/"},
		{"tablebus", module + "/games", false, ""},
		{"tablebus/outbox", module + "/games", false, "tablebus may not import games"},
		{"tablebus", module + "/games/blackjack", false, "tablebus may not import games"},
		{"tablebus/journal", module + "/shoe", false, "the layers meet in cmd/"},
		{"games/follow", module + "/tablebus", false, ""},
		{"games/follow", module + "/tablebus/consumer", false, "the layers meet in cmd/"},
		{"games/blackjack", module + "/tablebus", false, "the layers meet in cmd/"},
		{"games/blackjack", module + "/shoe", false, "the layers meet in cmd/"},
		{"games/poker", module + "/games/poker/hand", false, ""},
		{"vision/cv", module + "/calibration", false, ""},
		{"vision/cv", module + "/shoe", false, "the layers meet in cmd/"},
		{"calibration", module + "/vision", false, "the layers meet in cmd/"},
		{"calibration/camera", module + "/vision/cv", false, "the layers meet in cmd/"},
		{"shoe", module + "/cmd/internal/floor", false, "only cmd/ wires the layers"},
		{"cmd/sabotd", module + "/driver/shuffler", false, ""},
		{"docs/tool", module + "/shoe", false, "is in no layer"},
	} {
		bad, _ := check([]imp{{file: c.from + "/x.go", from: c.from, to: c.to, test: c.test}})
		switch {
		case c.want == "" && len(bad) > 0:
			t.Errorf("%s → %s (test %v): refused, want allowed: %v", c.from, c.to, c.test, bad)
		case c.want != "" && (len(bad) != 1 || !strings.Contains(bad[0], c.want)):
			t.Errorf("%s → %s (test %v): %q, want one complaint with %q", c.from, c.to, c.test, bad, c.want)
		}
	}
}
