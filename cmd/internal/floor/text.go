package floor

import (
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sabot-tables/sabot/shoe/card"
	"github.com/sabot-tables/sabot/tablebus"
)

// TextOptions shape the terminal view.
type TextOptions struct {
	Width int            // columns; lines are cut to it (default 100)
	Color bool           // ANSI colours: red suits, alerts, held tables
	Now   time.Time      // for "last card 3 s ago"
	Loc   *time.Location // for the alerts' times (default time.Local)
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiBlue   = "\x1b[34m"
	ansiInv    = "\x1b[7m"
)

// maxTextAlerts is how many open alerts the terminal view lists, most serious and newest first.
const maxTextAlerts = 6

// WriteText writes the floor compactly for a terminal (`sabot watch`): the open alerts, then
// each table in a few lines: its state and shoe, the hands with their totals, the engine's
// guidance, the last results and the devices.
func WriteText(w io.Writer, s Snapshot, o TextOptions) error {
	if o.Width <= 0 {
		o.Width = 100
	}
	if o.Loc == nil {
		o.Loc = time.Local
	}
	p := &textWriter{w: w, o: o}
	open := 0
	for _, a := range s.Alerts {
		if a.Open() {
			open++
		}
	}
	head := fmt.Sprintf("SABOT · %d tables · %d open alerts", len(s.Tables), open)
	if s.Link != nil {
		head += " · FEED DOWN: " + s.Link.Detail
	}
	p.line(p.c(ansiBold, head))
	shown := 0
	for _, a := range s.Alerts {
		if !a.Open() {
			continue
		}
		if shown == maxTextAlerts {
			p.line(fmt.Sprintf("! … and %d more open alerts (acknowledge them in the web view)", open-shown))
			break
		}
		shown++
		col := ansiYellow
		if a.Severity == Critical {
			col = ansiRed + ansiBold
		}
		where := a.Table
		if a.Round != 0 {
			where += fmt.Sprintf(" r%d", a.Round)
		}
		txt := fmt.Sprintf("! %-16s %-8s %s %s", strings.ToUpper(a.Title), where, a.At.In(o.Loc).Format("15:04:05"), a.Text)
		if a.Count > 1 {
			txt += fmt.Sprintf(" (×%d)", a.Count)
		}
		if a.Resolved != "" {
			txt += " — resolved: " + a.Resolved
		}
		p.line(p.c(col, txt))
	}
	for _, t := range s.Tables {
		p.line("")
		p.table(t)
	}
	return p.err
}

type textWriter struct {
	w   io.Writer
	o   TextOptions
	err error
}

func (p *textWriter) c(code, s string) string {
	if !p.o.Color || s == "" {
		return s
	}
	return code + s + ansiReset
}

// line writes one line cut to the width (counting what shows, not the escape codes).
func (p *textWriter) line(s string) {
	if p.err != nil {
		return
	}
	_, p.err = io.WriteString(p.w, cut(s, p.o.Width)+"\n")
}

