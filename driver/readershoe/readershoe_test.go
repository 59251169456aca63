package readershoe_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sabot-tables/sabot/driver/readershoe"
	"github.com/sabot-tables/sabot/driver/readershoe/readershoetest"
	"github.com/sabot-tables/sabot/shoe/card"
)

func newPair(t *testing.T, so readershoetest.Opts, do readershoe.Opts) (*readershoetest.Sim, *readershoe.Dev) {
	t.Helper()
	sim, err := readershoetest.NewSim(so)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sim.Close() })
	if do.BackoffMax == 0 {
		do.BackoffMax = 100 * time.Millisecond
	}
	dev, err := readershoe.Open(sim.Port(), do)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dev.Close() })
	return sim, dev
}

func next(t *testing.T, dev *readershoe.Dev) readershoe.Read {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	r, err := dev.Next(ctx)
	if err != nil {
		t.Fatalf("Next: %v", err)
	}
	return r
}

// shuffled returns n decks in a seeded order.
func shuffled(n int, seed uint64) []card.Card {
	var cards []card.Card
	for range n {
		cards = append(cards, card.Deck()...)
	}
	r := rand.New(rand.NewPCG(seed, seed))
	r.Shuffle(len(cards), func(i, j int) { cards[i], cards[j] = cards[j], cards[i] })
	return cards
}

func TestDrawEveryKind(t *testing.T) {
	sim, dev := newPair(t, readershoetest.Opts{}, readershoe.Opts{})
	c := card.MustParse
	sim.Load(readershoetest.Stack([]card.Card{c("9h"), c("Td"), c("As"), c("2c"), card.None, c("Kd")}, 4))
	type want struct {
		kind readershoe.Kind
		mode readershoe.Mode
		card card.Card
		code string
	}
	steps := []struct {
		act  func()
		want want
	}{
		{func() { sim.SetBurnMode(true); sim.Draw() }, want{readershoe.Card, readershoe.Burn, c("9h"), ""}},
		{func() { sim.SetBurnMode(false); sim.Draw() }, want{readershoe.Card, readershoe.Game, c("Td"), ""}},
		{func() { sim.NotRead(1); sim.Draw() }, want{readershoe.Unreadable, readershoe.Game, card.None, ""}},
		{func() { sim.Draw() }, want{readershoe.Card, readershoe.Game, c("2c"), ""}},
		{func() { sim.Draw() }, want{readershoe.Cut, readershoe.Game, card.None, ""}},
		{func() { sim.Draw() }, want{readershoe.Unreadable, readershoe.Game, card.None, ""}}, // a foreign card
		{func() { sim.Alarm(false, "E3", "Card Not Read") }, want{readershoe.Alarm, readershoe.Game, card.None, "E3"}},
		{func() { sim.Warning(1) }, want{readershoe.Warning, readershoe.NoMode, card.None, "0x01"}},
		{func() { sim.WriteRaw([]byte("[Game]<Card:4\x00>\r\n")) }, want{readershoe.Malformed, readershoe.NoMode, card.None, ""}},
		{func() { sim.Draw() }, want{readershoe.Card, readershoe.Game, c("Kd"), ""}},
	}
	var seq uint64
	for i, st := range steps {
		st.act()
		r := next(t, dev)
		if r.Kind != st.want.kind || r.Mode != st.want.mode || r.Card != st.want.card || r.Code != st.want.code {
			t.Fatalf("step %d: %v, want %+v", i, r, st.want)
		}
		if r.Seq != seq+1 || r.At.IsZero() {
			t.Fatalf("step %d: seq %d after %d, at %v", i, r.Seq, seq, r.At)
		}
		seq = r.Seq
		if r.Kind == readershoe.Malformed {
			if !errors.Is(r.Err, readershoe.ErrMalformed) || len(r.Raw) == 0 {
				t.Fatalf("step %d: malformed without reason or bytes: %+v", i, r)
			}
			if string(r.Raw) != "[Game]<Card:4\x00>" {
				t.Fatalf("step %d: raw %q: the whole damaged frame, noise included", i, r.Raw)
			}
		}
	}
	if sim.Remaining() != 0 {
		t.Fatalf("remaining %d", sim.Remaining())
	}
	if err := sim.Draw(); !errors.Is(err, readershoetest.ErrEmpty) {
		t.Fatalf("draw from an empty shoe: %v", err)
	}
}

