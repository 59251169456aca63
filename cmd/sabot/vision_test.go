package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/sabot-tables/sabot/calibration"
	"github.com/sabot-tables/sabot/vision/visiontest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if visionFixture.dir != "" {
		os.RemoveAll(visionFixture.dir)
	}
	os.Exit(code)
}

// sabot runs the command line and returns what it printed on stdout and stderr.
func sabot(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), err
}

// The fixture: a labelled set of one design rendered by the project's renderer (no ../shared:
// issue 16), calibrated through `sabot calibrate vision` once per test binary (minutes on a
// loaded machine), the profile shared by the tests.
const fixtureDeck = "tango"

type visionFix struct {
	once     sync.Once
	dir      string // calib/, frames/ (labels.csv)
	profile  string // the profile calibrated from calib/
	report   string // its report
	out, err string // what calibrate vision printed
	p        *calibration.VisionProfile
	fail     error
}

var visionFixture visionFix

// visionSet returns the fixture, rendering and calibrating it on first use.
func visionSet(t *testing.T) *visionFix {
	t.Helper()
	if testing.Short() {
		t.Skip("renders and calibrates a deck (-short)")
	}
	r := visiontest.NeedArt(t, fixtureDeck)
	defer r.Close()
	f := &visionFixture
	f.once.Do(func() {
		f.dir, f.fail = os.MkdirTemp("", "sabot-cli-vision-")
		if f.fail != nil {
			return
		}
		spec := visiontest.SetSpec{Shoe: 1, Table: 1, Other: 2, Seed: 11}
		if f.fail = r.WriteSet(context.Background(), f.dir, spec); f.fail != nil {
			return
		}
		f.profile = filepath.Join(f.dir, "tango.json")
		f.report = filepath.Join(f.dir, "report.png")
		var out, errb bytes.Buffer
		f.fail = run(context.Background(), []string{"calibrate", "vision", "--dir", filepath.Join(f.dir, "calib"), "--deck", fixtureDeck, "--out", f.profile, "--report", f.report},
			strings.NewReader(""), &out, &errb)
		f.out, f.err = out.String(), errb.String()
		if f.fail != nil {
			f.fail = fmt.Errorf("calibrate vision: %w\n%s%s", f.fail, f.out, f.err)
			return
		}
		f.p, f.fail = calibration.LoadVision(f.profile)
	})
	if f.fail != nil {
		t.Fatal(f.fail)
	}
	return f
}

// labels reads the fixture's labels.csv: file → card, and the files of each view.
func labels(t *testing.T, dir string) (map[string]string, map[string][]string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "labels.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	card, byView := map[string]string{}, map[string][]string{}
	for _, r := range recs[1:] {
		card[r[0]] = r[1]
		byView[r[2]] = append(byView[r[2]], filepath.Join(dir, r[0]))
	}
	return card, byView
}

// TestCalibrateVision checks what `sabot calibrate vision` printed: the profile's facts, each a
// line, with the figures the profile holds.
func TestCalibrateVision(t *testing.T) {
	f := visionSet(t)
	p := f.p
	shoe, table := p.Rules["shoe"], p.Rules["table"]
	rule := func(r calibration.VisionRule) string {
		return fmt.Sprintf("distance ≤ %.3f, each part ≤ %.3f and lead ≥ %.2f; estimated false accepts %s a frame; read in calibration %.1f%% (%d perturbed frames, 0 wrong)",
			r.MaxDistance, r.MaxPart, r.MinLead, rateText(r.FalseAccept), 100*r.ReadRate, r.Samples)
	}
	want := []string{
		"profile " + f.profile,
		fmt.Sprintf(`  deck "tango", camera shoe-reader 320x240, from shoe frames, one pass, created %s`, p.Created.Format("2006-01-02 15:04")),
		fmt.Sprintf("  card width %.1f px, card length %.3f card widths", p.CardWidthPx, p.CardLength),
		"  shoe: " + rule(shoe),
		"  table: " + rule(table),
	}
	for _, n := range p.Notes {
		want = append(want, "  note: "+n)
	}
	want = append(want, "  report "+f.report)
	if got := strings.Split(strings.TrimSuffix(f.out, "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("calibrate vision printed:\n%s\nwant:\n%s", f.out, strings.Join(want, "\n"))
	}
	// What the profile says of itself: one pass of a reader, its rules under the target.
	if p.Deck != "tango" || p.Source != "shoe" || p.Passes != 1 || p.CardLength == 0 || len(p.Notes) == 0 || !strings.HasPrefix(p.Notes[0], "one pass: ") {
		t.Errorf("profile: deck %q source %q passes %d length %v notes %q", p.Deck, p.Source, p.Passes, p.CardLength, p.Notes)
	}
	for v, r := range p.Rules {
		if r.Wrong != 0 || r.FalseAccept >= 1e-4 || r.Samples == 0 || len(r.Noise) != 3 {
			t.Errorf("%s rule %+v", v, r)
		}
	}
	// The stages went to stderr, one line each.
	if !strings.HasPrefix(f.err, "calibrating: found the card in every frame (54 frames)\ncalibrating: measuring the shoe view's noise (54 frames)\n") {
		t.Errorf("stderr:\n%s", f.err)
	}
	if st, err := os.Stat(f.report); err != nil || st.Size() < 10000 {
		t.Errorf("report: %v", err)
	}
}

func rateText(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v < 1e-3:
		return fmt.Sprintf("%.1e", v)
	}
	return fmt.Sprintf("%.4f", v)
}

