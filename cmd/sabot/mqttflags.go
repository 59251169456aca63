package main

import (
	"crypto/tls"
	"flag"

	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// tlsFlags adds --mqtt-ca, --mqtt-cert and --mqtt-key (mutual TLS with a site broker) to a
// command's flags and returns what builds the TLS configuration (nil without them).
func tlsFlags(fs *flag.FlagSet) func() (*tls.Config, error) {
	ca := fs.String("mqtt-ca", "", "mutual TLS: the CA of the broker's certificate (with an ssl:// broker URL)")
	cert := fs.String("mqtt-cert", "", "mutual TLS: this client's certificate (its name is the account)")
	key := fs.String("mqtt-key", "", "mutual TLS: the client certificate's private key")
	return func() (*tls.Config, error) { return mqttbus.TLSFiles(*ca, *cert, *key) }
}
