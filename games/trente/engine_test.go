package trente

import (
	"errors"
	"reflect"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/shoe/card"
)

var fourBets = []games.Bet{
	{Seat: 1, Spot: Rouge, Amount: 1000},
	{Seat: 2, Spot: Noir, Amount: 1000},
	{Seat: 3, Spot: Couleur, Amount: 501},
	{Seat: 4, Spot: Inverse, Amount: 2000},
}

func deal(t *testing.T, e *Engine, cards string) []string {
	t.Helper()
	cs, err := card.ParseList(cards)
	if err != nil {
		t.Fatal(err)
	}
	var say []string
	for i, c := range cs {
		st, err := e.Card(c)
		if err != nil {
			t.Fatalf("card %d (%s): %v", i+1, c, err)
		}
		say = append(say, games.Words(st.Say)...)
	}
	return say
}

func TestCoups(t *testing.T) {
	for _, tc := range []struct {
		name     string
		cards    string
		rows     string // n or r per card
		nt, rt   int
		result   string
		chance   string
		nets     []int64 // rouge, noir, couleur, inverse
		lastSays []string
	}{
		{
			name: "rouge wins, first card black: inverse", cards: "Ks Qh 9c 5d  Th Jc 8d 4s", rows: "nnnnrrrr",
			nt: 34, rt: 32, result: Rouge, chance: Inverse,
			nets:     []int64{1000, -1000, -501, 2000},
			lastSays: []string{"rouge 32", "rouge wins 32 to 34", "noir loses", "inverse wins"},
		},
		{
			name: "noir wins, first card black: couleur", cards: "Ks Qh Jd As  Td Jc 5d 7s", rows: "nnnnrrrr",
			nt: 31, rt: 32, result: Noir, chance: Couleur,
			nets: []int64{-1000, 1000, 501, -2000},
		},
		{
			name: "noir wins, first card red: inverse", cards: "Kh Qs Jd As  Td Jc 5d 7s", rows: "nnnnrrrr",
			nt: 31, rt: 32, result: Noir, chance: Inverse,
			nets: []int64{-1000, 1000, -501, 2000},
		},
		{
			name: "rouge wins, first card red: couleur", cards: "9h 9s 9c 9d  Th Jc Qs Ad", rows: "nnnnrrrr",
			nt: 36, rt: 31, result: Rouge, chance: Couleur,
			nets: []int64{1000, -1000, 501, -2000},
		},
		{
			name: "refait at 35: every bet pushes", cards: "Kh Qs 9c 6d  Th Jc 8d 7s", rows: "nnnnrrrr",
			nt: 35, rt: 35, result: ResultRefait,
			nets:     []int64{0, 0, 0, 0},
			lastSays: []string{"rouge 35", "refait 35: every bet pushes"},
		},
		{
			name: "refait at 31: half of every stake, an odd cent to the player", cards: "Kh Qs Jd As  Td Jc Qc Ad", rows: "nnnnrrrr",
			nt: 31, rt: 31, result: ResultRefait31,
			nets:     []int64{-500, -500, -250, -1000},
			lastSays: []string{"rouge 31", "refait 31: every bet loses half its stake"},
		},
		{
			name: "a row of aces", cards: "As Ah Ad Ac As Ah Ad Ac As Ah Ad Ac As Ah Ad Ac As Ah Ad Ac As Ah Ad Ac As Ah Ad Ac As Ah Ad  Kd Kh Kc Ks", rows: "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnrrrr",
			nt: 31, rt: 40, result: Noir, chance: Couleur,
			nets: []int64{-1000, 1000, 501, -2000},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := New(games.Config{Game: Game})
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Begin(fourBets); err != nil {
				t.Fatal(err)
			}
			cs, _ := card.ParseList(tc.cards)
			var say []string
			for i, c := range cs {
				n := e.Need()
				want := map[byte]string{'n': Noir, 'r': Rouge}[tc.rows[i]]
				if n.Kind != games.NeedCard || n.To.Name != want || n.Face != games.FaceUp {
					t.Fatalf("card %d: need %v, want card to %s", i+1, n, want)
				}
				st, err := e.Card(c)
				if err != nil {
					t.Fatal(err)
				}
				say = games.Words(st.Say)
			}
			if e.Need().Kind != games.NeedDone {
				t.Fatalf("need %v", e.Need())
			}
			if tc.lastSays != nil && !reflect.DeepEqual(say, tc.lastSays) {
				t.Errorf("say %q, want %q", say, tc.lastSays)
			}
			o, err := e.Outcome()
			if err != nil {
				t.Fatal(err)
			}
			d := o.Detail.(Detail)
			if o.Result != tc.result || d.Chance != tc.chance || o.Hands[0].Name != Noir || o.Hands[0].Total != tc.nt ||
				o.Hands[1].Name != Rouge || o.Hands[1].Total != tc.rt || o.CardsUsed != len(cs) || d.FirstCard != cs[0] {
				t.Errorf("outcome %+v detail %+v", o, d)
			}
			for i, s := range o.Settlements {
				if s.Net != tc.nets[i] || s.Spot != fourBets[i].Spot {
					t.Errorf("%s: net %d, want %d", s.Spot, s.Net, tc.nets[i])
				}
			}
		})
	}
}