// readLines decodes vision read's JSON lines.
func readLines(t *testing.T, out string) []map[string]any {
	t.Helper()
	var lines []map[string]any
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var m map[string]any
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%v in:\n%s", err, out)
		}
		lines = append(lines, m)
	}
	return lines
}

// TestVisionRead reads frames through the command line: one JSON line each with exactly its
// fields, a bad file an error line and exit status 1, a wrong card never.
func TestVisionRead(t *testing.T) {
	f := visionSet(t)
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk.jpg")
	os.WriteFile(junk, []byte("junk"), 0o644)
	qh := filepath.Join(f.dir, "calib", "Qh.jpg")
	out, _, err := sabot(t, "vision", "read", "--profile", f.profile, qh, junk)
	if err == nil || err.Error() != "vision read: 1 of 2 files could not be read" {
		t.Errorf("vision read: %v", err)
	}
	lines := readLines(t, out)
	if len(lines) != 2 {
		t.Fatalf("vision read printed:\n%s", out)
	}
	keys := func(m map[string]any) string {
		var k []string
		for _, n := range []string{"file", "card", "confidence", "reject", "error", "view", "ms"} {
			if _, ok := m[n]; ok {
				k = append(k, n)
			}
		}
		return strings.Join(k, ",")
	}
	first := lines[0]
	if keys(first) != "file,card,confidence,view,ms" || len(first) != 5 || first["file"] != qh || first["card"] != "Qh" || first["view"] != "shoe" ||
		first["confidence"].(float64) <= 0 || first["confidence"].(float64) > 1 || first["ms"].(float64) <= 0 {
		t.Errorf("first line %v", first)
	}
	second := lines[1]
	if keys(second) != "file,card,confidence,error,ms" || len(second) != 5 || second["card"] != nil || second["confidence"].(float64) != 0 ||
		!strings.HasPrefix(second["error"].(string), junk+": vision: bad frame: ") {
		t.Errorf("second line %v", second)
	}

	// Frames of both views, chosen by their size: each read as labelled or rejected with a
	// reason, never read as another card.
	card, byView := labels(t, filepath.Join(f.dir, "frames"))
	files := append(append([]string{}, byView["shoe"][:12]...), byView["table"][:12]...)
	out, _, err = sabot(t, append([]string{"vision", "read", "--profile", f.profile}, files...)...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines = readLines(t, out)
	if len(lines) != len(files) {
		t.Fatalf("%d lines for %d files", len(lines), len(files))
	}
	read := 0
	for i, l := range lines {
		want, view := card[filepath.Base(files[i])], "shoe"
		if i >= 12 {
			view = "table"
		}
		switch {
		case l["file"] != files[i] || l["view"] != view:
			t.Errorf("line %d: %v, want %s read as %s", i, l, files[i], view)
		case l["card"] == want:
			read++
		case l["card"] != nil:
			t.Errorf("WRONG: %s is %s, read %v", files[i], want, l)
		case l["reject"] == nil || l["reject"] == "":
			t.Errorf("%s not read and no reason: %v", files[i], l)
		}
	}
	if read < len(files)/2 {
		t.Errorf("%d of %d frames read", read, len(files))
	}

	// --view shoe on a table camera's frame: the frame's size is refused, naming the file.
	tf := byView["table"][0]
	out, _, err = sabot(t, "vision", "read", "--view", "shoe", "--profile", f.profile, tf)
	if l := readLines(t, out); err == nil || len(l) != 1 || l[0]["error"] != tf+": vision: bad frame: 640x480, the profile's reader camera gives 320x240 frames" {
		t.Errorf("table frame as shoe: %v\n%s", err, out)
	}
	if _, _, err := sabot(t, "vision", "read", "--view", "side", "--profile", f.profile, tf); err == nil || err.Error() != `vision read: --view "side": want auto, shoe or table` {
		t.Errorf("--view side: %v", err)
	}
}

// TestVisionReadExplain prints the trace of a frame: the outline, the five best classes, the
// rule and the decision.
func TestVisionReadExplain(t *testing.T) {
	f := visionSet(t)
	qh := filepath.Join(f.dir, "calib", "Qh.jpg")
	junk := filepath.Join(t.TempDir(), "junk.png")
	os.WriteFile(junk, []byte("junk"), 0o644)
	out, _, err := sabot(t, "vision", "read", "--explain", "--profile", f.profile, qh, junk)
	if err == nil || err.Error() != "vision read: 1 of 2 files could not be read" {
		t.Errorf("vision read --explain: %v", err)
	}
	blocks := strings.Split(strings.TrimSuffix(out, "\n\n"), "\n\n")
	if len(blocks) != 2 {
		t.Fatalf("vision read --explain printed:\n%s", out)
	}
	lines := strings.Split(blocks[0], "\n")
	shoe := f.p.Rules["shoe"]
	pats := []string{
		`^` + regexp.QuoteMeta(qh) + `: Qh \(\d\.\d\d\)$`,
		`^view: shoe$`,
		`^outline: top edge \d+ points, left side \d+ points, right side \d+ points \(steps of \d+ and more[;,] .*\)$`,
		`^corners: \(\d+\.\d, \d+\.\d\) \(\d+\.\d, \d+\.\d\); card width \d+\.\d px$`,
		`^  1\. Qh   distance \d+\.\d\d\d, leads the runner-up by \d+\.\d\d \(end [01], blur \d+ px along, \d\.\d px round; left corner \([-+]\d, [-+]\d\) gain \d\.\d\d \d\.\d\d \d\.\d\d distance \d+\.\d\d; .*\)$`,
		`^  2\. \S+ +distance \d+\.\d\d\d, led by -?\d+\.\d\d \(end [01], .*\)$`,
		`^  3\. \S+ +distance \d+\.\d\d\d, led by -?\d+\.\d\d \(end [01], .*\)$`,
		`^  4\. \S+ +distance \d+\.\d\d\d, led by -?\d+\.\d\d \(end [01], .*\)$`,
		`^  5\. \S+ +distance \d+\.\d\d\d, led by -?\d+\.\d\d \(end [01], .*\)$`,
		`^` + regexp.QuoteMeta(fmt.Sprintf("rule: distance at most %.3f, each part at most %.3f, lead at least %.2f (estimated false accepts %.1g a frame)", shoe.MaxDistance, shoe.MaxPart, shoe.MinLead, shoe.FalseAccept)) + `$`,
		`^decision: accepted: distance \d+\.\d\d\d ≤ ` + regexp.QuoteMeta(fmt.Sprintf("%.3f", shoe.MaxDistance)) + `, worst part \d+\.\d\d\d ≤ ` + regexp.QuoteMeta(fmt.Sprintf("%.3f", shoe.MaxPart)) + ` and lead \d+\.\d\d over \S+ ≥ ` + regexp.QuoteMeta(fmt.Sprintf("%.2f", shoe.MinLead)) + `$`,
	}
	if len(lines) != len(pats) {
		t.Fatalf("trace of %d lines, want %d:\n%s", len(lines), len(pats), blocks[0])
	}
	for i, p := range pats {
		if !regexp.MustCompile(p).MatchString(lines[i]) {
			t.Errorf("trace line %d %q does not match %s", i, lines[i], p)
		}
	}
	if !strings.HasPrefix(blocks[1], junk+": error: "+junk+": vision: bad frame: ") {
		t.Errorf("junk's trace: %q", blocks[1])
	}
	// The empty window: decided without a card outline, or rejected, with its reason.
	_, byView := labels(t, filepath.Join(f.dir, "frames"))
	out, _, err = sabot(t, "vision", "read", "--explain", "--profile", f.profile, byView["none"][0])
	if err != nil || !regexp.MustCompile(`(?m)^decision: (no card outline|rejected: |accepted: distance .* over )`).MatchString(out) || !strings.Contains(out, "\noutline: ") {
		t.Errorf("empty window's trace: %v\n%s", err, out)
	}
}

// TestVisionReadMap writes the misfit map of an explained frame, and --map alone is refused.
func TestVisionReadMap(t *testing.T) {
	f := visionSet(t)
	qh := filepath.Join(f.dir, "calib", "Qh.jpg")
	dir := filepath.Join(t.TempDir(), "maps")
	if _, _, err := sabot(t, "vision", "read", "--map", dir, "--profile", f.profile, qh); err == nil || err.Error() != "vision read: --map needs --explain" {
		t.Errorf("--map without --explain: %v", err)
	}
	out, _, err := sabot(t, "vision", "read", "--explain", "--map", dir, "--profile", f.profile, qh)
	want := filepath.Join(dir, "Qh.jpg.map.png")
	if err != nil || !strings.Contains(out, "\nmap: "+want+"\n") {
		t.Fatalf("vision read --explain --map: %v\n%s", err, out)
	}
	r, err := os.Open(want)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	img, err := png.Decode(r)
	if err != nil {
		t.Fatalf("%s: %v", want, err)
	}
	if b := img.Bounds(); b.Dx() < 360 || b.Dy() < 100 {
		t.Errorf("%s is %v", want, b)
	}
}

// TestVisionEval scores the labelled set: per view, its frames, 0 wrong.
func TestVisionEval(t *testing.T) {
	f := visionSet(t)
	sheet := filepath.Join(t.TempDir(), "misread.png")
	out, _, err := sabot(t, "vision", "eval", "--profile", f.profile, "--frames", filepath.Join(f.dir, "frames"), "--sheet", sheet, "--list")
	if err != nil {
		t.Fatalf("vision eval: %v\n%s", err, out)
	}
	lines := strings.Split(out, "\n")
	if lines[0] != fmt.Sprintf(`%s with %s (deck "tango", camera shoe-reader 320x240)`, filepath.Join(f.dir, "frames"), f.profile) {
		t.Errorf("first line %q", lines[0])
	}
	// 52 shoe frames and 2 each of the cut card and the back; 52 table frames; 2 empty windows.
	group := regexp.MustCompile(`^(\w+) +(\d+) frames +(\d+) correct \( *[\d.]+%\) +(\d+) wrong +(\d+) rejected +median [\d.]+ ms +p99 [\d.]+ ms$`)
	counts := map[string][4]int{}
	for _, l := range lines[1:4] {
		m := group.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("group line %q", l)
		}
		var n [4]int
		for i := range n {
			fmt.Sscan(m[2+i], &n[i])
		}
		counts[m[1]] = n
	}
	for g, frames := range map[string]int{"shoe": 56, "table": 52, "none": 2} {
		c, ok := counts[g]
		if !ok || c[0] != frames || c[2] != 0 || c[1]+c[3] != frames {
			t.Errorf("%s: %v, want %d frames, 0 wrong", g, c, frames)
		}
	}
	// Then, per view, how often the labelled class fits beyond the threshold.
	fits := regexp.MustCompile(`^(\w+) +the labelled class fits beyond the threshold in (\d+) of (\d+) frames with a card found \( *[\d.]+%; calibration's perturbed frames: 5%\)$`)
	for i, g := range []string{"shoe", "table"} {
		m := fits.FindStringSubmatch(lines[4+i])
		var beyond, measured int
		if m != nil {
			fmt.Sscan(m[2], &beyond)
			fmt.Sscan(m[3], &measured)
		}
		if m == nil || m[1] != g || measured == 0 || measured > counts[g][0] || beyond > measured {
			t.Errorf("fit line %q, want %s's", lines[4+i], g)
		}
	}
	// Then, per view with a rejection, why: as many as the view's rejections.
	reject := regexp.MustCompile(`^(\w+) +(\d+) rejected((?:, \d+ [a-z ]+(?: \([^)]*\))?)+)$`)
	byTest := regexp.MustCompile(`, (\d+) ([a-z ]+)`)
	seen := map[string]bool{}
	for _, l := range lines[6:] {
		m := reject.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		var n, sum int
		fmt.Sscan(m[2], &n)
		for _, b := range byTest.FindAllStringSubmatch(m[3], -1) {
			var k int
			fmt.Sscan(b[1], &k)
			sum += k
		}
		if c := counts[m[1]]; n != c[3] {
			t.Errorf("rejection line %q (its reasons %d): %s has %d rejected", l, sum, m[1], c[3])
		}
		seen[m[1]] = true
	}
	bad := 0
	for g, c := range counts {
		bad += c[3]
		if c[3] > 0 && !seen[g] {
			t.Errorf("%s: %d rejected and no line saying why:\n%s", g, c[3], out)
		}
	}
	listed := strings.Count(out, "\n  rejected ")
	if listed != bad || strings.Contains(out, "WRONG") {
		t.Errorf("%d rejected, %d listed:\n%s", bad, listed, out)
	}
	if bad > 0 {
		if !strings.Contains(out, fmt.Sprintf("\n%d frames read wrong or rejected: %s\n", bad, sheet)) {
			t.Errorf("no contact sheet line:\n%s", out)
		}
		if _, err := os.Stat(sheet); err != nil {
			t.Error(err)
		}
	} else if !strings.HasSuffix(out, "every frame read correctly\n") {
		t.Errorf("vision eval printed:\n%s", out)
	}
}