// TestStrayLineEnding: noise put an LF inside a card's line; the two pieces are one Malformed
// read, not two draws. The next card, drawn by hand right after, is read.
func TestStrayLineEnding(t *testing.T) {
	sim, dev := newPair(t, readershoetest.Opts{}, readershoe.Opts{})
	sim.WriteRaw([]byte(" [Game]<Ca\nrd:4S> \r\n"))
	r := next(t, dev)
	if r.Kind != readershoe.Malformed || string(r.Raw) != " [Game]<Ca\nrd:4S> " {
		t.Fatalf("%v", r)
	}
	sim.Load(readershoetest.Stack([]card.Card{card.MustParse("5h")}, -1))
	sim.Draw()
	if r := next(t, dev); r.Kind != readershoe.Card || r.Card != card.MustParse("5h") || r.Seq != 2 {
		t.Fatalf("%v", r)
	}
}

func TestStuckCardWritesNothing(t *testing.T) {
	sim, dev := newPair(t, readershoetest.Opts{}, readershoe.Opts{})
	sim.Load(readershoetest.Stack([]card.Card{card.MustParse("7c")}, -1))
	sim.Stick(1)
	if err := sim.Draw(); !errors.Is(err, readershoetest.ErrStuck) {
		t.Fatalf("stuck draw: %v", err)
	}
	if sim.Remaining() != 1 {
		t.Fatal("a stuck card left the shoe")
	}
	sim.Draw()
	if r := next(t, dev); r.Kind != readershoe.Card || r.Card != card.MustParse("7c") {
		t.Fatalf("after unsticking: %v", r)
	}
}

func TestSilentCutAndTen10(t *testing.T) {
	sim, dev := newPair(t, readershoetest.Opts{SilentCut: true, Ten10: true}, readershoe.Opts{})
	sim.Load(readershoetest.Stack([]card.Card{card.MustParse("Th"), card.MustParse("Ts")}, 1))
	for range 3 {
		sim.Draw()
	}
	for _, want := range []string{"Th", "Ts"} {
		if r := next(t, dev); r.Kind != readershoe.Card || r.Card != card.MustParse(want) || string(r.Raw) != " [Game]<Card:10"+string("SHDC"[card.MustParse(want).Suit()])+"> " {
			t.Fatalf("%v raw %q, want %s", r, r.Raw, want)
		}
	}
}

// TestLineEndingLostIsFlushedWhenIdle: the last card's CR LF is lost; the driver still delivers
// it after LineIdle, so the dealer is not left waiting.
func TestLineEndingLostIsFlushedWhenIdle(t *testing.T) {
	sim, dev := newPair(t, readershoetest.Opts{}, readershoe.Opts{LineIdle: 100 * time.Millisecond})
	start := time.Now()
	sim.WriteRaw([]byte(" [Game]<Card:QD> "))
	r := next(t, dev)
	if r.Kind != readershoe.Card || r.Card != card.MustParse("Qd") {
		t.Fatalf("%v", r)
	}
	if el := time.Since(start); el < 100*time.Millisecond {
		t.Fatalf("flushed after %v, before LineIdle", el)
	}
}

func TestLongLineIsMalformed(t *testing.T) {
	sim, dev := newPair(t, readershoetest.Opts{}, readershoe.Opts{})
	long := make([]byte, 300)
	for i := range long {
		long[i] = 'A'
	}
	sim.WriteRaw(append(long, '\r', '\n'))
	r := next(t, dev)
	if r.Kind != readershoe.Malformed || len(r.Raw) != readershoe.MaxLine {
		t.Fatalf("%v (%d bytes)", r.Kind, len(r.Raw))
	}
}