// cut shortens s to n visible characters, keeping escape sequences whole.
func cut(s string, n int) string {
	var b strings.Builder
	seen := 0
	for i := 0; i < len(s); {
		if s[i] == 0x1b {
			j := strings.IndexByte(s[i:], 'm')
			if j < 0 {
				break
			}
			b.WriteString(s[i : i+j+1])
			i += j + 1
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if seen == n {
			b.WriteString("…")
			if strings.Contains(s, "\x1b") {
				b.WriteString(ansiReset)
			}
			return b.String()
		}
		b.WriteRune(r)
		seen++
		i += size
	}
	return b.String()
}

func (p *textWriter) card(c CardView) string {
	if c.Card == "" || c.Hidden {
		return "▒▒"
	}
	x, err := card.Parse(c.Card)
	if err != nil {
		return "??"
	}
	s := x.Pretty()
	if x.Suit().Red() {
		s = p.c(ansiRed, s)
	}
	if c.Down {
		s += p.c(ansiDim, "↓")
	}
	if c.Manual != "" {
		s += p.c(ansiDim, "✍")
	}
	return s
}

var stateWords = map[string]string{
	"idle": "IDLE", "verified": "VERIFIED", "shuffled": "CUT", "cut": "STOP CARD", "burning": "BURNING",
	"between-rounds": "BETS", "in-round": "DEALING", "counting": "COUNTING", "held": "HELD",
}

func (p *textWriter) table(t TableView) {
	state := stateWords[t.State]
	if state == "" {
		state = strings.ToUpper(t.State)
	}
	col := ansiGreen
	switch {
	case t.Online != nil && !*t.Online:
		state, col = "OFFLINE", ansiInv
	case t.State == "held":
		state, col = "HELD "+t.Held, ansiRed+ansiBold+ansiInv
	}
	head := p.c(ansiBold, fmt.Sprintf("%-6s", t.Table)) + " " + fmt.Sprintf("%-18s", strings.ReplaceAll(t.Game, "-", " ")) + " " + p.c(col, state)
	if t.Round != nil {
		head += fmt.Sprintf("  round %d", t.Round.No)
	}
	s := t.Shoe
	if s.Total > 0 {
		head += fmt.Sprintf("  %s %s %d left", s.ID, bar(s, 20), s.Left)
		if s.CutReached {
			head += p.c(ansiYellow, " STOP CARD OUT")
		}
	}
	p.line(head)
	if r := t.Round; r != nil && len(r.Hands) > 0 {
		var hs []string
		for _, h := range r.Hands {
			cs := make([]string, len(h.Cards))
			for i, c := range h.Cards {
				cs[i] = p.card(c)
			}
			x := h.Label + " " + strings.Join(cs, " ")
			if h.Total != "" {
				x += " = " + p.c(ansiBold, h.Total)
			}
			if h.Category != "" {
				x += " " + h.Category
			}
			if h.Outcome != "" && h.Outcome != "done" {
				oc := strings.ToUpper(h.Outcome)
				if h.Outcome == "win" || h.Outcome == "blackjack" {
					oc = p.c(ansiGreen+ansiBold, oc)
				}
				x += " " + oc
			}
			hs = append(hs, x)
		}
		p.line("       " + strings.Join(hs, "   "))
		if r.State == "settled" && r.Net != nil {
			p.line("       " + p.c(ansiDim, fmt.Sprintf("stake %s, players %s", tablebus.Cents(r.Stake), signedCents(*r.Net))))
		} else if r.State == "voided" {
			p.line("       " + p.c(ansiYellow, "VOIDED: "+r.Reason))
		}
	}
	var say []string
	for _, x := range t.Say {
		if x != t.Need {
			say = append(say, x)
		}
	}
	if g := strings.Join(say, " · "); g != "" || t.Need != "" {
		var parts []string
		if g != "" {
			parts = append(parts, "› "+g)
		}
		if t.Need != "" {
			parts = append(parts, p.c(ansiDim, "next: "+t.Need))
		}
		p.line("       " + strings.Join(parts, "  "))
	}
	if len(t.Recent) > 0 {
		n, sep := 6, " · "
		if t.Family == familyBaccarat {
			n, sep = 24, " "
		}
		var rs []string
		for _, o := range t.Recent[max(0, len(t.Recent)-n):] {
			rs = append(rs, p.result(t, o))
		}
		line := "       " + strings.Join(rs, sep)
		if t.Roads != nil {
			n := t.Roads.Counts
			line += p.c(ansiDim, fmt.Sprintf("   (banker %d · player %d · tie %d)", n.Banker, n.Player, n.Tie))
		}
		p.line(line)
	}
	var ds []string
	for _, d := range t.Devices {
		x := d.Name + " " + d.State
		switch d.State {
		case "ok":
			x = p.c(ansiGreen, "●") + " " + x
		case "busy":
			x = p.c(ansiYellow, "●") + " " + x
		default:
			x = p.c(ansiRed, "●") + " " + x
		}
		ds = append(ds, x)
	}
	tail := fmt.Sprintf("feed #%d", t.Seq)
	if !t.LastCard.IsZero() && !p.o.Now.IsZero() {
		tail += fmt.Sprintf(", last card %s ago", p.o.Now.Sub(t.LastCard).Round(time.Second))
	}
	p.line("       " + strings.Join(append(ds, p.c(ansiDim, tail)), "  "))
}

// result is one past round in a few characters: B/P/T for baccarat, the result otherwise.
func (p *textWriter) result(t TableView, o Outcome) string {
	if o.Voided {
		return p.c(ansiDim, "void")
	}
	if t.Family == familyBaccarat {
		switch o.Result {
		case "banker":
			return p.c(ansiRed, "B")
		case "player":
			return p.c(ansiBlue, "P")
		case "tie":
			return p.c(ansiGreen, "T")
		}
	}
	return o.Result
}

// bar draws the shoe's progress: █ dealt and burned, ░ left, │ the stop card.
func bar(s ShoeView, n int) string {
	if s.Total <= 0 {
		return ""
	}
	out := min(n, n*s.Out/s.Total)
	cutAt := -1
	if s.CutBehind > 0 {
		cutAt = min(n-1, n*(s.Total-s.CutBehind)/s.Total)
	}
	var b strings.Builder
	b.WriteString("▕")
	for i := range n {
		switch {
		case i == cutAt:
			b.WriteString("│")
		case i < out:
			b.WriteString("█")
		default:
			b.WriteString("░")
		}
	}
	b.WriteString("▏")
	return b.String()
}

func signedCents(c int64) string {
	if c > 0 {
		return "+" + tablebus.Cents(c)
	}
	return tablebus.Cents(c)
}
