package floor

import (
	"context"
	"strings"
	"testing"

	"github.com/sabot-tables/sabot/tablebus"
)

func TestDecode(t *testing.T) {
	event := `{"v":1,"seq":36,"type":"card","table":"T1","source":"table","session":3,"shoe":"T1-000001","round":1,"ts":"2026-11-29T20:00:08.5Z","card":"6s","face":"up","to":{"name":"banker"},"pos":11}`
	tests := []struct {
		name, topic, payload string
		want                 string // "event", "status", "devices", or "problem: …"
		err                  string
	}{
		{"secure event", "sabot/v1/T1/secure/events", event, "event", ""},
		{"public event", "sabot/v1/T1/public/events", event, "event", ""},
		{"engine alarm", "sabot/v1/T1/secure/engine/check", strings.Replace(event, `"source":"table"`, `"source":"check"`, 1), "event", ""},
		{"status", "sabot/v1/T1/public/status", `{"v":1,"table":"T1","online":false,"session":3,"game":"punto-banco","seq":1187,"ts":"2026-11-29T20:00:08Z"}`, "status", ""},
		{"devices", "sabot/v1/T1/public/devices", `{"v":1,"table":"T1","devices":[{"name":"shuffler","state":"ok"}],"ts":"2026-11-29T20:00:08Z"}`, "devices", ""},
		{"another table's event", "sabot/v1/T2/secure/events", event, `problem: rejected: sabot/v1/T2/secure/events: an event of table "T1" on this table's topic`, ""},
		{"undecodable", "sabot/v1/T1/secure/events", `{"v":1,`, "problem: rejected: sabot/v1/T1/secure/events: tablebus: bad event payload: unexpected EOF", ""},
		{"unknown field in a status", "sabot/v1/T1/public/status", `{"v":1,"table":"T1","online":true,"extra":1,"ts":"2026-11-29T20:00:08Z"}`, `problem: rejected: sabot/v1/T1/public/status: json: unknown field "extra"`, ""},
		{"status of schema 2", "sabot/v1/T1/public/status", `{"v":2,"table":"T1","online":true,"ts":"2026-11-29T20:00:08Z"}`, `problem: rejected: sabot/v1/T1/public/status: status of table "T1", schema 2`, ""},
		{"a command", "sabot/v1/T1/cmd", `{}`, "", `floor: "sabot/v1/T1/cmd" is not a topic the floor follows`},
		{"not sabot", "other/T1/secure/events", event, "", `floor: "other/T1/secure/events" is not a table's topic`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Decode(tc.topic, []byte(tc.payload))
			if tc.err != "" {
				if err == nil || err.Error() != tc.err {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := ""
			switch {
			case d.Event != nil:
				got = "event"
			case d.Status != nil:
				got = "status"
			case d.Devices != nil:
				got = "devices"
			case d.Problem != nil:
				got = "problem: " + string(d.Problem.Kind) + ": " + d.Problem.Detail
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzDecode: no payload on any topic makes Decode or the floor panic, and what the floor
// accepts it can show.
func FuzzDecode(f *testing.F) {
	f.Add("sabot/v1/T1/secure/events", []byte(`{"v":1,"seq":36,"type":"card","table":"T1","source":"table","session":3,"shoe":"T1-000001","round":1,"ts":"2026-11-29T20:00:08.5Z","card":"6s","face":"up","to":{"name":"banker"},"pos":11}`))
	f.Add("sabot/v1/T1/secure/events", []byte(`{"v":1,"seq":37,"type":"round.result","table":"T1","ts":"2026-11-29T20:00:08.5Z","game":"punto-banco","result":"banker","hands":[{"hand":0,"name":"player","cards":["4h","7c"],"total":1},{"hand":0,"name":"banker","cards":["9d","Kh"],"total":9}]}`))
	f.Add("sabot/v1/T1/secure/events", []byte(`{"v":1,"seq":38,"type":"reveal","table":"T1","ts":"2026-11-29T20:00:08.5Z","pos":11,"card":"Qh","round":1}`))
	f.Add("sabot/v1/T1/public/status", []byte(`{"v":1,"table":"T1","online":false,"session":3,"seq":1187,"ts":"2026-11-29T20:00:08Z"}`))
	f.Add("sabot/v1/T1/public/devices", []byte(`{"v":1,"table":"T1","devices":[{"name":"shuffler","state":"fault"}],"ts":"2026-11-29T20:00:08Z"}`))
	f.Fuzz(func(t *testing.T, topic string, payload []byte) {
		d, err := Decode(topic, payload)
		if err != nil {
			return
		}
		fl := newFloor()
		fl.Apply(d)
		fl.Apply(d)
		s := fl.Snapshot(0)
		for _, tv := range s.Tables {
			if tv.Shoe.Left < 0 || tv.Shoe.Out < 0 {
				t.Fatalf("shoe %+v", tv.Shoe)
			}
		}
	})
}

// TestEventsFeed: the adapter hands out what the source gives, and the source's error.
func TestEventsFeed(t *testing.T) {
	src := &sliceSource{evs: []tablebus.Event{{Seq: 1, Table: "T1"}, {Seq: 2, Table: "T1"}}}
	fl := newFloor()
	if err := fl.Run(context.Background(), Events(src)); err == nil || err.Error() != "source: no more" {
		t.Fatalf("Run: %v", err)
	}
	if v, _ := fl.Table("T1"); v.Seq != 2 {
		t.Errorf("seq %d, want 2", v.Seq)
	}
}

type sliceSource struct{ evs []tablebus.Event }

func (s *sliceSource) Next(ctx context.Context) (tablebus.Event, error) {
	if len(s.evs) == 0 {
		return tablebus.Event{}, errNoMore
	}
	e := s.evs[0]
	s.evs = s.evs[1:]
	return e, nil
}

var errNoMore = errorString("source: no more")

type errorString string

func (e errorString) Error() string { return string(e) }