// TestUnplugCardInFlight: the cable is pulled in the middle of a card's line. What arrived is
// raised as Malformed (ErrCutByLink), then LinkDown; a card drawn while unplugged is lost on a
// plain shoe (the LinkDown is what tells), and the driver reconnects at the same path.
func TestUnplugCardInFlight(t *testing.T) {
	var rec lockedBuffer
	sim, dev := newPair(t, readershoetest.Opts{}, readershoe.Opts{Record: &rec})
	sim.Load(readershoetest.Stack([]card.Card{card.MustParse("5s"), card.MustParse("6s")}, -1))
	sim.WriteRaw([]byte(" [Game]<Card:3"))
	// Pull the cable once the half line has reached the driver (its transcript shows it).
	deadline := time.NewTimer(5 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(rec.String(), "3c 43 61 72 64 3a 33") {
		select {
		case <-tick.C:
		case <-deadline.C:
			t.Fatal("the half line never arrived")
		}
	}
	if err := sim.Unplug(); err != nil {
		t.Fatal(err)
	}
	r := next(t, dev)
	if r.Kind != readershoe.Malformed || !errors.Is(r.Err, readershoe.ErrCutByLink) || string(r.Raw) != " [Game]<Card:3" {
		t.Fatalf("card in flight: %v", r)
	}
	if r := next(t, dev); r.Kind != readershoe.LinkDown {
		t.Fatalf("want link down, got %v", r)
	}
	sim.Draw() // 5s leaves the shoe while the cable is out
	if sim.Lost() != 1 {
		t.Fatalf("lost %d lines", sim.Lost())
	}
	if err := sim.Plug(); err != nil {
		t.Fatal(err)
	}
	if r := next(t, dev); r.Kind != readershoe.LinkUp {
		t.Fatalf("want link up, got %v", r)
	}
	sim.Draw()
	if r := next(t, dev); r.Kind != readershoe.Card || r.Card != card.MustParse("6s") {
		t.Fatalf("after reconnect: %v", r)
	}
}

// TestUnplugBufferedShoeRecovers: a shoe that buffers its output while unplugged: the card drawn
// meanwhile arrives after LinkUp, once.
func TestUnplugBufferedShoeRecovers(t *testing.T) {
	sim, dev := newPair(t, readershoetest.Opts{Buffer: true}, readershoe.Opts{})
	sim.Load(readershoetest.Stack([]card.Card{card.MustParse("5s"), card.MustParse("6s")}, -1))
	sim.Unplug()
	if r := next(t, dev); r.Kind != readershoe.LinkDown {
		t.Fatalf("%v", r)
	}
	sim.Draw()
	sim.Plug()
	var got []readershoe.Read
	for len(got) < 2 {
		got = append(got, next(t, dev))
	}
	if got[0].Kind != readershoe.LinkUp && got[1].Kind != readershoe.LinkUp {
		t.Fatalf("no link up: %v", got)
	}
	cards := 0
	for _, r := range got {
		if r.Kind == readershoe.Card {
			cards++
			if r.Card != card.MustParse("5s") {
				t.Fatalf("%v", r)
			}
		}
	}
	sim.Draw()
	if r := next(t, dev); r.Card != card.MustParse("6s") || cards != 1 {
		t.Fatalf("%v, 5s seen %d times", r, cards)
	}
}

func TestHaltAndClose(t *testing.T) {
	sim, dev := newPair(t, readershoetest.Opts{}, readershoe.Opts{})
	if err := dev.Halt(); err != nil {
		t.Fatal(err)
	}
	if err := dev.Halt(); err != nil {
		t.Fatal(err)
	}
	if _, err := dev.Next(context.Background()); !errors.Is(err, readershoe.ErrHalted) {
		t.Fatalf("Next after Halt: %v", err)
	}
	if got := dev.String(); got != "reading shoe on "+sim.Port() {
		t.Fatalf("String %q", got)
	}
	// The port is free again: another driver can open it.
	d2, err := readershoe.Open(sim.Port(), readershoe.Opts{})
	if err != nil {
		t.Fatal(err)
	}
	d2.Close()
	if _, err := d2.Next(context.Background()); !errors.Is(err, readershoe.ErrClosed) {
		t.Fatalf("Next after Close: %v", err)
	}
}

// collect reads until the sentinel warning <W0xFF> (written after the shoe on a clean line).
func collect(t *testing.T, dev *readershoe.Dev) []readershoe.Read {
	t.Helper()
	var out []readershoe.Read
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for {
		r, err := dev.Next(ctx)
		if err != nil {
			t.Fatalf("collect: %v after %d reads", err, len(out))
		}
		if r.Kind == readershoe.Warning && r.Code == "0xFF" {
			return out
		}
		out = append(out, r)
	}
}

// audit checks that the reads account for the draws one for one, in order: each draw gives exactly
// one read, which is either that draw exactly (Card, Cut, Unreadable) or Malformed. A read that is
// another card is a wrong card; a draw without its read is a lost card; two reads for one draw
// would be a doubled card. It returns how many draws came back Malformed (entered by hand).
func audit(t *testing.T, drawn []readershoetest.Item, reads []readershoe.Read) (malformed int) {
	t.Helper()
	m, err := auditErr(drawn, reads)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func auditErr(drawn []readershoetest.Item, reads []readershoe.Read) (malformed int, err error) {
	for i := 0; i < max(len(drawn), len(reads)); i++ {
		if i >= len(reads) {
			return 0, fmt.Errorf("lost card: %d draws, %d reads", len(drawn), len(reads))
		}
		r := reads[i]
		if i >= len(drawn) {
			return 0, fmt.Errorf("doubled or extra read %v: %d draws, %d reads", r, len(drawn), len(reads))
		}
		it := drawn[i]
		ok := false
		switch r.Kind {
		case readershoe.Malformed:
			ok = true
			malformed++
		case readershoe.Card:
			ok = !it.Cut && it.Card == r.Card
		case readershoe.Cut:
			ok = it.Cut
		case readershoe.Unreadable:
			ok = !it.Cut && !it.Card.Valid()
		}
		if !ok {
			return 0, fmt.Errorf("wrong card: read %d is %v (raw %q), draw %d is %v", i, r, r.Raw, i, it)
		}
	}
	return malformed, nil
}

// TestAuditCatches: the audit itself fails on a wrong card, a lost card and a doubled card.
func TestAuditCatches(t *testing.T) {
	c := card.MustParse
	drawn := readershoetest.Stack([]card.Card{c("4d"), c("4d"), c("3d")}, -1)
	cardRead := func(s string) readershoe.Read { return readershoe.Read{Kind: readershoe.Card, Card: c(s)} }
	bad := readershoe.Read{Kind: readershoe.Malformed}
	tests := []struct {
		name  string
		reads []readershoe.Read
		ok    bool
		want  int
	}{
		{"clean", []readershoe.Read{cardRead("4d"), cardRead("4d"), cardRead("3d")}, true, 0},
		{"one malformed", []readershoe.Read{bad, cardRead("4d"), cardRead("3d")}, true, 1},
		{"one draw, two reads", []readershoe.Read{bad, bad, cardRead("4d"), cardRead("3d")}, false, 0},
		{"wrong card", []readershoe.Read{cardRead("4d"), cardRead("5d"), cardRead("3d")}, false, 0},
		{"lost card", []readershoe.Read{cardRead("4d"), cardRead("3d")}, false, 0},
		{"doubled card", []readershoe.Read{cardRead("4d"), cardRead("4d"), cardRead("4d"), cardRead("3d")}, false, 0},
		{"malformed cannot hide a wrong card", []readershoe.Read{bad, cardRead("3d"), cardRead("3d")}, false, 0},
	}
	for _, tt := range tests {
		m, err := auditErr(drawn, tt.reads)
		if (err == nil) != tt.ok || m != tt.want {
			t.Errorf("%s: %d, %v", tt.name, m, err)
		}
	}
}

// TestNoisyWholeShoe is the test: a whole 8-deck shoe with the cut card, under 1% of the
// bytes on the line damaged (framing errors and lost bytes); no wrong card, no lost card.
func TestNoisyWholeShoe(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3} {
		// The cards are drawn back to back, faster than any dealer: no stray-line-ending join
		// (JoinWindow assumes lines at least that far apart; this noise adds no line endings).
		sim, dev := newPair(t, readershoetest.Opts{Seed: seed}, readershoe.Opts{LineIdle: 50 * time.Millisecond, JoinWindow: -1})
		cards := shuffled(8, seed)
		sim.Load(readershoetest.Stack(cards, len(cards)-6))
		sim.SetLineFaults(readershoetest.LineFaults{Corrupt: 0.005, Drop: 0.0025, As: readershoetest.FramingError})
		for sim.Remaining() > 0 {
			if err := sim.Draw(); err != nil {
				t.Fatal(err)
			}
		}
		st := sim.LineStats()
		sim.SetLineFaults(readershoetest.LineFaults{})
		sim.WriteRaw([]byte("\r\n <W0xFF> \r\n"))
		reads := collect(t, dev)
		drawn := sim.Drawn()
		if len(drawn) != 417 {
			t.Fatalf("drew %d", len(drawn))
		}
		damaged := float64(st.Corrupted+st.Dropped) / float64(st.Written)
		if damaged >= 0.01 || st.Corrupted == 0 || st.Dropped == 0 {
			t.Fatalf("seed %d: %.2f%% damaged (%d corrupted, %d dropped of %d): not the test asked for", seed, 100*damaged, st.Corrupted, st.Dropped, st.Written)
		}
		m := audit(t, drawn, reads)
		t.Logf("seed %d: %.2f%% of %d bytes damaged; %d of 417 draws came back malformed, none wrong, none lost", seed, 100*damaged, st.Written, m)
	}
}

// TestSimUnload: at the end of a shoe the cards left behind the cut card come out by hand,
// unread, and the cut card is put aside.
func TestSimUnload(t *testing.T) {
	sim, err := readershoetest.NewSim(readershoetest.Opts{})
	if err != nil {
		t.Fatal(err)
	}
	defer sim.Close()
	c := card.MustParse
	sim.Load(readershoetest.Stack([]card.Card{c("2s"), c("3s"), c("4s"), c("5s")}, 2))
	sim.Draw()
	got := sim.Unload()
	if len(got) != 3 || got[0] != c("3s") || got[1] != c("4s") || got[2] != c("5s") || sim.Remaining() != 0 {
		t.Fatalf("unloaded %v, %d left", got, sim.Remaining())
	}
}

// lockedBuffer is a bytes.Buffer safe for the driver's goroutine and the test's.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
