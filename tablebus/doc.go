// Package tablebus is Sabot's MQTT feed: the topic tree, the versioned JSON wire schema of every
// event, its signed wire form, and the rule of who may read what (the public feed never carries
// a face-down card). Game engines settle money from this feed, so it is built to be complete,
// ordered, authentic and discreet by itself: MQTT gives none of that (research/mqtt.md §0).
//
// # Topics
//
// Version 1, with <table> at a fixed depth so one ACL pattern per role works (package access):
//
//	sabot/v1/<table>/secure/events      every event, hidden cards included (engines, surveillance)
//	sabot/v1/<table>/public/events      the same events, face-down cards without their identity
//	sabot/v1/<table>/public/status      retained: the daemon's birth/death (Status; the will), sealed
//	sabot/v1/<table>/public/keyring     retained: the keyring signed by the floor's root
//	sabot/v1/<table>/public/devices     retained: the devices' status
//	sabot/v1/<table>/secure/probe       the daemon's start-up probe (public/probe likewise)
//	sabot/v1/<table>/secure/engine/<id> an external engine's own guidance, results and alarms
//	sabot/v1/<table>/ack/<consumer>     retained: the consumer's acknowledgement (Ack)
//	sabot/v1/<table>/replay/<consumer>  the consumer's replay request (ReplayRequest)
//	sabot/v1/<table>/cmd                signed commands to the daemon (dealer terminal)
//	sabot/v1/<table>/cmd/reply          the daemon's answer to each command
//
// Every event is published at QoS 1, not retained; the daemon never relies on paho's token
// (which completes on a re-queue after a reconnect): consumers acknowledge what they processed.
//
// # Hidden cards
//
// The public feed is the secure feed less what only the secure feed may carry (RULES.md §1
// "Hidden cards"), and Event.Public takes it out by structure alone, never by reading words: a
// card's identity travels only in card fields (Card, Cards, Missing, Extra, a Hand's Cards, a
// Need's Exchanges), and no word of an event (problem, reason, say, result) ever names a card.
// Card is public only where the event shows it face up; Cards, Missing, Extra, Raw and
// Exchanges never; a round.result's hands lose the cards they mark Down, and its Detail goes
// when cards stayed face down (Unshown); a fault's problem and the guidance's say stay secure.
// The public form is a function of the secure payload: a consumer holding the secure feed can
// derive the public one. The wire types (wire.go) are the feed's own; games.go is the one place
// that maps the engines' types to them. testdata/events pins every type's payloads on both
// feeds (TestGoldenEvents).
//
// # The signed wire form
//
// A payload is one JSON object, as before, whose last three members are its seal. For an event
// on topic T with previous payload P′ on the same topic:
//
//	B    the event's compact JSON body: Event.Marshal, which never carries prev, kid or sig
//	S    = B without its final '}'
//	       ‖ `,"prev":"` ‖ 64 lowercase hex digits of SHA-256(P′)          (9 + 64 bytes)
//	       ‖ `","kid":"` ‖ 16 lowercase hex digits: the key id             (9 + 16 bytes)
//	       ‖ `","sig":"`                                                   (9 bytes)
//	M    = "sabot/v1 event" ‖ 0x00 ‖ T ‖ 0x00 ‖ S                          (the signed message)
//	P    = S ‖ base64url-without-padding(Ed25519(key, M)) ‖ `"}`           (86 + 2 bytes)
//
// So the seal always takes the last 195 bytes, at fixed offsets from the end, and the
// signature covers every byte before its own 86 characters, the topic, and the domain. The key
// id is the first 8 bytes of SHA-256 of the 32-byte public key. prev is 64 zeros for a table's
// first event; each feed (secure, public) is its own chain. A verifier needs nothing but the
// bytes, the topic and the keyring: take the key for kid (refusing a revoked or unknown key),
// check the signature over M before reading the JSON, then decode strictly and check that the
// key belongs to the event's table, was valid at the event's time, and that the topic is the
// table's (OpenEvent). A consumer that delivered P′ also checks prev. TestSealVector in
// seal_test.go shows one payload byte by byte.
//
// Status messages, commands and keyrings are sealed the same way without prev (a 121-byte
// trailer `,"kid":"…","sig":"…"}`), under the domains "sabot/v1 status", "sabot/v1 command"
// and "sabot/v1 keyring" (the keyring's topic is empty: it is the same in a file). A
// signature for one domain, topic or table is useless for any other.
//
// # Keys
//
// Each table has its own Ed25519 key: an HMAC would let every consumer forge. The floor's
// root key, kept offline, signs the Keyring: every table key (use "events", one table) and the
// command keys of dealers and supervisors (use "commands", a role and a name), with validity
// dates, a version, and a list of revoked key ids. Consumers pin the root's public key and
// accept a newer keyring from any table's keyring topic. Rotation without downtime: the root
// signs a keyring listing the next key beside the current one; once consumers hold it, the
// daemon signs with the next key (keystore.Watch switches at the next event).
//
// # Delivery
//
// Sequence numbers are per table, 64-bit, and never reset (the journal keeps the counter). The
// daemon seals and journals each event (SQLite, synchronous=FULL) before anything else; its
// outbox publishes the journal in order, and re-publishes from the lowest acknowledgement of
// the consumers that matter after a restart or a reconnection, or when an acknowledgement stops
// moving; it answers replay requests from the journal. A consumer (package consumer) keeps the
// highest contiguous sequence number, drops exact duplicates and alarms on equivocation (the
// same number with other bytes), reorders, and asks for a gap's replay after a timeout. The
// birth/death Status, retained with a last will per connection, carries the daemon's session
// (one per start) and connection number (one per connect), Sparkplug B's ideas without its QoS
// 0 and 8-bit sequence: a consumer tells "no cards dealt" from "daemon dead", and an engine
// holds a round when the daemon is dead.
//
// # Scale out: one daemon per table, a floor of hundreds against a cluster
//
// Each daemon connects with its own account (the table id) and writes only its own subtree,
// so any number of daemons share one broker (tested with several against one mosquitto). A
// floor's load is small (500 tables at a few events a second is about 2,000 messages a second
// with both feeds, where one mosquitto on two cores carries 30,000), so the question is
// availability, not throughput:
//
//   - Topics never change with the cluster's shape: consumers subscribe by table filter
//     (sabot/v1/+/secure/events, or one pit's tables), and no message depends on reaching a
//     particular node, because ordering and completeness are end to end (sequence numbers,
//     acknowledgements, replays), not the broker's.
//   - A clustered broker (HiveMQ, EMQX Enterprise, Cedalo Pro Mosquitto: research/mqtt.md §3.2)
//     may reorder across nodes and lose a node's queues: consumers reorder and ask for replays;
//     acknowledgements and statuses are retained, so they survive a failover when the cluster
//     replicates retained messages.
//   - Without a commercial cluster: one mosquitto per pit, bridged to a floor broker that
//     engines and surveillance read (below).
//
// A pit broker's bridge forwards its tables' feeds up and the acks, replays and commands down,
// at QoS 1; its account on the floor broker is given "topic readwrite sabot/v1/#" by hand (the
// pit broker's ACL has already checked every daemon and consumer):
//
//	connection floor
//	address floor-broker.casino.lan:8883
//	bridge_protocol_version mqttv311
//	cleansession false
//	local_clientid bridge-pit3
//	remote_clientid bridge-pit3
//	bridge_cafile /etc/mosquitto/sabot/ca.crt
//	bridge_certfile /etc/mosquitto/sabot/bridge-pit3.crt
//	bridge_keyfile /etc/mosquitto/sabot/bridge-pit3.key
//	topic sabot/v1/+/secure/# out 1
//	topic sabot/v1/+/public/# out 1
//	topic sabot/v1/+/cmd/reply out 1
//	topic sabot/v1/+/ack/# in 1
//	topic sabot/v1/+/replay/# in 1
//	topic sabot/v1/+/cmd in 1
//
// A bridge is not high availability: while it is down the floor sees the pit's daemons as
// silent (their statuses stay as last bridged) and the outboxes keep everything; when it
// returns, the retained acks flow down and the daemons re-publish what is missing.
//
// Sub-packages: consumer (the verifying consumer), mqttbus (the only importer of paho),
// broker (the embedded mochi broker), journal (the durable SQLite journal), outbox (the
// daemon's publishing), access (roles and ACLs), brokerconf (mosquitto's configuration),
// keystore (key files and rotation), mosquittotest and bustest (for tests).
package tablebus
