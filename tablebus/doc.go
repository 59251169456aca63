// Package tablebus is Sabot's MQTT feed: the topic tree, the versioned JSON wire schema of every
// event, and the rule of who may read what (the public feed never carries a face-down card).
//
// Topics (version 1), with <table> at a fixed depth so one ACL pattern per role works:
//
//	sabot/v1/<table>/secure/events    every event, hidden cards included (engines, surveillance)
//	sabot/v1/<table>/public/events    the same events, face-down cards without their identity
//	sabot/v1/<table>/public/status    retained: the daemon online/offline (last will), session
//	sabot/v1/<table>/public/devices   retained: the devices' status
//	sabot/v1/<table>/secure/engine/<id> an external engine's own guidance and results
//	sabot/v1/<table>/cmd              commands to the daemon (dealer terminal, simulator)
//	sabot/v1/<table>/cmd/reply        the daemon's answer to each command
//
// Sub-packages: mqttbus (the only importer of paho), broker (the embedded mochi broker),
// journal (the durable SQLite event journal).
package tablebus
