package baccarat

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/sabot-tables/sabot/games"
)

// Chemin de fer options (games.Config.Options), all optional.
const (
	// OptBanker is the seat that holds the bank at the first coup (default 1).
	OptBanker = "banker"
	// OptBank is the bank at the first coup, in cents (default: the bank minimum).
	OptBank = "bank"
	// OptSeats is the number of seats round the table, numbered 1…N in the order the bank
	// passes (default 9, seed 000 "la mesa tiene 9 posiciones").
	OptSeats = "seats"
	// OptBankMin is the smallest bank, in cents (seed 000 "al menos, igual al mínimo
	// establecido"); default: the player limit's minimum, or 100 cents without one.
	OptBankMin = "bank-min"
)

// BankPhase is where the chemin de fer bank stands between coups.
type BankPhase uint8

// The bank's phases.
const (
	BankHeld    BankPhase = iota // a banker holds it: coups can be dealt
	BankOffered                  // offered to one seat in rotation (accept or decline)
	BankAuction                  // nobody took it in rotation: sold to the highest bidder
)

func (p BankPhase) String() string {
	switch p {
	case BankHeld:
		return "held"
	case BankOffered:
		return "offered"
	case BankAuction:
		return "auction"
	}
	return fmt.Sprintf("BankPhase(%d)", uint8(p))
}

// MarshalText writes the phase's name.
func (p BankPhase) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a phase's name.
func (p *BankPhase) UnmarshalText(b []byte) error {
	for _, x := range []BankPhase{BankHeld, BankOffered, BankAuction} {
		if x.String() == string(b) {
			*p = x
			return nil
		}
	}
	return fmt.Errorf("baccarat: unknown bank phase %q", b)
}

// Bank is the chemin de fer bank, kept across coups (seed 000, "Punto y Banca … uno de los
// jugadores toma el banco"). All amounts are cents.
type Bank struct {
	Phase  BankPhase `json:"phase"`
	Seats  int       `json:"seats"`
	Min    int64     `json:"min"`              // the table's smallest bank
	Banker int       `json:"banker,omitempty"` // BankHeld: the seat holding the bank and the shoe
	Amount int64     `json:"amount"`           // BankHeld: the bank; no punter may play more
	Coups  int       `json:"coups"`            // coups dealt by this banker with this bank
	// BankOffered: the seat being offered the bank and the least it may take it for.
	Offer    int   `json:"offer,omitempty"`
	OfferMin int64 `json:"offer_min,omitempty"`
	// Passer is the last banker to give the bank up, Voluntary whether by choice (withdrawing)
	// rather than by losing a coup. Returned is what that banker took back from the bank.
	Passer    int   `json:"passer,omitempty"`
	Voluntary bool  `json:"voluntary,omitempty"`
	Returned  int64 `json:"returned,omitempty"`
	// BankAuction: seats that may not bid, and the best bid so far.
	Excluded []int `json:"excluded,omitempty"`
	Bidder   int   `json:"bidder,omitempty"`
	Bid      int64 `json:"bid,omitempty"`
}

// NewBank makes the bank from the chemin de fer options (OptBanker, OptBank, OptSeats,
// OptBankMin) and the table's limits.
func NewBank(opts map[string]string, cfg games.Config) (*Bank, error) {
	b := &Bank{Phase: BankHeld, Seats: 9, Min: 100, Banker: 1}
	if l, ok := cfg.Limit(SpotPlayer); ok {
		b.Min = l.Min
	}
	num := func(k string, lo, hi int64) (int64, error) {
		n, err := strconv.ParseInt(opts[k], 10, 64)
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("baccarat: option %s: %q is not a number from %d to %d", k, opts[k], lo, hi)
		}
		return n, nil
	}
	if _, ok := opts[OptSeats]; ok {
		n, err := num(OptSeats, 2, 99)
		if err != nil {
			return nil, err
		}
		b.Seats = int(n)
	}
	if _, ok := opts[OptBankMin]; ok {
		n, err := num(OptBankMin, 1, MaxStake)
		if err != nil {
			return nil, err
		}
		b.Min = n
	}
	b.Amount = b.Min
	if _, ok := opts[OptBanker]; ok {
		n, err := num(OptBanker, 1, int64(b.Seats))
		if err != nil {
			return nil, err
		}
		b.Banker = int(n)
	}
	if _, ok := opts[OptBank]; ok {
		n, err := num(OptBank, b.Min, MaxStake)
		if err != nil {
			return nil, fmt.Errorf("%w (the bank is at least the table minimum, seed 000)", err)
		}
		b.Amount = n
	}
	return b, nil
}

