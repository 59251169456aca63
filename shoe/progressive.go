package shoe

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/tablebus"
)

// The progressive jackpot at a live table (RULES.md §7): the table's bets feed a pool that a
// floor's controller keeps, and the controller, not the table, pays the prizes. The machine's
// side of it:
//
//   - a round with progressive bets opens only while the controller is online (ProgressiveLink),
//     and emits progressive.bet after round.opened: the controller books the contributions;
//   - once dealt, the round emits round.result and progressive.hand (each bet's final hand),
//     and waits for the controller's award (ProgressiveAward) before round.settled: nothing is
//     settled on doubt (RULES.md §1);
//   - an award that does not come in time (ProgressiveTimeout), that refuses the round, or that
//     does not match its hands holds the round for a supervisor; the award arriving later
//     releases it, a void returns every bet (and the controller reverses the round).

// Fault codes of the progressive.
const (
	FaultProgressiveUnconfirmed = "progressive-unconfirmed" // the controller did not confirm the round in time
	FaultProgressiveRefused     = "progressive-refused"     // the controller refused the round (its reason)
	FaultProgressiveMismatch    = "progressive-mismatch"    // the award does not match the round's hands
)

// ProgressiveLink: the controller of the table's pool is online (Open) or not. The daemon sends
// it at each change; it always emits a progressive.link event, so that the journal replays alike.
type ProgressiveLink struct {
	Open   bool
	Reason string
	Time   time.Time
}

// ProgressiveAward: the controller's award for a round, its signature checked by the daemon.
type ProgressiveAward struct {
	Award tablebus.Award
	Time  time.Time
}

// ProgressiveTimeout: the award for Round did not come in time.
type ProgressiveTimeout struct {
	Round uint64
	Time  time.Time
}

func (i ProgressiveLink) when() time.Time    { return i.Time }
func (i ProgressiveAward) when() time.Time   { return i.Time }
func (i ProgressiveTimeout) when() time.Time { return i.Time }

// progWait is a round dealt and waiting for its award.
type progWait struct {
	claims  []games.Claim
	settled tablebus.Event // round.settled without the progressive bets
}

// ProgressiveOpen reports whether the table takes progressive bets now.
func (m *Machine) ProgressiveOpen() bool { return m.cfg.Progressive != "" && m.progOpen }

// Table returns the table's id.
func (m *Machine) Table() string { return m.cfg.Table }

// AwaitingAward returns the round waiting for the controller's award, or 0.
func (m *Machine) AwaitingAward() uint64 {
	if m.progWait == nil {
		return 0
	}
	return m.round
}

func (m *Machine) progressiveLink(o *out, in ProgressiveLink) error {
	if m.cfg.Progressive == "" {
		return refused("progressive link: this table feeds no progressive pool")
	}
	m.progOpen = in.Open
	e := tablebus.Event{Type: tablebus.ProgressiveLink, Pool: m.cfg.Progressive, State: tablebus.LinkOpen, Reason: in.Reason}
	if !in.Open {
		e.State = tablebus.LinkClosed
	}
	// The dealer's words, as the guidance says them (games/text), on the secure feed.
	msgs := []games.Msg{games.M("progressive." + e.State)}
	e.Msgs, e.Say = tablebus.MsgsOf(msgs), games.Words(msgs)
	if e.Reason == "" {
		e.Reason = "controller " + e.State
	}
	o.add(e)
	return nil
}

// checkProgressiveBets refuses progressive bets at a table without a pool, or while its
// controller is offline. A journal's replay takes what was taken.
func (m *Machine) checkProgressiveBets(bets []games.Bet) error {
	if m.replaying || !slices.ContainsFunc(bets, func(b games.Bet) bool { return b.Spot == "progressive" }) {
		return nil
	}
	if m.cfg.Progressive == "" {
		return errors.New("progressive bets: this table feeds no progressive pool (RULES.md §7)")
	}
	if !m.progOpen {
		return errors.New("progressive bets: the progressive controller is offline; the table takes no progressive bet until it is back (RULES.md §7)")
	}
	return nil
}

// progressiveBets is the round's progressive.bet event, if it has progressive bets.
func (m *Machine) progressiveBets(o *out, bets []games.Bet) {
	var pb []games.Bet
	for _, b := range bets {
		if b.Spot == "progressive" {
			pb = append(pb, b)
		}
	}
	if len(pb) > 0 && m.cfg.Progressive != "" {
		o.add(tablebus.Event{Type: tablebus.ProgressiveBet, Pool: m.cfg.Progressive, Bets: tablebus.BetsOf(pb)})
	}
}

