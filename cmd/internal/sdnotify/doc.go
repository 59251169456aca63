// Package sdnotify tells systemd how the daemon is (sd_notify(3): READY=1, STATUS=…, STOPPING=1,
// WATCHDOG=1) and keeps the service watchdog fed only while the daemon's loops are alive.
//
// The protocol is one datagram per notification on the AF_UNIX socket named by $NOTIFY_SOCKET
// (a path, or an abstract name written with a leading '@'), each line a NAME=value assignment.
// With Type=notify the service is started when READY=1 arrives; with WatchdogSec= systemd sets
// $WATCHDOG_USEC and kills the service (WatchdogSignal, SIGABRT by default) and restarts it
// (Restart=on-failure) when no WATCHDOG=1 arrives for that long; WATCHDOG=trigger asks for
// that at once (systemd ≥ 243; Debian bookworm has 252).
//
// A Watchdog pings only while every Heartbeat is fresh: a loop beats when it answers, or
// declares a bounded operation (a shuffle of up to minutes) during which it cannot answer.
// When a heartbeat goes stale the watchdog stops pinging, says why in STATUS=, and triggers:
// the daemon dies into a restart rather than sit with a stalled loop.
package sdnotify
