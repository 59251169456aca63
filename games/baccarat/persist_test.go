package baccarat_test

import (
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/games/baccarat"
	"github.com/sabot-tables/sabot/games/catalog"
)

// The chemin de fer bank survives a Snapshot and Restore exactly; a bank for another game, or a
// damaged one, is refused.
func TestBankSnapshotRestore(t *testing.T) {
	e, err := catalog.New(games.Config{Game: "chemin-de-fer"})
	if err != nil {
		t.Fatal(err)
	}
	be := e.(*baccarat.Engine)
	if err := be.Manage(baccarat.BankAction{Action: "raise", Seat: 1, Amount: 5000}); err != nil {
		t.Fatal(err)
	}
	snap, err := be.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := catalog.New(games.Config{Game: "chemin-de-fer"})
	if err := fresh.(games.Persistent).Restore(snap); err != nil {
		t.Fatal(err)
	}
	again, _ := fresh.(games.Persistent).Snapshot()
	if string(again) != string(snap) || be.Bank().Amount != fresh.(*baccarat.Engine).Bank().Amount {
		t.Fatalf("restored %s, want %s", again, snap)
	}
	if err := fresh.(games.Persistent).Restore([]byte(`{"phase":"held","seats":0}`)); err == nil {
		t.Fatal("a bank with no seats was restored")
	}
	pb, _ := catalog.New(games.Config{Game: "punto-banco"})
	if s, _ := pb.(games.Persistent).Snapshot(); s != nil {
		t.Fatalf("punto banco has a state: %s", s)
	}
	if err := pb.(games.Persistent).Restore(snap); err == nil {
		t.Fatal("punto banco took a bank")
	}
}
