// Package floor is what surveillance staff, pit bosses and technicians look at: a live model of
// every table built from the table's feed (the events of the README's "MQTT feed" section), the
// alerts that stay until somebody acknowledges them, the replay of a past round from the journal
// card by card, and the web view that shows all of it in a browser over server-sent events.
//
// The model is pure: a Floor takes Deliveries (an event, a daemon's birth or death, a device
// report, or a problem the feed's consumer found, such as a forged event) and keeps, per table,
// the shoe's progress, the round on the layout with each hand's total, the engine's guidance,
// the baccarat roads and the devices' state. Where the deliveries come from is a Feed, a small
// interface of this package: the daemon's own outbox (cmd/sabotd), an MQTT subscription to a
// whole floor (sabot watch --http), or tablebus's verifying consumer.
//
// The web view (Server) is one page of static HTML, CSS and JavaScript embedded in the binary.
// The cards are drawn from Debian's card art (the Aisleriot "anglo" deck of gnome-cards-data,
// GPL-3+), which the server reads from the installed package at start and serves as it is: the
// art is not copied into this repository or the binary.
package floor