// next is the seat after s in the order the bank passes (seed 000 "de acuerdo con los turnos").
func (b *Bank) next(s int) int { return s%b.Seats + 1 }

// cover checks a coup's bets against the bank and chooses the punter who plays the hand: the
// seat that called banco (a single bet for the whole bank, seed 000 "hace banco"), else the
// largest stake, ties going to the first seat after the banker.
func (b *Bank) cover(game string, bets []games.Bet) (punter int, stake int64, banco int, err error) {
	if b.Phase != BankHeld {
		return 0, 0, 0, &games.RuleError{Game: game, What: "coup", Rule: fmt.Sprintf("nobody holds the bank (%s): settle it with Manage first (seed 000)", b.describe())}
	}
	best := int64(0)
	dist := func(s int) int { return (s - b.Banker + b.Seats) % b.Seats }
	for _, bet := range bets {
		what := fmt.Sprintf("%s %d", bet.Spot, bet.Amount)
		if bet.Seat == b.Banker {
			return 0, 0, 0, &games.RuleError{Game: game, Seat: bet.Seat, What: what, Rule: "the banker cannot punt against the own bank"}
		}
		if bet.Seat > b.Seats {
			return 0, 0, 0, &games.RuleError{Game: game, Seat: bet.Seat, What: what, Rule: fmt.Sprintf("the table has seats 1–%d", b.Seats)}
		}
		stake += bet.Amount
		if stake > b.Amount {
			return 0, 0, 0, &games.RuleError{Game: game, Seat: bet.Seat, What: what,
				Rule: fmt.Sprintf("the punters' bets come to %d, more than the bank of %d (seed 000: no one plays more than the bank)", stake, b.Amount)}
		}
		if bet.Amount > best || bet.Amount == best && dist(bet.Seat) < dist(punter) {
			best, punter = bet.Amount, bet.Seat
		}
	}
	if punter == 0 {
		return 0, 0, 0, &games.RuleError{Game: game, What: "coup", Rule: "no punter: a coup needs at least one bet against the bank"}
	}
	if len(bets) == 1 && stake == b.Amount {
		banco = punter
	}
	return punter, stake, banco, nil
}

func (b *Bank) describe() string {
	switch b.Phase {
	case BankOffered:
		return fmt.Sprintf("offered to seat %d for at least %d", b.Offer, b.OfferMin)
	case BankAuction:
		return "at auction"
	}
	return fmt.Sprintf("held by seat %d with %d", b.Banker, b.Amount)
}

// CheminDetail is Outcome.Detail for chemin de fer: the bank as the coup found it and left it.
type CheminDetail struct {
	Banker     int   `json:"banker"`
	Bank       int64 `json:"bank"`            // the bank before the coup
	Stake      int64 `json:"stake"`           // the part of it the punters covered
	Punter     int   `json:"punter"`          // the seat that played the punter's hand
	Banco      int   `json:"banco,omitempty"` // the seat that covered the whole bank
	Commission int64 `json:"commission"`      // the house's 5% of the banker's winnings
	After      Bank  `json:"after"`           // the bank after the coup

	net int64 // the banker's net on the coup
}

