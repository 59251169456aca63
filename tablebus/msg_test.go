package tablebus_test

import (
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/games"
	"github.com/sabot-tables/sabot/tablebus"
)

// TestMsgWire: a guidance message's wire form, and back to the words it says.
func TestMsgWire(t *testing.T) {
	m := games.M("bj.stands", games.T("who", games.M("bj.seat", games.N("seat", 2))), games.N("total", 18))
	e := tablebus.Event{V: 1, Seq: 1, Type: tablebus.Guide, Table: "T1", Source: "table", Session: 1, TS: goldenT0,
		Msgs: tablebus.MsgsOf([]games.Msg{m, games.M("hold.jam", games.S("detail", `shoe: "stuck"`))})}
	b, err := e.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `"msgs":[{"code":"bj.stands","args":{"total":18,"who":{"code":"bj.seat","args":{"seat":2}}}},{"code":"hold.jam","args":{"detail":"shoe: \"stuck\""}}]`
	if !strings.Contains(string(b), want) {
		t.Fatalf("wire form %s, want %s", b, want)
	}
	d, err := tablebus.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := games.Text(games.Spanish, d.Msgs[0].Game()); got != "puesto 2 se planta con 18" {
		t.Errorf("decoded, in Spanish: %q", got)
	}
	if got := d.Msgs[1].Game().String(); got != `held: a card is stuck (shoe: "stuck"): free it, then void the round` {
		t.Errorf("decoded, in English: %q", got)
	}
	if again, _ := d.Marshal(); string(again) != string(b) {
		t.Errorf("decoded and encoded again:\n %s\n %s", again, b)
	}
	for _, bad := range []string{
		`{"code":"x","args":{"a":1.5}}`,
		`{"code":"x","args":{"a":{"code":"y","extra":1}}}`,
		`{"code":"x","args":{"a":{"args":{}}}}`,
		`{"code":"x","args":{"a":true}}`,
		`{"code":"x","args":{"a":[1]}}`,
	} {
		p := strings.Replace(string(b), want[len(`"msgs":[`):len(want)-1], bad, 1)
		if _, err := tablebus.Decode([]byte(p)); err == nil {
			t.Errorf("a message %s is accepted", bad)
		}
	}
}
