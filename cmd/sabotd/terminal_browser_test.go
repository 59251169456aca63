package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
	"github.com/sabot-tables/sabot/tablebus/keystore"
	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

var (
	terminalURL = regexp.MustCompile(`msg="dealer terminal listening".* url=(http://\S+/)`)
	brokerURL   = regexp.MustCompile(`msg="embedded MQTT broker listening".* url=(tcp://\S+)`)
	drewCard    = regexp.MustCompile(`msg="simulated dealer drew".* card=(\S+)`)
)

// dealt is one daemon dealt from the terminal's page alone, with the feed recorded from the
// broker.
type dealt struct {
	t       *testing.T
	d       *daemon
	dir     string
	page    string // the terminal's URL
	web     string // the web view's URL (its technician API injects simulated faults)
	rec     *recorder
	ctx     context.Context
	shotDir string
}

// waitLog waits for a line of the daemon's log matching re and returns its first group.
func (x *dealt) waitLog(re *regexp.Regexp, what string) string {
	x.t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		if m := re.FindStringSubmatch(x.d.log()); m != nil {
			return m[1]
		}
		if time.Now().After(deadline) {
			x.t.Fatalf("%s: not in the daemon's log:\n%s", what, x.d.log())
		}
		<-tick.C
	}
}

// startDealt starts sabotd with the simulated dealer off, its terminal, its web view and the
// feed recorded.
func startDealt(t *testing.T, bin string, actx context.Context, game string, args ...string) *dealt {
	t.Helper()
	dir := t.TempDir()
	all := append([]string{"--sim", "--shoe", "reader", "--sim-dealer=off", "--sim-seed", "11", "--sim-pace", "40ms", "--listen", "127.0.0.1:0",
		"--journal", filepath.Join(dir, "T1.db"), "--http", "127.0.0.1:0", "--terminal", "127.0.0.1:0", "--quiet", "--log-level", "debug",
		"--table", "T1", "--game", game}, args...)
	x := &dealt{t: t, d: startDaemon(t, bin, all...), dir: dir, rec: newRecorder(), shotDir: t.ArtifactDir()}
	x.web = x.d.url(t)
	x.page = x.waitLog(terminalURL, "the terminal's address")
	c, err := mqttbus.Connect(context.Background(), mqttbus.Options{URL: x.waitLog(brokerURL, "the broker's address"), ClientID: "terminal-test-" + game})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if err := c.Subscribe(context.Background(), "sabot/v1/T1/#", 1, x.rec.add); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(cancel)
	ctx, cancelT := context.WithTimeout(ctx, 4*time.Minute)
	t.Cleanup(cancelT)
	// The tab is made by its first command, and lives as long as the context that command ran
	// with: this one, not a step's.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatal(err)
	}
	x.ctx = ctx
	return x
}

// lastLog returns the first group of the daemon's last log line matching re.
func (x *dealt) lastLog(re *regexp.Regexp) string {
	x.t.Helper()
	m := re.FindAllStringSubmatch(x.d.log(), -1)
	if len(m) == 0 {
		x.t.Fatalf("no %s in the daemon's log", re)
	}
	return m[len(m)-1][1]
}

// inject makes the simulated devices misbehave, from the web view's technician API.
func (x *dealt) inject(fault string) {
	x.t.Helper()
	r, err := http.Post(x.web+"api/tables/T1/inject/"+fault, "", nil)
	if err != nil {
		x.t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode/100 != 2 {
		x.t.Fatalf("injecting %s: %s", fault, r.Status)
	}
}

func (x *dealt) do(what string, actions ...chromedp.Action[chromedp.Void]) {
	x.t.Helper()
	ctx, cancel := context.WithTimeout(x.ctx, 60*time.Second) // one step's wait, not the whole test's
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		page, _ := chromedp.Run(x.ctx, chromedp.Evaluate[string](`document.body.dataset.state + ': ' + ((document.querySelector('#error') || {}).textContent || '') +
			' | ' + ((document.querySelector('#modal-error') || {}).textContent || '') + ' | ' + document.querySelector('#guide').textContent`))
		x.t.Fatalf("%s: %v\nthe page: %s\nsabotd's log (tail):\n%s", what, err, page, tail(x.d.log(), 40))
	}
}

