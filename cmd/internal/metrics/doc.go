// Package metrics is Sabot's Prometheus instrumentation: what a table's feed says (cards read,
// cards refused, faults by kind, the time from a card's read to where it is observed) and what
// the daemon knows of itself (the MQTT queue, the watchdog), registered on a registry the caller
// serves at /metrics (github.com/prometheus/client_golang).
//
// Every series is labelled with the table, so that one Prometheus scraping many daemons, or one
// `sabot watch --http` following a whole floor, tells the tables apart.
package metrics
