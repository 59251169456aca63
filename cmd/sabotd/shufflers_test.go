package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/sabot-tables/sabot/tablebus"
	"github.com/sabot-tables/sabot/tablebus/journal"
)

// TestShufflerKinds runs whole simulated shoes on the shufflers casinos have besides Sabot's:
// none (the dealer attests hand-shuffled cards; at the end the cards left pass through the
// reading shoe and the count verifies the decks) and a continuous shuffler for blackjack (no
// cut, no stop card, every round's cards back into it; the dealer ends the shoe to count it).
// Each shoe must balance.
func TestShufflerKinds(t *testing.T) {
	if testing.Short() {
		t.Skip("whole shoes")
	}
	for _, tc := range []struct{ kind, game string }{
		{"none", "punto-banco"},
		{"none", "three-card-poker"},
		{"csm", "blackjack"},
	} {
		t.Run(tc.kind+"/"+tc.game, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"--sim", "--shoe", "reader", "--shuffler", tc.kind, "--sim-seed", "5", "--sim-pace", "0s", "--sim-shoes", "1",
				"--listen", "127.0.0.1:0", "--journal", filepath.Join(dir, "T1.db"), "--log-level", "warn", "--game", tc.game}
			var out, errb bytes.Buffer
			if err := run(context.Background(), args, &out, &errb); err != nil {
				t.Fatalf("%v\n%s", err, errb.String())
			}
			j, err := journal.OpenReadOnly(filepath.Join(dir, "T1.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			n := map[tablebus.Type]int{}
			var ended tablebus.Event
			j.Range(context.Background(), 1, j.NextSeq(), func(r journal.Record) error {
				e, err := tablebus.Decode(r.Secure)
				if err != nil {
					t.Fatal(err)
				}
				n[e.Type]++
				switch e.Type {
				case tablebus.ShoeLoaded:
					if !e.Attested || e.By == "" {
						t.Errorf("loaded without an attestation: %+v", e)
					}
				case tablebus.ShoeEnded:
					ended = e
				case tablebus.DecksVerified, tablebus.Cut, tablebus.CutCardPlaced:
					if tc.kind == "csm" {
						t.Errorf("a continuous shuffler's shoe: %s", e.Type)
					}
				}
				return nil
			})
			if ended.OK == nil || !*ended.OK {
				t.Fatalf("the shoe's count: %+v %s\n%s", ended.Account, ended.Problem, tail(out.String(), 30))
			}
			a := ended.Account
			if n[tablebus.CardCounted] != a.Left || a.Left == 0 || n[tablebus.DecksVerified] != 0 {
				t.Errorf("%d cards counted through the shoe, %d left, %d decks.verified", n[tablebus.CardCounted], a.Left, n[tablebus.DecksVerified])
			}
			if tc.kind == "csm" && (n[tablebus.CardsReturned] < 20 || a.Returned != a.Dealt+a.Burned || a.Left != 312) {
				t.Errorf("the continuous shuffler: %d returns, %+v", n[tablebus.CardsReturned], a)
			}
			t.Logf("%s %s: %d rounds, %+v", tc.kind, tc.game, n[tablebus.RoundSettled]+n[tablebus.RoundVoided], *a)
		})
	}
}
