package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestScoreboardBrowser is the end-to-end test of the baccarat scoreboard (issue 20) in headless
// Chromium: the daemon in simulation mode deals a squeeze EZ table with its limits, and the
// scoreboard at 1920×1080, in simplified Chinese, traditional Chinese, English and Spanish (and
// in the daemon's own language when the page asks for none), shows the title, the five roads,
// the prediction, the last results, the limits in the language's numbers and the shoe's count.
// The coup on the layout shows a squeezed card as its back. Screenshots are saved in the
// test's artifact directory (-artifacts -outputdir DIR).
func TestScoreboardBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	chrome := chromium(t)
	sabotd, _ := buildBinaries(t)
	dir := t.TempDir()
	d := startDaemon(t, sabotd, "--sim", "--shoe", "reader", "--sim-seed", "20", "--sim-pace", "60ms", "--listen", "127.0.0.1:0",
		"--journal", filepath.Join(dir, "T1.db"), "--http", "127.0.0.1:0", "--scoreboard", "127.0.0.1:0", "--scoreboard-lang", "zh-Hant",
		"--quiet", "--table", "T1", "--game", "punto-banco", "--option", "squeeze=on", "--option", "paytable=ez",
		"--limits", "player=500-2000000,banker=500-2000000,tie=500-100000,dragon-7=500-10000,panda-8=500-10000")
	floorURL := d.url(t)
	var base string
	select {
	case base = <-d.board:
	case <-time.After(30 * time.Second):
		t.Fatalf("the scoreboard never said where it listens:\n%s", d.log())
	}
	art := t.ArtifactDir()

	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(filepath.Join(dir, "chromium")), chromedp.WindowSize(1920, 1080))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 4*time.Minute)
	defer cancelT()
	// Each takes the test it runs in: a subtest's failure stops the subtest, not its parent.
	do := func(t *testing.T, what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatalf("%s: %v\nsabotd's log:\n%s", what, err, d.log())
		}
	}
	eval := func(t *testing.T, what, js string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	shot := func(t *testing.T, name string) {
		t.Helper()
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
	// Enough coups for every road: the cockroach pig needs five columns of the big road.
	enough := `document.querySelectorAll('#cockroach_pig .m').length >= 1 && document.querySelectorAll('#last .chip').length >= 8`
	for _, tc := range []struct {
		lang, title, banker, player, tie, limit, ask string
	}{
		{"zh-Hans", "免佣百家乐", "庄", "闲", "和", "5 – 20,000", "庄问路"},
		{"zh-Hant", "免佣百家樂", "莊", "閒", "和", "5 – 20,000", "莊問路"},
		{"en", "EZ Baccarat", "B", "P", "T", "5 – 20,000", "If Banker wins"},
		{"es", "Bacará EZ", "B", "P", "E", "5 – 20.000", "Si gana la Banca"},
		{"", "免佣百家樂", "莊", "閒", "和", "5 – 20,000", "莊問路"}, // the daemon's --scoreboard-lang
	} {
		name := tc.lang
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			url := base
			if tc.lang != "" {
				url += "?lang=" + tc.lang
			}
			do(t, "open the scoreboard", chromedp.Navigate(url),
				chromedp.Poll[chromedp.Void](enough, chromedp.WithPollingInterval(200*time.Millisecond), chromedp.WithPollingTimeout(3*time.Minute)))
			lang := tc.lang
			if lang == "" {
				lang = "zh-Hant"
			}
			got := eval(t, "the words", `JSON.stringify([document.documentElement.lang, document.getElementById('title').textContent,
				[...new Set([...document.querySelectorAll('#bead text')].map(e => e.textContent))].sort().join(''),
				document.querySelector('#limits .lim[data-spot="banker"] b').textContent,
				document.querySelector('#ask .side.banker h3').textContent,
				document.querySelector('#limits .lim[data-spot="dragon-7"] span').textContent])`)
			want := fmt.Sprintf(`[%q,%q,`, lang, tc.title)
			if !strings.HasPrefix(got, want) || !strings.Contains(got, fmt.Sprintf(`%q,%q`, tc.limit, tc.ask)) {
				t.Errorf("%s: %s, want %s… limit %q, ask %q", name, got, want, tc.limit, tc.ask)
			}
			for _, letter := range []string{tc.banker, tc.player} {
				if !strings.Contains(strings.Split(got, ",")[2], letter) {
					t.Errorf("%s: the bead plate's letters in %s lack %q", name, got, letter)
				}
			}
			// Every road is drawn, and each derived road's prediction shows a mark for both sides.
			counts := eval(t, "the roads", `['#bead .bead', '#big .ring', '#big_eye_boy .m', '#small_road .m', '#cockroach_pig .m',
				'#ask .side.banker .next:not(.none)', '#ask .side.player .next:not(.none)']
				.map(s => document.querySelectorAll(s).length).join(' ')`)
			var bead, big, beb, small, roach, askB, askP int
			fmt.Sscan(counts, &bead, &big, &beb, &small, &roach, &askB, &askP)
			if bead < 8 || big < 4 || beb < 1 || small < 1 || roach < 1 || askB != 3 || askP != 3 {
				t.Errorf("%s: marks bead %d, big %d, derived %d %d %d, prediction %d %d", name, bead, big, beb, small, roach, askB, askP)
			}
			if n := eval(t, "the count", `document.querySelectorAll('#count .n b').length + ' ' + document.querySelector('#status').textContent`); !strings.HasPrefix(n, "6 ") {
				t.Errorf("%s: the count %q", name, n)
			}
			shot(t, "scoreboard-"+name+".png")
		})
	}
	// A squeezed card shows its back until it is revealed: wait for one on the layout.
	do(t, "a squeezed card", chromedp.Poll[chromedp.Void](`document.querySelectorAll('#coup .card.back').length > 0`,
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(time.Minute)))
	shot(t, "scoreboard-squeeze.png")
	// The surveillance view of the same table: the derived roads and the live odds.
	do(t, "the floor", chromedp.Navigate(floorURL), chromedp.WaitVisible(`#t-T1 .odds-table tr[data-spot="dragon-7"]`),
		chromedp.WaitVisible(`#t-T1 .derived-roads svg`))
	shot(t, "floor-odds.png")
}