// copyDir copies the image files of src into a new directory, leaving out those named.
func copyDir(t *testing.T, src string, leave ...string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() || strings.Contains(strings.Join(leave, " "), e.Name()) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// TestVisionBadInput: every bad input is one error naming the file and the problem, and no
// profile is written.
func TestVisionBadInput(t *testing.T) {
	f := visionSet(t)
	calib := filepath.Join(f.dir, "calib")
	dir := t.TempDir()
	out := filepath.Join(dir, "x.json")
	calibrate := func(args ...string) error {
		_, _, err := sabot(t, append(append([]string{"calibrate", "vision"}, args...), "--out", out)...)
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%v wrote a profile", args)
		}
		return err
	}
	// A card missing from a pass.
	short := copyDir(t, calib, "7c.jpg")
	if err := calibrate("--dir", short); err == nil || err.Error() != "calibrate vision: "+short+": vision: calibration: pass 1 has no frame of 7c" {
		t.Errorf("a card missing: %v", err)
	}
	// ... from the turned pass: the passes are named.
	if err := calibrate("--dir", calib, "--turned", short); err == nil || err.Error() != fmt.Sprintf("calibrate vision: pass 1 %s, pass 2 (turned) %s: vision: calibration: pass 2 has no frame of 7c", calib, short) {
		t.Errorf("a card missing from the turned pass: %v", err)
	}
	// A frame of another size.
	odd := copyDir(t, calib, "5d.jpg")
	_, byView := labels(t, filepath.Join(f.dir, "frames"))
	b, _ := os.ReadFile(byView["table"][0])
	os.WriteFile(filepath.Join(odd, "5d.jpg"), b, 0o644)
	if err := calibrate("--dir", odd, "--source", "shoe"); err == nil || !strings.Contains(err.Error(), filepath.Join(odd, "5d.jpg")+" is 640x480, the other frames 320x240") {
		t.Errorf("a frame of another size: %v", err)
	}
	// A file that is not a card's.
	named := copyDir(t, calib)
	os.WriteFile(filepath.Join(named, "Zz.jpg"), b, 0o644)
	if err := calibrate("--dir", named); err == nil || !strings.Contains(err.Error(), filepath.Join(named, "Zz.jpg")+": the name is not a card code") {
		t.Errorf("a file named Zz: %v", err)
	}
	// An undecodable frame.
	junk := copyDir(t, calib)
	os.WriteFile(filepath.Join(junk, "As.jpg"), []byte("junk"), 0o644)
	if err := calibrate("--dir", junk); err == nil || !strings.Contains(err.Error(), filepath.Join(junk, "As.jpg")+": vision: bad frame") {
		t.Errorf("a junk frame: %v", err)
	}
	if err := calibrate("--dir", filepath.Join(dir, "none")); err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "none")) {
		t.Errorf("no directory: %v", err)
	}
	if err := calibrate("--dir", calib, "--source", "film"); err == nil || err.Error() != `calibrate vision: --source "film": want shoe or photo` {
		t.Errorf("--source film: %v", err)
	}
	if err := calibrate("--video", filepath.Join(dir, "none.avi")); err == nil || !strings.Contains(err.Error(), "none.avi: no such file") {
		t.Errorf("no video: %v", err)
	}
	if err := calibrate("--device", "/dev/video99"); err == nil || !strings.Contains(err.Error(), "camera /dev/video99") {
		t.Errorf("no camera: %v", err)
	}
	if err := calibrate(); err != errUsage {
		t.Errorf("no source: %v", err)
	}
	if err := calibrate("--dir", calib, "--device", "/dev/video0"); err != errUsage {
		t.Errorf("two sources: %v", err)
	}

	// Profiles: another version, a damaged file, not a profile.
	pb, err := os.ReadFile(f.profile)
	if err != nil {
		t.Fatal(err)
	}
	qh := filepath.Join(calib, "Qh.jpg")
	for _, c := range []struct {
		name, want string
		b          []byte
	}{
		{"v2.json", fmt.Sprintf("calibration: bad profile: version 2, this build reads version %d: recalibrate with `sabot calibrate vision`", calibration.VisionVersion), bytes.Replace(pb, []byte(fmt.Sprintf(`"version": %d`, calibration.VisionVersion)), []byte(`"version": 2`), 1)},
		{"damaged.json", "calibration: bad profile: checksum mismatch: the file was changed or damaged after calibration", bytes.Replace(pb, []byte(`"deck": "tango"`), []byte(`"deck": "mango"`), 1)},
		{"other.json", `calibration: bad profile: format is "", want "sabot-vision-profile" (is this a vision profile?)`, []byte(`{"deck": "x"}`)},
	} {
		path := filepath.Join(dir, c.name)
		os.WriteFile(path, c.b, 0o644)
		for _, args := range [][]string{
			{"vision", "read", "--profile", path, qh},
			{"vision", "eval", "--profile", path, "--frames", filepath.Join(f.dir, "frames"), "--sheet", filepath.Join(dir, "misread.png")},
			{"calibrate", "camera", "--profile", path, "--image", qh, "--out", filepath.Join(dir, "cam.png")},
		} {
			if _, _, err := sabot(t, args...); err == nil || err.Error() != path+": "+c.want {
				t.Errorf("%s: %v, want %s: %s", strings.Join(args[:2], " "), err, path, c.want)
			}
		}
	}
}