func TestOutOfTurnAndRefusals(t *testing.T) {
	e, _ := New(games.Config{Game: Game})
	if _, err := e.Card(card.MustParse("Ks")); err == nil {
		t.Error("card before Begin")
	}
	if err := e.Begin(nil); err != nil {
		t.Fatal(err)
	}
	deal(t, e, "Ks Qh 9c 5d Th Jc 8d 4s")
	before, _ := e.Outcome()
	_, err := e.Card(card.MustParse("2s"))
	var re *games.RuleError
	if !errors.As(err, &re) || re.Rule != "card out of turn: dealer error: rouge stands on 32, the coup is complete" {
		t.Errorf("card after the coup: %v", err)
	}
	if after, _ := e.Outcome(); !reflect.DeepEqual(before, after) {
		t.Error("the refused card changed the coup")
	}
	if _, err := e.Decide(1, "H"); err == nil {
		t.Error("decision accepted")
	}
	if _, err := e.Burn(card.None); err == nil {
		t.Error("burn accepted")
	}
	if err := e.Begin(nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Outcome(); !errors.Is(err, ErrIncomplete) {
		t.Errorf("outcome of a fresh coup: %v", err)
	}
	for _, tc := range []struct {
		bets []games.Bet
		want string
	}{
		{[]games.Bet{{Seat: 1, Spot: "tie", Amount: 100}}, "trente-et-quarante: seat 1: tie 100: unknown spot (trente et quarante takes rouge, noir, couleur, inverse)"},
		{[]games.Bet{{Seat: 1, Spot: "rouge", Amount: 100}, {Seat: 1, Spot: "rouge", Amount: 100}}, "trente-et-quarante: seat 1: rouge 100: a second bet on the same spot: one bet per seat and spot"},
		{[]games.Bet{{Seat: 1, Spot: "noir", Amount: 100001}}, "trente-et-quarante: seat 1: noir 100001: outside the table's noir limit 500–100000 (seed 003)"},
		{[]games.Bet{{Seat: 1, Spot: "noir", Amount: 0}}, "trente-et-quarante: seat 1: noir 0: a bet must be a positive amount of cents"},
	} {
		e, _ := New(games.Config{Game: Game, Limits: []games.Limit{{Spot: Noir, Min: 500, Max: 100000}}})
		if err := e.Begin(tc.bets); err == nil || err.Error() != tc.want {
			t.Errorf("Begin(%v): %v\nwant %s", tc.bets, err, tc.want)
		}
	}
	for _, tc := range []struct {
		cfg  games.Config
		want string
	}{
		{games.Config{Game: "rouge-et-noir"}, `trente: unknown game "rouge-et-noir" (this package plays trente-et-quarante)`},
		{games.Config{Game: Game, Options: map[string]string{"tie31": "lose"}}, `trente: option tie31: "lose" is neither "half" nor "prison" (RULES.md §3)`},
		{games.Config{Game: Game, Options: map[string]string{"insurance": "yes"}}, `trente: unknown option "insurance"`},
		{games.Config{Game: Game, Rules: "x"}, `trente: trente-et-quarante has no rule presets (got "x")`},
	} {
		if _, err := New(tc.cfg); err == nil || err.Error() != tc.want {
			t.Errorf("New(%+v): %v\nwant %s", tc.cfg, err, tc.want)
		}
	}
}

// TestPrison follows bets through prison: a 31 tie imprisons them, a refait keeps them in, the
// next decided coup frees the winners and takes the losers.
func TestPrison(t *testing.T) {
	e, err := New(games.Config{Game: Game, Options: map[string]string{OptTie31: "prison"}})
	if err != nil {
		t.Fatal(err)
	}
	bets := []games.Bet{{Seat: 1, Spot: Rouge, Amount: 1000}, {Seat: 2, Spot: Noir, Amount: 400}}
	if err := e.Begin(bets); err != nil {
		t.Fatal(err)
	}
	say := deal(t, e, "Kh Qs Jd As Td Jc Qc Ad")
	if say[len(say)-1] != "refait 31: every bet goes to prison" {
		t.Errorf("say %q", say)
	}
	o, _ := e.Outcome()
	if o.Net() != -1400 || len(e.Prison()) != 2 || len(o.Detail.(Detail).Imprisoned) != 2 {
		t.Fatalf("imprisoned: net %d, prison %v", o.Net(), e.Prison())
	}
	// Coup 2: a refait keeps them; a new bet settles as usual.
	if err := e.Begin([]games.Bet{{Seat: 3, Spot: Couleur, Amount: 100}}); err != nil {
		t.Fatal(err)
	}
	deal(t, e, "Kh Qs 9c 6d Th Jc 8d 7s")
	o, _ = e.Outcome()
	if want := []games.Settlement{{Seat: 3, Spot: Couleur, Amount: 100, Net: 0}}; !reflect.DeepEqual(o.Settlements, want) || len(e.Prison()) != 2 {
		t.Fatalf("refait: %+v, prison %v", o.Settlements, e.Prison())
	}
	// Coup 3: rouge wins: seat 1's rouge stake is freed, seat 2's noir stake is taken.
	if err := e.Begin(nil); err != nil {
		t.Fatal(err)
	}
	deal(t, e, "Ks Qh 9c 5d Th Jc 8d 4s")
	o, _ = e.Outcome()
	want := []games.Settlement{{Seat: 1, Spot: "prison:rouge", Amount: 1000, Net: 1000}, {Seat: 2, Spot: "prison:noir", Amount: 400, Net: 0}}
	if !reflect.DeepEqual(o.Settlements, want) || len(e.Prison()) != 0 || len(o.Detail.(Detail).Prison) != 0 {
		t.Fatalf("released: %+v, prison %v", o.Settlements, e.Prison())
	}
	if p := (Prisoner{Bet: bets[0], Since: 1}); p.String() != "seat 1 rouge 1000 (coup 1)" {
		t.Errorf("prisoner %s", p)
	}
}