// complete settles the chemin de fer bank once the coup is complete, and moves it on: it grows by
// the banker's winnings less commission, or, when the banker hand loses, pays the punters and
// passes to the next seat (RULES.md §2; seed 000 "Si la mano banca pierde la jugada … pasar el
// sabot … al jugador correspondiente").
func (e *Engine) complete() {
	res, err := e.Result()
	if e.v != CheminDeFer || err != nil || e.settle != nil {
		return
	}
	b := e.bank
	d := &CheminDetail{Banker: b.Banker, Bank: b.Amount, Stake: e.stake, Punter: e.punter, Banco: e.banco}
	after := *b
	after.Excluded = nil
	switch res {
	case ResultBanker:
		d.Commission = Commission(e.stake)
		d.net = e.stake - d.Commission
		after.Amount += d.net
		after.Coups++
	case ResultPlayer:
		d.net = -e.stake
		after.Returned = b.Amount - e.stake
		after.Phase, after.Passer, after.Voluntary = BankOffered, b.Banker, false
		after.Offer, after.OfferMin = b.next(b.Banker), b.Min
		after.Banker, after.Amount, after.Coups = 0, 0, 0
	default:
		after.Coups++
	}
	d.After = after
	*b = after
	e.settle = d
}

// BankAction is one step of bank management between coups (seed 000), as the daemon receives it.
type BankAction struct {
	// Action is "withdraw" (the banker gives the bank up), "raise" (the banker adds to it),
	// "accept" or "decline" (the seat offered the bank), "bid" (at auction) or "close" (the
	// auction ends).
	Action string `json:"action"`
	Seat   int    `json:"seat,omitempty"`
	Amount int64  `json:"amount,omitempty"`
}

// Bank returns a copy of the chemin de fer bank, or nil in the other games.
func (e *Engine) Bank() *Bank {
	if e.bank == nil {
		return nil
	}
	b := *e.bank
	b.Excluded = slices.Clone(b.Excluded)
	return &b
}