// TestCalibrateCamera checks reader frames through vision/camcheck: a card found and its width
// against the profile's, the empty window, a frame of another camera.
func TestCalibrateCamera(t *testing.T) {
	f := visionSet(t)
	dir := t.TempDir()
	ks := filepath.Join(f.dir, "calib", "Ks.jpg")
	report := filepath.Join(dir, "cam.png")
	out, _, err := sabot(t, "calibrate", "camera", "--image", ks, "--profile", f.profile, "--out", report)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	pats := []string{
		`^camera check: ` + regexp.QuoteMeta(ks) + ` \(320x240\)$`,
		`^  focus +[\d.]+ +(good|check|bad)`,
		`^  contrast +[\d.]+ levels +(good|check|bad)`,
		`^  mean brightness +[\d.]+ of 255 +(good|check|bad)`,
		`^  clipped black +[\d.]+ % +(good|check|bad)`,
		`^  clipped white +[\d.]+ % +(good|check|bad)`,
		`^  card width +[\d.]+ px +(good|check: the camera moved or the profile is for another shoe: recalibrate)$`,
		`^  profile's card width ` + regexp.QuoteMeta(fmt.Sprintf("%.1f", f.p.CardWidthPx)) + ` px$`,
		`^  card outline +\[\(\d+,\d+\) \(\d+,\d+\) \(\d+,239\) \(\d+,239\)\]$`,
		`^  index corner +\[\(\d+,\d+\) \(\d+,\d+\) \(\d+,\d+\) \(\d+,\d+\)\]$`,
		`^  found by +top edge \d+ points, `,
		`^verdict: (good|check|bad)$`,
		`^report ` + regexp.QuoteMeta(report) + `$`,
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != len(pats) {
		t.Fatalf("calibrate camera printed:\n%s", out)
	}
	for i, p := range pats {
		if !regexp.MustCompile(p).MatchString(lines[i]) {
			t.Errorf("line %d %q does not match %s", i, lines[i], p)
		}
	}
	// The card width's verdict: good within 5% of the profile's, to check within 12% (the
	// rendered pass's cards are 190 to 260 pixels wide).
	var w float64
	fmt.Sscanf(strings.TrimPrefix(lines[6], "  card width"), "%f", &w)
	off := math.Abs(w-f.p.CardWidthPx) / f.p.CardWidthPx
	if good := strings.HasSuffix(lines[6], " good"); w == 0 || good != (off < 0.05) || off >= 0.12 {
		t.Errorf("card width %.1f px against the profile's %.1f: %q", w, f.p.CardWidthPx, lines[6])
	}
	if st, err := os.Stat(report); err != nil || st.Size() < 10000 {
		t.Errorf("report: %v", err)
	}
	// The empty window: no card, said so.
	_, byView := labels(t, filepath.Join(f.dir, "frames"))
	out, _, err = sabot(t, "calibrate", "camera", "--image", byView["none"][0], "--out", report)
	if err != nil || !regexp.MustCompile(`\n  card in window +0\.0 +check: put a card in the reader window`).MatchString(out) {
		t.Errorf("empty window: %v\n%s", err, out)
	}
	// A table camera's frame against a reader profile.
	tf := byView["table"][0]
	if _, _, err := sabot(t, "calibrate", "camera", "--image", tf, "--profile", f.profile, "--out", report); err == nil || err.Error() != "camcheck: "+tf+" is 640x480, the profile is for shoe-reader 320x240" {
		t.Errorf("table frame: %v", err)
	}
	if _, _, err := sabot(t, "calibrate", "camera", "--out", report); err != errUsage {
		t.Errorf("no --device or --image: %v", err)
	}
}

// TestVisionRender renders sets through the command line: a calibration pass and a labelled
// set, and a whole set with the turned pass and photographs.
func TestVisionRender(t *testing.T) {
	if testing.Short() {
		t.Skip("renders frames (-short)")
	}
	visiontest.NeedArt(t, fixtureDeck).Close()
	dir := t.TempDir()
	out, _, err := sabot(t, "vision", "render", "--deck", fixtureDeck, "--calib", filepath.Join(dir, "calib"), "--frames", filepath.Join(dir, "frames"), "--shoe", "1", "--table", "0", "--other", "1")
	if err != nil || out != fmt.Sprintf("calibration pass of tango: %s\n55 labelled frames of tango: %s\n", filepath.Join(dir, "calib"), filepath.Join(dir, "frames", "labels.csv")) {
		t.Errorf("render: %v\n%s", err, out)
	}
	if n := countImages(t, filepath.Join(dir, "calib")); n != 54 {
		t.Errorf("calibration pass of %d frames", n)
	}
	set := filepath.Join(dir, "set")
	out, _, err = sabot(t, "vision", "render", "--deck", fixtureDeck, "--set", set, "--turned", "--photos", "--shoe", "0", "--table", "0", "--photo", "1", "--other", "0", "--seed", "3")
	if err != nil || out != "set of tango: "+set+"\n" {
		t.Fatalf("render --set: %v\n%s", err, out)
	}
	for d, n := range map[string]int{"calib": 54, "calib-turned": 54, "calib-photo": 53, "frames": 52} {
		if got := countImages(t, filepath.Join(set, d)); got != n {
			t.Errorf("%s: %d frames, want %d", d, got, n)
		}
	}
	_, byView := labels(t, filepath.Join(set, "frames"))
	if len(byView["photo"]) != 52 || len(byView) != 1 {
		t.Errorf("labels by view: %d photo of %d views", len(byView["photo"]), len(byView))
	}
	if _, _, err := sabot(t, "vision", "render", "--deck", fixtureDeck, "--calib", dir, "--turned"); err == nil || err.Error() != "vision render: --turned, --photos and --photo are for --set" {
		t.Errorf("--turned without --set: %v", err)
	}
	if _, _, err := sabot(t, "vision", "render", "--deck", fixtureDeck, "--set", set, "--calib", dir); err != errUsage {
		t.Errorf("--set with --calib: %v", err)
	}
	out, _, err = sabot(t, "vision", "render", "--list")
	if err != nil || !regexp.MustCompile(`(?m)^tango +/\S+tango\.svgz$`).MatchString(out) {
		t.Errorf("--list: %v\n%s", err, out)
	}
}

func countImages(t *testing.T, dir string) int {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".jpg") || strings.HasSuffix(e.Name(), ".png") {
			n++
		}
	}
	return n
}
