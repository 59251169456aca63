package terminal

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/sabot-tables/sabot/tablebus"
)

// Bank is the chemin de fer bank as the table last published it (the JSON of
// games/baccarat.Bank: a table.action's detail, a round.result's "after"): the page offers the
// bank's actions of its phase only, and the engine checks them again (seed 000).
type Bank struct {
	Phase    string `json:"phase"` // held, offered, auction
	Seats    int    `json:"seats"`
	Min      int64  `json:"min"`
	Banker   int    `json:"banker,omitempty"`
	Amount   int64  `json:"amount"`
	Offer    int    `json:"offer,omitempty"`
	OfferMin int64  `json:"offer_min,omitempty"`
	Excluded []int  `json:"excluded,omitempty"`
	Bidder   int    `json:"bidder,omitempty"`
	Bid      int64  `json:"bid,omitempty"`
}

// BankView is the bank on the page: what it is, in words, and the actions its phase allows.
type BankView struct {
	Bank
	Text    string `json:"text"`
	Actions []Term `json:"actions"`
}

// bankOf reads a bank from a table.action's detail or a round.result's ("after"); nil: none.
func bankOf(e tablebus.Event) *Bank {
	if len(e.Detail) == 0 {
		return nil
	}
	var b Bank
	if e.Type == tablebus.RoundResult {
		var d struct {
			After *Bank `json:"after"`
		}
		if json.Unmarshal(e.Detail, &d) != nil || d.After == nil {
			return nil
		}
		b = *d.After
	} else if json.Unmarshal(e.Detail, &b) != nil {
		return nil
	}
	if b.Phase == "" {
		return nil
	}
	return &b
}

// actions are the bank's actions in its phase (seed 000): the banker withdraws it or raises
// it; the seat offered it accepts or declines; at auction a seat bids, or the auction closes.
func (b *Bank) actions() []string {
	switch b.Phase {
	case "held":
		return []string{"withdraw", "raise"}
	case "offered":
		return []string{"accept", "decline"}
	case "auction":
		return []string{"bid", "close"}
	}
	return nil
}

// checkBank checks a bank action against the bank as the page showed it and fills in the seat
// the action is for where the bank names it (the banker's, the seat offered the bank).
func checkBank(b *Bank, a Action) (tablebus.Command, error) {
	if b == nil {
		return tablebus.Command{}, refuse(409, "err.no-bank")
	}
	if !slices.Contains(b.actions(), a.Action) {
		return tablebus.Command{}, refuse(409, "err.bank-action")
	}
	c := tablebus.Command{Cmd: "table", Action: a.Action}
	switch a.Action {
	case "withdraw":
		c.Seat = b.Banker
	case "raise":
		c.Seat, c.Amount = b.Banker, a.Amount
		if a.Amount <= b.Amount {
			return tablebus.Command{}, refuse(400, "err.bank-raise", "amount", Money(b.Amount))
		}
	case "accept":
		c.Seat, c.Amount = b.Offer, a.Amount
		if least := max(b.OfferMin, b.Min); a.Amount < least {
			return tablebus.Command{}, refuse(400, "err.bank-accept", "seat", fmt.Sprint(b.Offer), "min", Money(least))
		}
	case "decline":
		c.Seat = b.Offer
	case "bid":
		c.Seat, c.Amount = a.Seat, a.Amount
		if a.Seat < 1 || a.Seat > b.Seats || slices.Contains(b.Excluded, a.Seat) {
			return tablebus.Command{}, refuse(400, "err.bank-bidder", "seat", fmt.Sprint(a.Seat))
		}
		if least := max(b.Min, b.Bid+1); a.Amount < least {
			return tablebus.Command{}, refuse(400, "err.bank-bid", "min", Money(least))
		}
	}
	return c, nil
}

// view says the bank in a language, with its actions.
func (b *Bank) view(lang string) *BankView {
	v := &BankView{Bank: *b, Actions: []Term{}}
	switch b.Phase {
	case "held":
		v.Text = Say(lang, "ui.bank-held", map[string]string{"seat": itoa(b.Banker), "amount": Money(b.Amount)})
	case "offered":
		v.Text = Say(lang, "ui.bank-offered", map[string]string{"seat": itoa(b.Offer), "min": Money(max(b.OfferMin, b.Min))})
	case "auction":
		v.Text = Say(lang, "ui.bank-auction", map[string]string{"min": Money(b.Min)})
		if b.Bidder != 0 {
			v.Text = Say(lang, "ui.bank-best-bid", map[string]string{"seat": itoa(b.Bidder), "amount": Money(b.Bid)})
		}
	}
	for _, a := range b.actions() {
		v.Actions = append(v.Actions, Term{Code: a, Text: Say(lang, "ui.bank."+a, map[string]string{"seat": itoa(b.Offer)})})
	}
	return v
}
