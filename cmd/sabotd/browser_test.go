package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium returns the Chromium to drive: $SABOT_CHROMIUM, or Debian's chromium package.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("SABOT_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium: apt-get install chromium (or set SABOT_CHROMIUM) to run the browser test")
	return ""
}

// daemon is a sabotd started for a test, with its standard error kept.
type daemon struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	logs strings.Builder
	web  chan string // the web view's URL, once it is listening
	// board is the scoreboard's URL, once it is listening (scoreboard_browser_test.go).
	board chan string
}

var (
	webURL   = regexp.MustCompile(`msg="web view listening".* url=(http://\S+/)`)
	boardURL = regexp.MustCompile(`msg="scoreboard listening".* url=(http://\S+/)`)
)

func startDaemon(t *testing.T, bin string, args ...string) *daemon {
	t.Helper()
	d := &daemon{cmd: exec.Command(bin, args...), web: make(chan string, 1), board: make(chan string, 1)}
	stderr, err := d.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	d.cmd.Stdout = io.Discard
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			d.mu.Lock()
			d.logs.WriteString(line + "\n")
			d.mu.Unlock()
			if m := webURL.FindStringSubmatch(line); m != nil {
				d.web <- m[1]
			}
			if m := boardURL.FindStringSubmatch(line); m != nil {
				d.board <- m[1]
			}
		}
	}()
	t.Cleanup(func() {
		d.cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { d.cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			d.cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("sabotd's log:\n%s", d.log())
		}
	})
	return d
}

func (d *daemon) log() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.logs.String()
}

func (d *daemon) url(t *testing.T) string {
	t.Helper()
	select {
	case u := <-d.web:
		return u
	case <-time.After(30 * time.Second):
		t.Fatalf("the web view never said where it listens:\n%s", d.log())
		return ""
	}
}