// Manage applies a bank action between coups. A refused action is a *games.RuleError and
// changes nothing.
func (e *Engine) Manage(a BankAction) error {
	game := e.Game()
	refuse := func(rule string) error {
		return &games.RuleError{Game: game, Seat: a.Seat, What: fmt.Sprintf("%s %d", a.Action, a.Amount), Rule: rule}
	}
	if e.bank == nil {
		return refuse("only chemin de fer has a player bank")
	}
	if n, _ := e.state(); e.begun && n.Kind != games.NeedDone {
		return refuse("a coup is in progress: the bank changes hands between coups")
	}
	b := e.bank
	if a.Seat < 1 || a.Seat > b.Seats {
		if a.Action != "close" {
			return refuse(fmt.Sprintf("the table has seats 1–%d", b.Seats))
		}
	}
	if a.Amount < 0 || a.Amount > MaxStake {
		return refuse("not an amount of cents")
	}
	nb := *b
	switch a.Action {
	case "withdraw":
		if b.Phase != BankHeld || a.Seat != b.Banker {
			return refuse("only the banker holding the bank can withdraw it")
		}
		if b.Coups == 0 {
			// seed 000: "está obligado a dar cartas por lo menos una vez. Si se niega, el
			// banco se debe subastar pero no pueden pujar por él ni este jugador ni el
			// anterior banquero".
			nb.Phase, nb.Excluded = BankAuction, []int{b.Banker}
			if b.Passer != 0 && b.Passer != b.Banker {
				nb.Excluded = append(nb.Excluded, b.Passer)
			}
			nb.Passer, nb.Voluntary, nb.Returned = b.Banker, true, b.Amount
			nb.Banker, nb.Amount, nb.Bidder, nb.Bid = 0, 0, 0, 0
			break
		}
		// seed 000: "El jugador que tiene el banco tiene la opción de retirarlo o
		// entregarlo mientras gana los pases"; the next taker puts up at least as much.
		nb.Phase, nb.Passer, nb.Voluntary, nb.Returned = BankOffered, b.Banker, true, b.Amount
		nb.Offer, nb.OfferMin = b.next(b.Banker), b.Amount
		nb.Banker, nb.Amount, nb.Coups = 0, 0, 0
	case "raise":
		// seed 000: "puede ser aumentado por el jugador banquero … pero nunca disminuido".
		if b.Phase != BankHeld || a.Seat != b.Banker {
			return refuse("only the banker holding the bank can raise it")
		}
		if a.Amount <= b.Amount {
			return refuse(fmt.Sprintf("the bank can be raised above %d, never lowered (seed 000)", b.Amount))
		}
		nb.Amount = a.Amount
	case "accept":
		if b.Phase != BankOffered || a.Seat != b.Offer {
			return refuse(fmt.Sprintf("the bank is not offered to this seat (%s)", b.describe()))
		}
		if a.Amount < b.OfferMin {
			return refuse(fmt.Sprintf("the bank is taken for at least %d (seed 000)", b.OfferMin))
		}
		nb = Bank{Phase: BankHeld, Seats: b.Seats, Min: b.Min, Banker: a.Seat, Amount: a.Amount, Passer: b.Passer}
	case "decline":
		if b.Phase != BankOffered || a.Seat != b.Offer {
			return refuse(fmt.Sprintf("the bank is not offered to this seat (%s)", b.describe()))
		}
		nx := b.next(b.Offer)
		switch {
		case b.Offer == b.Passer || nx == b.Passer && !b.Voluntary:
			// seed 000: "Cuando el banco no ha sido adquirido en el turno rotatorio, se debe
			// subastar … a excepción del banquero" who passed it.
			nb.Phase, nb.Offer, nb.OfferMin, nb.Excluded = BankAuction, 0, 0, []int{b.Passer}
		default:
			// seed 000: "éste sigue rotando"; when all decline, "el jugador que cedió el
			// banco puede volver a tomarlo por la misma cantidad".
			nb.Offer = nx
		}
	case "bid":
		if b.Phase != BankAuction {
			return refuse("the bank is not at auction")
		}
		if slices.Contains(b.Excluded, a.Seat) {
			return refuse("the banker who passed the bank cannot bid for it (seed 000)")
		}
		if a.Amount < b.Min || a.Amount <= b.Bid {
			return refuse(fmt.Sprintf("a bid must be at least the table's %d and above the best bid %d (seed 000)", b.Min, b.Bid))
		}
		nb.Bidder, nb.Bid = a.Seat, a.Amount
	case "close":
		if b.Phase != BankAuction {
			return refuse("the bank is not at auction")
		}
		if b.Bidder != 0 {
			nb = Bank{Phase: BankHeld, Seats: b.Seats, Min: b.Min, Banker: b.Bidder, Amount: b.Bid, Passer: b.Passer}
			break
		}
		// seed 000: "Si en la subasta ningún jugador adquirió el banco, éste vuelve al
		// jugador situado a la derecha del banquero que pasó el banco, quien deberá
		// aceptarlo por el mínimo establecido".
		nb = Bank{Phase: BankHeld, Seats: b.Seats, Min: b.Min, Banker: b.next(b.Passer), Amount: b.Min, Passer: b.Passer}
	default:
		return refuse("unknown bank action (withdraw, raise, accept, decline, bid, close)")
	}
	*b = nb
	return nil
}

var _ games.Persistent = (*Engine)(nil)

// Snapshot returns the chemin de fer bank as JSON (null in the other games): the state a
// restarted daemon must give back to its engine.
func (e *Engine) Snapshot() (json.RawMessage, error) {
	if e.bank == nil {
		return nil, nil
	}
	return json.Marshal(e.bank)
}

// Restore puts back a bank from Snapshot. It refuses a bank for a game without one and a bank
// that is not consistent with the table (seats, phase).
func (e *Engine) Restore(b json.RawMessage) error {
	if e.bank == nil {
		if len(b) == 0 || string(b) == "null" {
			return nil
		}
		return fmt.Errorf("baccarat: %s has no bank to restore", e.Game())
	}
	var nb Bank
	if err := json.Unmarshal(b, &nb); err != nil {
		return fmt.Errorf("baccarat: restoring the bank: %w", err)
	}
	if nb.Seats < 1 || nb.Seats > 20 || nb.Phase > BankAuction || nb.Amount < 0 || nb.Banker < 0 || nb.Banker > nb.Seats {
		return fmt.Errorf("baccarat: restoring the bank: not a consistent bank: %s", b)
	}
	*e.bank = nb
	return nil
}