func (x *dealt) eval(what, js string) string {
	x.t.Helper()
	v, err := chromedp.Run(x.ctx, chromedp.Evaluate[string](js, chromedp.EvalAwaitPromise))
	if err != nil {
		x.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// tap taps a button of a panel that re-renders itself as the table moves, in one step.
func (x *dealt) tap(what, sel string) {
	x.t.Helper()
	x.do(what, chromedp.WaitVisible(sel))
	if got := x.eval(what, fmt.Sprintf(`(() => { const e = document.querySelector(%q); if (!e) return "missing"; if (e.disabled) return "disabled"; e.click(); return "tapped"; })()`, sel)); got != "tapped" {
		x.t.Fatalf("%s: %s is %s", what, sel, got)
	}
}

// keys taps digits on a keypad.
func (x *dealt) keys(what, pad, digits string) {
	x.t.Helper()
	for _, k := range digits {
		x.tap(what, fmt.Sprintf(`%s button[data-key="%c"]`, pad, k))
	}
}

// state waits for the page to show the table in a state.
func (x *dealt) state(what, state string) {
	x.t.Helper()
	x.do(what, chromedp.WaitVisible(fmt.Sprintf(`body[data-state=%q]`, state)))
}

func (x *dealt) text(sel string) string {
	return x.eval("text of "+sel, fmt.Sprintf(`(document.querySelector(%q) || {}).textContent || ""`, sel))
}

func (x *dealt) shot(name string, w, h int64) string {
	x.t.Helper()
	x.do("viewport for "+name, chromedp.EmulateViewport(w, h))
	png, err := chromedp.Run(x.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		x.t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(x.shotDir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		x.t.Fatal(err)
	}
	x.t.Logf("screenshot: %s", path)
	return path
}

// signIn signs a person in from the sign-in screen.
func (x *dealt) signIn(id, pin string) {
	x.t.Helper()
	x.do("the sign-in screen", chromedp.WaitVisible(`#signin-form`))
	x.eval("clear the id", `(() => { document.querySelector('#signin-id').value = ''; return ''; })()`)
	x.do("type the id", chromedp.SendKeys(`#signin-id`, id))
	x.keys("type the PIN", "#signin .keypad", pin)
	x.tap("sign in", "#signin-go")
}

// approve answers the supervisor's approval dialog.
func (x *dealt) approve(what string) {
	x.t.Helper()
	x.do(what+": the approval dialog", chromedp.WaitVisible(`#sup-id`))
	x.do(what+": the supervisor's id", chromedp.SendKeys(`#sup-id`, "supervisor.dev"))
	x.keys(what+": the supervisor's PIN", "#modal .keypad", devSupervisorPIN)
	x.tap(what+": approve", `#modal button[data-do="approve"]`)
	x.do(what+": approved", chromedp.WaitNotVisible(`#modal`))
}

// newShoe takes the shoe from idle to the first bets: new shoe (approved), the cut, the stop
// card; the simulated hands burn.
func (x *dealt) newShoe(cut, behind string) {
	x.t.Helper()
	x.state("idle", "idle")
	x.tap("new shoe", `button[data-do="new-shoe"]`)
	x.approve("new shoe")
	if cut == "" {
		return
	}
	x.state("the cut", "shuffled")
	x.keys("the cut", "#panel .keypad", cut)
	x.tap("cut", `button[data-do="cut"]`)
	x.state("the stop card", "cut")
	if behind != "" {
		x.keys("the stop card", "#panel .keypad", behind)
	}
	x.tap("place the stop card", `button[data-do="cutcard"]`)
}

// bet enters one bet on the bets panel.
func (x *dealt) bet(seat int, spot, units string) {
	x.t.Helper()
	x.tap("box", fmt.Sprintf(`button[data-seat="%d"]`, seat))
	x.tap("spot", fmt.Sprintf(`button[data-spot=%q]`, spot))
	x.tap("clear the amount", `#panel .keypad button[data-key="C"]`)
	x.keys("amount", "#panel .keypad", units)
	x.tap("add the bet", `button[data-do="add-bet"]`)
}

func (x *dealt) decide(seat int, option string) {
	x.t.Helper()
	x.do(fmt.Sprintf("box %d's decision", seat), chromedp.WaitVisible(fmt.Sprintf(`body[data-state="in-round"] #panel button[data-option=%q]`, option)))
	if got := x.text("#panel h2"); !strings.Contains(got, fmt.Sprint(seat)) {
		x.t.Fatalf("the decision panel asks %q, want box %d", got, seat)
	}
	seq := x.eval("seq", "document.body.dataset.seq")
	x.tap("decide "+option, fmt.Sprintf(`#panel button[data-option=%q]`, option))
	x.do("the decision taken", chromedp.WaitVisible(fmt.Sprintf(`body:not([data-seq=%q])`, seq)))
}

// journal returns the secure events of the daemon's journal, read beside it.
func (x *dealt) journal() []tablebus.Event {
	x.t.Helper()
	j, err := journal.OpenReadOnly(filepath.Join(x.dir, "T1.db"))
	if err != nil {
		x.t.Fatal(err)
	}
	defer j.Close()
	var out []tablebus.Event
	if err := j.Range(context.Background(), 1, j.NextSeq(), func(r journal.Record) error {
		e, err := tablebus.Decode(r.Secure)
		out = append(out, e)
		return err
	}); err != nil {
		x.t.Fatal(err)
	}
	return out
}

// find returns the events of a type that match.
func find(evs []tablebus.Event, typ tablebus.Type, match func(tablebus.Event) bool) []tablebus.Event {
	var out []tablebus.Event
	for _, e := range evs {
		if e.Type == typ && (match == nil || match(e)) {
			out = append(out, e)
		}
	}
	return out
}

// checkCommands verifies every command the terminal published, as the daemon does: signed by a
// key of the keyring, by the person and role it names.
func (x *dealt) checkCommands(want map[string]string) {
	x.t.Helper()
	kr, err := keystore.ReadKeyring(filepath.Join(x.dir, "keys", keystore.DevKeyring), nil)
	if err != nil {
		x.t.Fatal(err)
	}
	g := tablebus.NewCommandGuard(kr)
	x.rec.mu.Lock()
	msgs := slices.Clone(x.rec.msgs["sabot/v1/T1/cmd"])
	x.rec.mu.Unlock()
	got := map[string]string{}
	for _, m := range msgs {
		d, err := tablebus.DecodeCommand(m.Payload)
		if err != nil {
			x.t.Errorf("a command on the bus does not decode: %v\n%s", err, m.Payload)
			continue
		}
		c, key, err := g.Check(m.Topic, m.Payload, d.TS) // checked as the daemon did when it arrived
		if err != nil {
			x.t.Errorf("a command from the terminal does not verify: %v\n%s", err, m.Payload)
			continue
		}
		got[c.Cmd] = key.Name
	}
	for cmd, by := range want {
		if got[cmd] != by {
			x.t.Errorf("command %s signed by %q, want %q (all: %v)", cmd, got[cmd], by, got)
		}
	}
}

// TestDealerTerminal deals from the dealer terminal's page alone, in headless Chromium, with
// the simulated dealer off (the simulated hands draw the cards the table asks for): a punto
// banco coup with a misread entered by hand, a void approved by a supervisor, bad input refused
// (a bet outside the limits, a stale page), a wrong PIN and the lock after five; a blackjack
// round with insurance, a split and a double, in Spanish; a three card poker round with a fold.
// It checks what the feed and the journal hold, and that every command on the bus verifies.
// Screenshots go to the test's artifact directory (-artifacts -outputdir DIR keeps them).
func TestDealerTerminal(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	chrome := chromium(t)
	sabotd, _ := buildBinaries(t)
	opts := append(slices.Clone(chromedp.DefaultExecAllocatorOptions[:]),
		chromedp.ExecPath(chrome), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(filepath.Join(t.TempDir(), "chromium")), chromedp.WindowSize(1280, 800))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()

	t.Run("punto-banco", func(t *testing.T) {
		x := startDealt(t, sabotd, actx, "punto-banco", "--limits", "player=100-50000,banker=100-50000,tie=100-5000")
		x.do("the page", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(x.page), chromedp.WaitVisible(`#signin-form`))

		// A wrong PIN is refused, and says how many tries are left.
		x.signIn("dealer.dev", "1111")
		x.do("the wrong PIN's refusal", chromedp.WaitVisible(`#signin-error:not(:empty)`))
		if got := x.text("#signin-error"); got != "Wrong PIN: 4 tries left." {
			t.Fatalf("a wrong PIN: %q", got)
		}
		x.signIn("dealer.dev", devDealerPIN)
		x.do("signed in", chromedp.WaitVisible(`#who`))

		x.newShoe("200", "")
		x.state("the first bets", "between-rounds")

		// A bet outside the table's limits is refused as it is typed: 600.00 on the banker.
		x.tap("box 1", `button[data-seat="1"]`)
		x.tap("banker", `button[data-spot="banker"]`)
		x.keys("too much", "#panel .keypad", "600")
		if got := x.text("#bet-problem"); got != "Box 1, banker: 600.00 is outside the table's limit, 1.00 to 500.00." {
			t.Errorf("a bet over the limit, as typed: %q", got)
		}
		if got := x.eval("add the bet", `String(document.querySelector('button[data-do="add-bet"]').disabled)`); got != "true" {
			t.Errorf("a bet over the limit can be added (disabled %s)", got)
		}
		// And by the terminal's API, from a page that tried anyway: one message, nothing sent.
		before := len(x.rec.events(t, "secure"))
		got := x.eval("a bet over the limit, sent", `fetch('/api/act', {method: 'POST', headers: {'Content-Type': 'application/json'},
			body: JSON.stringify({do: 'bets', seq: Number(document.body.dataset.seq), bets: [{seat: 1, spot: 'banker', amount: 60000}]})}).then(r => r.json()).then(j => j.error)`)
		if got != "Box 1, banker: 600.00 is outside the table's limit, 1.00 to 500.00." {
			t.Errorf("a bet over the limit, sent: %q", got)
		}
		got = x.eval("a stale page", `fetch('/api/act', {method: 'POST', headers: {'Content-Type': 'application/json'},
			body: JSON.stringify({do: 'bets', seq: Number(document.body.dataset.seq) - 1, bets: []})}).then(r => r.json()).then(j => j.error)`)
		if got != "The table moved on since this screen showed it: look again, then tap." {
			t.Errorf("a stale page: %q", got)
		}
		if n := len(x.rec.events(t, "secure")); n != before {
			t.Errorf("refused input changed the table: %d events, %d before", n, before)
		}

		// The coup: two bets, no more bets, and the first card is not read.
		x.bet(1, "banker", "25")
		x.bet(3, "player", "10")
		x.inject("misread")
		x.tap("no more bets", `button[data-do="bets"]`)
		x.state("the misread holds the table", "held")
		if got := x.text("#guide .line:last-child"); !strings.HasPrefix(got, "held: the card could not be read with confidence") {
			t.Errorf("the held guidance: %q", got)
		}
		unread := x.lastLog(drewCard) // the hands stop drawing while the table is held
		x.shot("punto-banco-held.png", 1280, 800)
		x.tap("enter the card by hand", `button[data-do="picker"]`)
		x.do("the picker", chromedp.WaitVisible(`.picker`))
		x.shot("punto-banco-picker.png", 1280, 800)
		x.tap("the card", fmt.Sprintf(`.picker button[data-pick=%q]`, unread))
		x.do("the coup settles", chromedp.WaitVisible(`#settle .line`))
		x.shot("punto-banco-settled-1920.png", 1920, 1080)
		x.do("back to 1280", chromedp.EmulateViewport(1280, 800))

		// The next coup: a misread voided, with a supervisor's approval.
		x.state("the next bets", "between-rounds")
		x.bet(2, "tie", "5")
		x.inject("misread")
		x.tap("no more bets", `button[data-do="bets"]`)
		x.state("held again", "held")
		x.tap("void", `button[data-do="void-dialog"]`)
		x.do("the reason", chromedp.WaitVisible(`#void-reason`), chromedp.SendKeys(`#void-reason`, "card dropped on the floor"))
		x.tap("void it", `#modal button[data-do="void"]`)
		x.approve("void")
		x.state("voided", "between-rounds")

		// Sign out; five wrong PINs lock the dealer, and the right one no longer opens.
		x.tap("sign out", `#sign-out`)
		x.do("signed out", chromedp.WaitVisible(`#signin-form`))
		for i := range 5 {
			x.signIn("dealer.dev", "9999")
			want := fmt.Sprintf("Wrong PIN: %d tries left.", 4-i)
			if i == 4 {
				want = "dealer.dev is locked after 5 wrong PINs: a supervisor unlocks it."
			}
			x.do("the refusal", chromedp.WaitVisible(`#signin-error:not(:empty)`))
			if got := x.text("#signin-error"); got != want {
				t.Fatalf("wrong PIN %d: %q, want %q", i+1, got, want)
			}
			x.eval("clear", `document.querySelector('#signin-error').textContent = ''`)
		}
		x.signIn("dealer.dev", devDealerPIN)
		x.do("the refusal", chromedp.WaitVisible(`#signin-error:not(:empty)`))
		if got := x.text("#signin-error"); got != "dealer.dev is locked after 5 wrong PINs: a supervisor unlocks it." {
			t.Fatalf("the right PIN once locked: %q", got)
		}
		x.shot("punto-banco-locked.png", 1280, 800)

		// The feed and the journal.
		x.rec.waitUntil(t, "the lock's fault on the feed", 10*time.Second, func() bool {
			return len(find(x.rec.events(t, "secure"), tablebus.Fault, func(e tablebus.Event) bool { return e.Code == "dealer-locked" })) == 1
		})
		evs := x.journal()
		if n := find(evs, tablebus.DealerSignedIn, func(e tablebus.Event) bool { return e.By == "dealer.dev" }); len(n) != 1 {
			t.Errorf("signed in: %d", len(n))
		}
		if n := find(evs, tablebus.DealerSignedOut, func(e tablebus.Event) bool { return e.By == "dealer.dev" && e.Reason == "signed out" }); len(n) != 1 {
			t.Errorf("signed out: %d", len(n))
		}
		if n := find(evs, tablebus.ShoeLoaded, func(e tablebus.Event) bool { return e.By == "dealer.dev" }); len(n) != 1 {
			t.Errorf("the shoe loaded by the dealer: %d", len(n))
		}
		opened := find(evs, tablebus.RoundOpened, func(e tablebus.Event) bool { return e.By == "dealer.dev" })
		if len(opened) != 2 || js(opened[0].Bets) != `[{"seat":1,"spot":"banker","amount":2500},{"seat":3,"spot":"player","amount":1000}]` {
			t.Errorf("the rounds opened from the terminal: %s", js(opened))
		}
		manual := find(evs, tablebus.FaultResolved, func(e tablebus.Event) bool {
			return e.Code == "misread" && e.Reason == "manual entry" && e.By == "dealer.dev" && e.Card != nil && e.Card.String() == unread
		})
		cards := find(evs, tablebus.CardDealt, func(e tablebus.Event) bool { return e.Manual != nil && e.Manual.Dealer == "dealer.dev" })
		if len(manual) != 1 || len(cards) != 1 || cards[0].Card.String() != unread || cards[0].Round != opened[0].Round {
			t.Errorf("the manual entry of %s: resolved %s, cards %s", unread, js(manual), js(cards))
		}
		if n := find(evs, tablebus.RoundSettled, func(e tablebus.Event) bool { return e.Round == opened[0].Round }); len(n) != 1 {
			t.Errorf("the first coup settled: %d", len(n))
		}
		voided := find(evs, tablebus.RoundVoided, nil)
		if len(voided) != 1 || voided[0].By != "dealer.dev" || voided[0].Approved != "supervisor.dev" || voided[0].Reason != "card dropped on the floor" ||
			voided[0].Round != opened[1].Round {
			t.Errorf("the void: %s", js(voided))
		}
		x.checkCommands(map[string]string{"sign-in": "dealer.dev", "new-shoe": "supervisor.dev", "cut": "dealer.dev", "cutcard": "dealer.dev",
			"bets": "dealer.dev", "manual": "dealer.dev", "void": "supervisor.dev", "sign-out": "dealer.dev"})
	})

	t.Run("blackjack", func(t *testing.T) {
		// A stacked deck: the burn, then box 1: 8 8, box 2: 5 6, the dealer's ace up and 9 in the
		// hole; box 1 takes insurance, splits, doubles its first hand to 21 and stands on 17.
		x := startDealt(t, sabotd, actx, "blackjack", "--sim-stack", "2c,8s,5h,As,8d,6c,9h,3d,Tc,9s,7s")
		x.do("the page", chromedp.EmulateViewport(1920, 1080), chromedp.Navigate(x.page), chromedp.WaitVisible(`#signin-form`))
		x.signIn("dealer.dev", devDealerPIN)
		x.do("signed in", chromedp.WaitVisible(`#who`))
		x.tap("en español", `#who button[data-lang="es"]`)
		x.do("the page in Spanish", chromedp.WaitVisible(`#sign-out`))
		x.newShoe("150", "78")
		x.state("the first bets", "between-rounds")
		x.do("Spanish guidance", chromedp.WaitVisible(`#guide .line`))
		if got := x.text("#guide .line:last-child"); got != "hagan sus apuestas" {
			t.Errorf("the guidance in Spanish: %q", got)
		}
		x.bet(1, "main", "10")
		x.bet(2, "main", "10")
		x.tap("no va más", `button[data-do="bets"]`)
		x.decide(1, "I")
		x.decide(2, "N")
		x.decide(1, "P")
		x.shot("blackjack-split-es-1920.png", 1920, 1080)
		x.decide(1, "D")
		x.decide(1, "S")
		x.decide(2, "H")
		x.decide(2, "S")
		x.do("the round settles", chromedp.WaitVisible(`#settle .line`))
		if got := x.text(`#settle .line[data-seat="1"]`); got != "pague al box 1: 5,00" {
			t.Errorf("box 1's settlement line: %q", got)
		}
		x.shot("blackjack-settled-es.png", 1280, 800)
		evs := x.journal()
		var ds []string
		for _, e := range find(evs, tablebus.Decision, func(e tablebus.Event) bool { return e.By == "dealer.dev" }) {
			ds = append(ds, fmt.Sprintf("%d/%d:%s", e.Seat, e.Hand, e.Choice))
		}
		if got := strings.Join(ds, " "); got != "1/0:I 2/0:N 1/0:P 1/0:D 1/1:S 2/0:H 2/0:S" {
			t.Errorf("the decisions journaled: %s", got)
		}
		st := find(evs, tablebus.RoundSettled, nil)
		if len(st) != 1 || js(st[0].Settle) != `[{"seat":1,"spot":"insurance","hand":0,"amount":500,"net":-500},{"seat":1,"spot":"main","hand":0,"amount":2000,"net":2000},{"seat":1,"spot":"main","hand":1,"amount":1000,"net":-1000},{"seat":2,"spot":"main","hand":0,"amount":1000,"net":-1000}]` {
			t.Errorf("the settlement: %s", js(st))
		}
		g := find(x.rec.events(t, "secure"), tablebus.Guide, func(e tablebus.Event) bool {
			return slices.ContainsFunc(e.Msgs, func(m tablebus.Msg) bool { return m.Code == "bj.splits" })
		})
		if len(g) != 1 {
			t.Errorf("the split's guidance on the feed: %d", len(g))
		}
		x.checkCommands(map[string]string{"decision": "dealer.dev", "bets": "dealer.dev"})
	})

	t.Run("no-shuffler", func(t *testing.T) {
		// No shuffler's link: the dealer attests a hand-shuffled deck, and at the end the
		// simulated hands pass the cards left through the shoe before the count.
		x := startDealt(t, sabotd, actx, "three-card-poker", "--shuffler", "none")
		x.do("the page", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(x.page), chromedp.WaitVisible(`#signin-form`))
		x.signIn("dealer.dev", devDealerPIN)
		x.do("signed in", chromedp.WaitVisible(`#who`))
		x.state("idle", "idle")
		x.tap("attest: shuffled by hand", `button[data-do="new-shoe"][data-attest="hand"]`)
		x.approve("attest")
		x.state("the bets", "between-rounds")
		x.bet(2, "ante", "5")
		x.tap("no more bets", `button[data-do="bets"]`)
		x.decide(2, "play")
		x.state("the count", "counting")
		x.rec.waitUntil(t, "the cards left passed through the shoe", time.Minute, func() bool {
			return len(find(x.rec.events(t, "secure"), tablebus.CardCounted, nil)) == 46
		})
		x.do("the count's guidance", chromedp.WaitVisible(`#guide .line`))
		x.shot("no-shuffler-count.png", 1280, 800)
		x.tap("count", `button[data-do="count"]`)
		x.state("the shoe ended", "idle")
		evs := x.journal()
		loaded := find(evs, tablebus.ShoeLoaded, nil)
		if len(loaded) != 1 || !loaded[0].Attested || loaded[0].By != "dealer.dev" {
			t.Errorf("the shoe loaded: %s", js(loaded))
		}
		if sh := find(evs, tablebus.Shuffled, nil); len(sh) != 1 || sh[0].By != "hand" {
			t.Errorf("shuffled: %s", js(sh))
		}
		end := find(evs, tablebus.ShoeEnded, nil)
		if len(end) != 1 || !*end[0].OK || end[0].Account.Left != 46 {
			t.Errorf("the count: %s", js(end))
		}
	})

	t.Run("continuous-shuffler", func(t *testing.T) {
		x := startDealt(t, sabotd, actx, "blackjack", "--shuffler", "csm", "--sim-stack", "Ts,7h,As,Td")
		x.do("the page", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(x.page), chromedp.WaitVisible(`#signin-form`))
		x.signIn("dealer.dev", devDealerPIN)
		x.do("signed in", chromedp.WaitVisible(`#who`))
		x.state("idle", "idle")
		x.tap("attest: loaded in the shuffler", `button[data-do="new-shoe"][data-attest="csm"]`)
		x.approve("attest")
		x.state("no cut, no stop card: the bets", "between-rounds")
		x.bet(1, "main", "10")
		x.tap("no more bets", `button[data-do="bets"]`)
		x.do("the round settles", chromedp.WaitVisible(`#settle .line`))
		if got := x.text("#guide"); !strings.Contains(got, "the round's 4 cards go back into the continuous shuffler") {
			t.Errorf("the guidance after the round: %q", got)
		}
		x.shot("continuous-shuffler.png", 1280, 800)
		evs := x.journal()
		if r := find(evs, tablebus.CardsReturned, nil); len(r) != 1 || r[0].Count != 4 {
			t.Errorf("the return: %s", js(r))
		}
		if c := append(find(evs, tablebus.Cut, nil), find(evs, tablebus.CutCardPlaced, nil)...); len(c) != 0 {
			t.Errorf("a continuous shuffler's shoe was cut: %s", js(c))
		}
		x.do("end the shoe", chromedp.WaitVisible(`button[data-do="end-shoe"]`))
	})

	t.Run("chemin-de-fer", func(t *testing.T) {
		// The bank between coups, from the page: the first banker withdraws before dealing a
		// coup, so the bank goes to auction without them (seed 000); box 3 bids, the auction
		// closes, box 3 holds the bank.
		x := startDealt(t, sabotd, actx, "chemin-de-fer")
		x.do("the page", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(x.page), chromedp.WaitVisible(`#signin-form`))
		x.signIn("dealer.dev", devDealerPIN)
		x.do("signed in", chromedp.WaitVisible(`#who`))
		x.newShoe("200", "")
		x.state("the first bets", "between-rounds")
		x.do("the bank", chromedp.WaitVisible(`#bank-text`))
		if got := x.text("#bank-text"); got != "Box 1 holds the bank: 1.00." {
			t.Errorf("the bank at the first coup: %q", got)
		}
		x.tap("withdraw", `button[data-bank="withdraw"]`)
		x.do("the auction", chromedp.WaitVisible(`button[data-bank="bid"]`))
		if got := x.text("#bank-text"); got != "The bank is at auction: bids from 1.00." {
			t.Errorf("the auction: %q", got)
		}
		if x.eval("no bets at auction", `String(!!document.querySelector('button[data-do="bets"]'))`) != "false" {
			t.Error("the bets panel at auction")
		}
		x.tap("bid", `button[data-bank="bid"]`)
		x.do("the bid's dialog", chromedp.WaitVisible(`#bank-amount`))
		if got := x.eval("box 1 may not bid", `String(document.querySelector('#modal button[data-bank-seat="1"]').disabled)`); got != "true" {
			t.Errorf("the banker who withdrew may bid (disabled %s)", got)
		}
		x.tap("box 3", `#modal button[data-bank-seat="3"]`)
		x.keys("the bid", "#modal .keypad", "5")
		x.tap("bid it", `#modal button[data-do="bank-go"]`)
		x.do("bid", chromedp.WaitNotVisible(`#modal`))
		x.do("the best bid", chromedp.WaitVisible(`button[data-bank="close"]`))
		x.rec.waitUntil(t, "the bid on the feed", 10*time.Second, func() bool {
			return len(find(x.rec.events(t, "secure"), tablebus.TableAction, func(e tablebus.Event) bool { return e.Choice == "bid" })) == 1
		})
		x.do("the bid shown", chromedp.WaitVisible(`#bank-text`))
		if got := x.text("#bank-text"); got != "The bank is at auction: box 3 bids 5.00." {
			t.Errorf("the best bid: %q", got)
		}
		x.shot("chemin-de-fer-auction.png", 1280, 800)
		x.tap("close the auction", `button[data-bank="close"]`)
		x.do("box 3 holds the bank", chromedp.WaitVisible(`button[data-bank="raise"]`), chromedp.WaitVisible(`button[data-do="bets"]`))
		if got := x.text("#bank-text"); got != "Box 3 holds the bank: 5.00." {
			t.Errorf("after the auction: %q", got)
		}
		var got []string
		for _, e := range find(x.journal(), tablebus.TableAction, nil) {
			got = append(got, fmt.Sprintf("%s/%d/%d/%s", e.Choice, e.Seat, e.Amount, e.By))
		}
		if s := strings.Join(got, " "); s != "withdraw/1/0/dealer.dev bid/3/500/dealer.dev close/0/0/dealer.dev" {
			t.Errorf("the bank's actions journaled: %s", s)
		}
		x.checkCommands(map[string]string{"table": "dealer.dev"})
	})

	t.Run("three-card-poker", func(t *testing.T) {
		x := startDealt(t, sabotd, actx, "three-card-poker")
		x.do("the page", chromedp.EmulateViewport(1280, 800), chromedp.Navigate(x.page), chromedp.WaitVisible(`#signin-form`))
		x.signIn("dealer.dev", devDealerPIN)
		x.do("signed in", chromedp.WaitVisible(`#who`))
		x.newShoe("", "")
		x.state("the bets", "between-rounds")
		x.bet(1, "ante", "10")
		x.bet(4, "ante", "20")
		x.tap("no more bets", `button[data-do="bets"]`)
		x.decide(1, "play")
		x.decide(4, "fold")
		x.state("the round is over", "counting")
		x.shot("three-card-poker-fold.png", 1280, 800)
		x.tap("count", `button[data-do="count"]`)
		x.state("the shoe ended", "idle")
		evs := x.journal()
		if d := find(evs, tablebus.Decision, func(e tablebus.Event) bool { return e.Seat == 4 && e.Choice == "fold" && e.By == "dealer.dev" }); len(d) != 1 {
			t.Errorf("the fold: %s", js(d))
		}
		st := find(evs, tablebus.RoundSettled, nil)
		if len(st) != 1 || !slices.ContainsFunc(st[0].Settle, func(s tablebus.Settlement) bool { return s.Seat == 4 && s.Spot == "ante" && s.Net == -2000 }) {
			t.Errorf("the fold loses the ante: %s", js(st))
		}
		if n := find(evs, tablebus.ShoeEnded, func(e tablebus.Event) bool { return e.OK != nil && *e.OK && e.By == "dealer.dev" }); len(n) != 1 {
			t.Errorf("the count: %s", js(find(evs, tablebus.ShoeEnded, nil)))
		}
	})
}
