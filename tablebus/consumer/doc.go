// Package consumer is the reusable consumer of Sabot tables' feeds: `sabot engine`, `sabot
// watch` and the web view all follow the bus through it. For each table it
//
//   - verifies every event (Ed25519 over the topic and the exact payload, with the key the
//     root-signed keyring holds for the table: tablebus.OpenEvent) and every birth/death status;
//   - delivers each event once, in sequence order, checking the hash chain (each event names
//     the previous event's hash);
//   - drops exact duplicates, and raises an equivocation alarm when a copy's bytes differ;
//   - holds events that arrive early, and after a reorder timeout asks the daemon to publish
//     the gap again (tablebus.ReplayRequest on sabot/v1/<table>/replay/<id>), repeating with
//     backoff, with an alarm when a gap stays open;
//   - tracks the daemon's birth and death (tablebus.Status, ordered by session and connection,
//     so a stale will is ignored), and asks for the events a status says exist;
//   - acknowledges, retained on sabot/v1/<table>/ack/<id>, what the application has processed
//     (AckDelivered, or AckCommitted with Commit), so the daemon re-publishes from there, and
//     once more when Run stops;
//   - with Resume, starts each table after its own retained acknowledgement, so that a
//     restarted consumer asks for what it missed instead of acknowledging events it never saw.
//
// The core (Receive, Tick, Commit) is pure: messages and time in, outputs out, for tests and
// for callers that bring their own transport. Run connects it to a broker:
//
//	c, err := consumer.New(consumer.Options{ID: "display.lobby", Feed: tablebus.Public, Root: root})
//	err = c.Run(ctx, mqttClient, consumer.Funcs{
//		OnEvent: func(d consumer.Delivery) error { show(d.Event); return nil },
//		OnAlarm: func(a consumer.Alarm) { alert(a.String()) },   // e.g. "T1 FORGED: …"
//		OnState: func(s consumer.State) { status(s.Table, s.Online) },
//	})
package consumer
