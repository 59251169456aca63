package floor

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/sabot-tables/sabot/tablebus"
)

// EventSource hands out one table's events in order: outbox.Observer does, in the daemon.
type EventSource interface {
	Next(ctx context.Context) (tablebus.Event, error)
}

// Events adapts an EventSource to a Feed.
func Events(src EventSource) Feed { return eventFeed{src} }

type eventFeed struct{ src EventSource }

func (f eventFeed) Next(ctx context.Context) (Delivery, error) {
	e, err := f.src.Next(ctx)
	if err != nil {
		return Delivery{}, err
	}
	return Delivery{Event: &e}, nil
}

// Decode turns one MQTT message of a Sabot topic into a delivery: an event on a table's events
// topic or an engine's topic, a status, a device report. A payload that does not decode is
// returned as a Problem (ProblemRejected) naming the topic, with the error; a topic that is
// none of those is an error.
//
// Decode does not verify signatures; a verifying consumer (tablebus) decodes with its own
// checks and hands the floor Deliveries directly.
func Decode(topic string, payload []byte) (Delivery, error) {
	table := tablebus.TableOf(topic)
	if tablebus.ValidTable(table) != nil {
		return Delivery{}, fmt.Errorf("floor: %q is not a table's topic", topic)
	}
	t := tablebus.Topics{Table: table}
	rejected := func(err error) (Delivery, error) {
		return Delivery{Problem: &Problem{Table: table, Kind: ProblemRejected, Detail: fmt.Sprintf("%s: %v", topic, err)}}, nil
	}
	switch {
	case topic == t.SecureEvents() || topic == t.PublicEvents() || strings.HasPrefix(topic, t.Engine("")):
		e, err := tablebus.Decode(payload)
		if err != nil {
			return rejected(err)
		}
		if e.Table != table {
			return rejected(fmt.Errorf("an event of table %q on this table's topic", e.Table))
		}
		return Delivery{Event: &e}, nil
	case topic == t.Status():
		var s tablebus.Status
		if err := strict(payload, &s); err != nil {
			return rejected(err)
		}
		if s.Table != table || s.V != tablebus.SchemaVersion {
			return rejected(fmt.Errorf("status of table %q, schema %d", s.Table, s.V))
		}
		return Delivery{Status: &s}, nil
	case topic == t.Devices():
		var r DeviceReport
		if err := strict(payload, &r); err != nil {
			return rejected(err)
		}
		if r.Table != table || r.V != tablebus.SchemaVersion {
			return rejected(fmt.Errorf("device report of table %q, schema %d", r.Table, r.V))
		}
		return Delivery{Devices: &r}, nil
	}
	return Delivery{}, fmt.Errorf("floor: %q is not a topic the floor follows", topic)
}

// strict decodes one JSON object with no unknown fields and nothing after it.
func strict(b []byte, v any) error {
	if len(b) > tablebus.MaxPayload {
		return fmt.Errorf("payload of %d bytes exceeds %d", len(b), tablebus.MaxPayload)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if err := d.Decode(v); err != nil {
		return err
	}
	if d.More() {
		return fmt.Errorf("data after the object")
	}
	return nil
}