// TestBrowser is the end-to-end test of the web view in headless Chromium: the daemon in
// simulation mode, the floor page with cards drawn from the card art, a fault injected from the
// technician page, its alert on the strip, its acknowledgement, and the replay of a round.
// Screenshots are saved in the test's artifact directory: run with
// `go test -run TestBrowser -artifacts -outputdir DIR ./cmd/sabotd/` to keep them.
func TestBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	chrome := chromium(t)
	sabotd, _ := buildBinaries(t)
	dir := t.TempDir()
	d := startDaemon(t, sabotd, "--sim", "--shoe", "reader", "--sim-seed", "7", "--sim-pace", "120ms", "--listen", "127.0.0.1:0",
		"--journal", filepath.Join(dir, "T1.db"), "--http", "127.0.0.1:0", "--quiet", "--table", "T1", "--game", "punto-banco")
	base := d.url(t)
	art := t.ArtifactDir()

	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]), // headless, no first run
		chromedp.ExecPath(chrome),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(filepath.Join(dir, "chromium")), // a fresh profile
		chromedp.WindowSize(1440, 1000),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 5*time.Minute)
	defer cancelT()

	do := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v\nsabotd's log:\n%s", what, err, d.log())
		}
	}
	eval := func(what, js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	// click clicks an element of a view that re-renders itself as events arrive (the table
	// tiles, the alerts) inside the page, in one step: a node found by one command may be
	// replaced before the next one clicks it ("Could not find node with given id").
	click := func(what, sel string) {
		t.Helper()
		do(what, chromedp.WaitVisible(sel))
		if got := eval(what, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return "missing"; e.click(); return "clicked"; })()`, sel)); got != "clicked" {
			t.Fatalf("%s: %s is %s", what, sel, got)
		}
	}
	shot := func(name string) {
		t.Helper()
		// The cards' deal animations (and the alerts' arrival) end first; the endless ones
		// (the live dot, a held badge) do not count.
		if got := eval("animations of "+name, `Promise.all(document.getAnimations()
			.filter(a => a.effect && a.effect.getTiming().iterations !== Infinity)
			.map(a => a.finished.catch(() => null))).then(() => "done")`); got != "done" {
			t.Fatalf("screenshot %s: the animations: %s", name, got)
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		path := filepath.Join(art, name)
		if err := os.WriteFile(path, png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot: %s", path)
	}

	// The floor: live, and cards appear on the felt, drawn from the card art.
	do("the floor page shows cards",
		chromedp.Navigate(base),
		chromedp.WaitVisible(`#live.on`),
		chromedp.WaitVisible(`#t-T1 .felt .card[data-card]:not([data-card=""])`),
	)
	// The felt re-renders as events arrive: a round settled between the wait and this look
	// clears it, so the look waits (up to 10 s) for the next round's cards.
	got := eval("the cards", `new Promise(resolve => {
		const t0 = Date.now();
		const look = () => {
			const c = document.querySelectorAll('#t-T1 .felt .card[data-card]:not([data-card=""])');
			if (c.length > 0) return resolve(c.length + ' ' + getComputedStyle(c[0]).backgroundImage);
			if (Date.now() - t0 > 10000) return resolve('0 no card on the felt for 10 s');
			setTimeout(look, 50);
		};
		look();
	})`)
	if n, bg, _ := strings.Cut(got, " "); n == "0" || !strings.Contains(bg, "/art/cards.svg") {
		t.Fatalf("cards on the felt and their art: %q", got)
	}
	if got := eval("the card art", `fetch('/art/cards.svg').then(r => r.status + ' ' + r.headers.get('content-type'))`); got != "200 image/svg+xml" {
		t.Fatalf("the card art is served as %q", got)
	}
	// Let a few coups pass so that the roads have something to show.
	do("the results fill", chromedp.WaitVisible(`#t-T1 .recent .chip.banker`), chromedp.WaitVisible(`#t-T1 .recent .chip.player`))
	shot("floor.png")

	// The technician page: inject a misread as the simulated shoe makes one.
	do("the technician page",
		chromedp.Navigate(base+"tech/T1"),
		chromedp.WaitVisible(`#p-inject button[data-inject="misread"]`),
		chromedp.WaitVisible(`#p-shuffler .facts`),
	)
	shot("technician.png")
	do("inject a misread", chromedp.Click(`#p-inject button[data-inject="misread"]`))

	// Back on the floor: the misread's alert is on the strip, and stays there.
	do("the misread alert appears",
		chromedp.Navigate(base),
		chromedp.WaitVisible(`#alerts .alert[data-kind="misread"]`),
	)
	if text := eval("the alert", `document.querySelector('#alerts .alert[data-kind="misread"] .text').textContent`); !strings.Contains(text, "could not be read with confidence") {
		t.Errorf("the alert says %q", text)
	}
	// The simulated dealer enters the card by hand: the table goes on, the alert stays.
	do("the table resolves the hold", chromedp.WaitVisible(`#alerts .alert[data-kind="misread"] .resolved`))
	shot("floor-alert.png")

	// Acknowledge: without a name the page asks for one; with it the alert leaves the strip.
	click("acknowledge without a name", `#alerts .alert[data-kind="misread"] button[data-ack]`)
	do("acknowledge without a name", chromedp.WaitVisible(`#operator.need`))
	do("type a name", chromedp.SendKeys(`#operator`, "surv-17"))
	click("acknowledge", `#alerts .alert[data-kind="misread"] button[data-ack]`)
	do("acknowledge",
		chromedp.WaitNotPresent(`#alerts .alert[data-kind="misread"]`),
		chromedp.WaitVisible(`#history-toggle`),
	)
	var fl struct {
		Alerts []struct {
			Kind  string `json:"kind"`
			AckBy string `json:"ack_by"`
		} `json:"alerts"`
	}
	res, err := http.Get(base + "api/floor")
	if err != nil {
		t.Fatal(err)
	}
	json.NewDecoder(res.Body).Decode(&fl)
	res.Body.Close()
	acked := false
	for _, a := range fl.Alerts {
		acked = acked || a.Kind == "misread" && a.AckBy == "surv-17"
	}
	if !acked {
		t.Errorf("the server's alerts after the acknowledgement: %+v", fl.Alerts)
	}
	do("show the history", chromedp.Click(`#history-toggle`), chromedp.WaitVisible(`#history .alert`))
	shot("floor-acknowledged.png")

	// Replay a past round from the journal, card by card.
	click("replay a round", `#t-T1 button[data-replay="T1"]`)
	click("replay round 2", `#rp-rounds .chip[data-round="2"]`)
	do("replay round 2", chromedp.WaitVisible(`#rp-stage .felt .card`))
	// The replay plays on by itself: go back to its first frame (which stops it), so that what
	// is read does not depend on how fast this machine is.
	do("the first frame", chromedp.Click(`#rp-first`))
	first := eval("the first frames", `document.querySelectorAll('#rp-stage .felt .card').length + ' ' + document.querySelector('#rp-pos').textContent`)
	do("the last frame", chromedp.Click(`#rp-last`), chromedp.WaitVisible(`#rp-stage .hand .outcome`))
	last := eval("the last frame", `document.querySelectorAll('#rp-stage .felt .card').length + ' ' + document.querySelector('#rp-pos').textContent`)
	// Frames: no more bets, each card (4 to 6), the result, the settlement.
	var nFirst, nLast, pos, frames int
	fmt.Sscanf(first, "%d %d / %d", &nFirst, &pos, &frames)
	fmt.Sscanf(last, "%d %d / %d", &nLast, &pos, &frames)
	if nLast < 4 || nLast > 6 || nFirst >= nLast || frames < nLast+2 || pos != frames {
		t.Errorf("replay of round 2: first shown %q, last %q", first, last)
	}
	shot("replay.png")

	// The daemon stops: the page says at once that what it shows is no longer live.
	do("close the replay", chromedp.Click(`#rp-close`))
	d.cmd.Process.Signal(os.Interrupt)
	do("the connection-lost banner", chromedp.WaitVisible(`#banner`), chromedp.WaitVisible(`#live.off`))
	if text := eval("the banner", `document.querySelector('#banner').textContent`); !strings.HasPrefix(text, "Connection to the daemon lost at ") {
		t.Errorf("the banner says %q", text)
	}
	shot("daemon-offline.png")
	t.Logf("screenshots in %s", art)
}
