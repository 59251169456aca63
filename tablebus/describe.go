package tablebus

import (
	"fmt"
	"strings"

	"github.com/sabot-tables/sabot/shoe/card"
)

// Cents formats an amount of cents as money: 1250 → "12.50", -5 → "-0.05".
func Cents(c int64) string {
	sign := ""
	if c < 0 {
		sign, c = "-", -c
	}
	return fmt.Sprintf("%s%d.%02d", sign, c/100, c%100)
}

func signed(c int64) string {
	if c > 0 {
		return "+" + Cents(c)
	}
	return Cents(c)
}

func cardText(c *card.Card, hidden bool) string {
	if c == nil || hidden {
		return "▒▒"
	}
	return c.Pretty()
}

func cardsText(cs []card.Card) string {
	s := make([]string, len(cs))
	for i, c := range cs {
		s[i] = c.Pretty()
	}
	return strings.Join(s, " ")
}

// diffText lists a composition's missing and extra cards: " (missing A♠ 7♥; extra K♦)".
func diffText(e Event) string {
	var p []string
	if len(e.Missing) > 0 {
		p = append(p, "missing "+cardsText(e.Missing))
	}
	if len(e.Extra) > 0 {
		p = append(p, "extra "+cardsText(e.Extra))
	}
	if len(p) == 0 {
		return ""
	}
	return " (" + strings.Join(p, "; ") + ")"
}