// awaitAward holds back the round's settlement until the award, when the round has claims.
func (m *Machine) awaitAward(o *out, settled tablebus.Event) bool {
	c, ok := m.eng.(games.Claimer)
	if !ok || m.cfg.Progressive == "" {
		return false
	}
	claims := c.Claims()
	if len(claims) == 0 {
		return false
	}
	m.progWait = &progWait{claims: claims, settled: settled}
	o.add(tablebus.Event{Type: tablebus.ProgressiveHand, Pool: m.cfg.Progressive, Claims: tablebus.ClaimsOf(claims)})
	return true
}

func (m *Machine) progressiveTimeout(o *out, in ProgressiveTimeout) error {
	if m.progWait == nil || in.Round != m.round {
		return refused("progressive timeout: round %d does not wait for an award", in.Round)
	}
	m.fault(o, FaultProgressiveUnconfirmed, fmt.Sprintf("the progressive controller has not confirmed round %d: the round is held for a supervisor (wait for the controller, or void the round)", m.round), true)
	return nil
}

// progressiveAward applies the controller's award: it must be for this table's pool and the
// round waiting, and match its hands; then the award and the round's settlement are emitted.
func (m *Machine) progressiveAward(o *out, in ProgressiveAward) error {
	a := in.Award
	if m.progWait == nil || a.Round != m.round || a.Table != m.cfg.Table || a.Pool != m.cfg.Progressive {
		return refused("progressive award for table %s pool %s round %d: no such round waits for one", a.Table, a.Pool, a.Round)
	}
	resolve := func() {
		if m.held != nil {
			o.add(tablebus.Event{Type: tablebus.FaultResolved, Code: m.held.code, Reason: "progressive award received", By: a.Controller})
			m.held = nil
		}
	}
	if !a.OK {
		if m.held == nil || m.held.code != FaultProgressiveRefused {
			m.held = nil
			m.faultEv(o, tablebus.Event{Code: FaultProgressiveRefused, Reason: a.Error,
				Problem: fmt.Sprintf("the progressive controller refused round %d: %s; the round is held for a supervisor", m.round, a.Error)}, true)
		}
		return nil
	}
	if why := m.mismatch(a); why != "" {
		m.held = nil
		m.faultEv(o, tablebus.Event{Code: FaultProgressiveMismatch, Reason: why,
			Problem: fmt.Sprintf("the progressive award for round %d does not match its hands: %s; the round is held for a supervisor", m.round, why)}, true)
		return nil
	}
	resolve()
	o.add(tablebus.Event{Type: tablebus.ProgressiveAward, Pool: a.Pool, Ref: a.Ref, Payouts: a.Payouts, Draw: a.Draw, Amount: a.Value, By: a.Controller})
	settled := m.progWait.settled
	won := map[int]int64{}
	for _, p := range a.Payouts {
		won[p.Seat] += p.Amount
	}
	net := *settled.Net
	for _, c := range m.progWait.claims {
		st := tablebus.Settlement{Seat: c.Seat, Spot: "progressive", Amount: c.Amount}
		if !c.Void {
			st.Net = won[c.Seat] - c.Amount
		}
		net += st.Net
		settled.Settle = append(settled.Settle, st)
	}
	slices.SortStableFunc(settled.Settle, func(x, y tablebus.Settlement) int { return x.Seat - y.Seat })
	settled.Net = &net
	o.add(settled)
	m.progWait = nil
	m.endRound(o)
	return nil
}

// mismatch says how an award disagrees with the round's hands, or "".
func (m *Machine) mismatch(a tablebus.Award) string {
	by := map[int]games.Claim{}
	for _, c := range m.progWait.claims {
		by[c.Seat] = c
	}
	for _, p := range a.Payouts {
		c, ok := by[p.Seat]
		switch {
		case !ok:
			return fmt.Sprintf("seat %d is paid a %s prize without a progressive bet", p.Seat, p.Kind)
		case c.Void:
			return fmt.Sprintf("seat %d's void hand is paid a prize", p.Seat)
		case p.Amount <= 0:
			return fmt.Sprintf("seat %d is paid %d cents", p.Seat, p.Amount)
		case p.Kind == "hand" && (c.Folded || p.Category != c.Category):
			return fmt.Sprintf("seat %d is paid for a %s, its hand is a %s%s", p.Seat, p.Category, c.Category, map[bool]string{true: " (folded)"}[c.Folded])
		case p.Kind != "hand" && p.Kind != "carta-magica" && p.Kind != "jugador-afortunado":
			return fmt.Sprintf("seat %d is paid an unknown prize %q", p.Seat, p.Kind)
		}
	}
	return ""
}