// Describe says an event in one line for people: the live feed of `make run` and `sabot watch`.
// It returns "" for guidance that only repeats what the next card is for.
func Describe(e Event) string {
	switch e.Type {
	case ShoeLoaded:
		if e.Attested {
			return fmt.Sprintf("shoe %s: %d decks for %s, attested by %s (verified at the count)", e.Shoe, e.Decks, e.Game, e.By)
		}
		return fmt.Sprintf("shoe %s: %d cards loaded for %s (%d decks)", e.Shoe, e.Count, e.Game, e.Decks)
	case DecksVerified:
		if e.OK != nil && *e.OK {
			return fmt.Sprintf("deck check: %d complete decks, %d cards", e.Decks, e.Count)
		}
		return fmt.Sprintf("deck check FAILED: %s%s", e.Problem, diffText(e))
	case Shuffled:
		return fmt.Sprintf("shuffled %d cards (%s)", e.Count, e.By)
	case Cut:
		return fmt.Sprintf("cut: %d cards from the front to the back", e.At)
	case CutCardPlaced:
		return fmt.Sprintf("stop card placed %d cards from the back", e.Behind)
	case Burn:
		face := "face down"
		if e.Face != nil && *e.Face == FaceUp {
			return fmt.Sprintf("burn: first card %s face up, %d to burn", cardText(e.Card, false), e.Count)
		}
		return fmt.Sprintf("burn: %s %s (#%d)", cardText(e.Card, e.Hidden), face, e.Pos)
	case RoundOpened:
		if len(e.Bets) == 0 {
			return fmt.Sprintf("round %d: no bets", e.Round)
		}
		var b []string
		var total int64
		for _, x := range e.Bets {
			b = append(b, fmt.Sprintf("%d:%s %s", x.Seat, x.Spot, Cents(x.Amount)))
			total += x.Amount
		}
		return fmt.Sprintf("round %d: no more bets — %s (total %s)", e.Round, strings.Join(b, ", "), Cents(total))
	case CardDealt:
		to := "?"
		if e.To != nil {
			to = e.To.String()
		}
		s := fmt.Sprintf("round %d: %s → %s", e.Round, cardText(e.Card, e.Hidden), to)
		if e.Face != nil && *e.Face == FaceDown {
			s += " (face down)"
		}
		if e.Manual != nil {
			s += " [entered by hand by " + e.Manual.Dealer + "]"
		}
		return s
	case Revealed:
		return fmt.Sprintf("round %d: card #%d turned up: %s", e.Round, e.Pos, cardText(e.Card, false))
	case Decision:
		if e.Choice == exchange {
			s := fmt.Sprintf("round %d: seat %d exchanges %d card(s)", e.Round, e.Seat, e.Count)
			if len(e.Cards) > 0 {
				s += ": " + cardsText(e.Cards)
			}
			return s
		}
		return fmt.Sprintf("round %d: seat %d decides %s", e.Round, e.Seat, e.Choice)
	case Guide:
		var say []string
		for _, s := range e.Say {
			if e.Need == nil || s != e.Need.String() { // the card lines already say where cards go
				say = append(say, s)
			}
		}
		if len(say) == 0 {
			return ""
		}
		return "  › " + strings.Join(say, " · ")
	case CutCardReached:
		return fmt.Sprintf("STOP CARD: %d cards behind it; the round in progress is completed, then the shoe ends", e.Behind)
	case RoundResult:
		var hs []string
		for _, h := range e.Hands {
			name := h.Name
			if name == "" {
				name = fmt.Sprintf("seat %d", h.Seat)
			}
			if h.Category != "" {
				hs = append(hs, fmt.Sprintf("%s %s: %s", name, cardsText(h.Cards), h.Category))
			} else {
				hs = append(hs, fmt.Sprintf("%s %s = %d", name, cardsText(h.Cards), h.Total))
			}
		}
		if e.Dealer != nil {
			hs = append(hs, fmt.Sprintf("dealer %s = %d", cardsText(e.Dealer.Cards), e.Dealer.Total))
		}
		return fmt.Sprintf("round %d: RESULT %s — %s", e.Round, strings.ToUpper(e.Result), strings.Join(hs, "; "))
	case RoundSettled:
		var ss []string
		for _, x := range e.Settle {
			ss = append(ss, fmt.Sprintf("%d:%s %s", x.Seat, x.Spot, signed(x.Net)))
		}
		net := int64(0)
		if e.Net != nil {
			net = *e.Net
		}
		if len(ss) == 0 {
			return fmt.Sprintf("round %d: settled, no bets", e.Round)
		}
		return fmt.Sprintf("round %d: settled %s; players %s", e.Round, strings.Join(ss, ", "), signed(net))
	case RoundVoided:
		return fmt.Sprintf("round %d: VOIDED by %s%s (%s); every bet pushes", e.Round, e.By, approved(e), e.Reason)
	case ShoeEnded:
		a := e.Account
		if a == nil {
			return "shoe ended"
		}
		verdict := "accounting OK"
		if e.OK == nil || !*e.OK {
			verdict = "ACCOUNTING FAILED: " + e.Problem + diffText(e)
		}
		if a.Returned > 0 {
			return fmt.Sprintf("shoe %s ended: dealt %d + burned %d + left %d − returned %d = %d of %d — %s", e.Shoe, a.Dealt, a.Burned, a.Left, a.Returned, a.Total, a.Want, verdict)
		}
		return fmt.Sprintf("shoe %s ended: dealt %d + burned %d + left %d = %d of %d — %s", e.Shoe, a.Dealt, a.Burned, a.Left, a.Total, a.Want, verdict)
	case Fault:
		h := ""
		if e.Hold {
			h = " — TABLE HELD"
		}
		what := ""
		if e.Card != nil {
			what = " [" + e.Card.Pretty() + "]"
		}
		if len(e.Cards) > 0 {
			what += " [seen: " + cardsText(e.Cards) + "]"
		}
		return fmt.Sprintf("FAULT %s: %s%s%s%s", e.Code, e.Problem, what, diffText(e), h)
	case FaultResolved:
		if e.Card != nil {
			return fmt.Sprintf("fault %s resolved by %s%s: %s of %s", e.Code, e.By, approved(e), e.Reason, e.Card.Pretty())
		}
		return fmt.Sprintf("fault %s resolved by %s%s: %s", e.Code, e.By, approved(e), e.Reason)
	case TableOpened:
		return fmt.Sprintf("table %s opened by %s", e.Table, e.By)
	case TableClosed:
		return fmt.Sprintf("table %s closed by %s", e.Table, e.By)
	case DealerSignedIn:
		return fmt.Sprintf("dealer %s signed in", e.By)
	case DealerSignedOut:
		return fmt.Sprintf("dealer %s signed out (%s)", e.By, e.Reason)
	case CardCounted:
		return fmt.Sprintf("counted: %s (%d cards left so far)", cardText(e.Card, e.Hidden), e.Count)
	case CardsReturned:
		return fmt.Sprintf("round %d: %d cards back into the continuous shuffler", e.Round, e.Count)
	case LimitsChanged:
		var ls []string
		for _, l := range e.Limits {
			ls = append(ls, fmt.Sprintf("%s %s–%s", l.Spot, Cents(l.Min), Cents(l.Max)))
		}
		return fmt.Sprintf("limits changed by %s%s: %s", e.By, approved(e), strings.Join(ls, ", "))
	case DeviceStatus:
		return fmt.Sprintf("device %s: %s %s", e.Device, e.State, e.Problem)
	}
	return string(e.Type)
}

func approved(e Event) string {
	if e.Approved == "" || e.Approved == e.By {
		return ""
	}
	return ", approved by " + e.Approved
}
