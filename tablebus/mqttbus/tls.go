package mqttbus

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
)

// TLSFiles returns the TLS configuration for a broker with mutual TLS: the CA that signed the
// broker's certificate, and this client's certificate and key (the broker takes the
// certificate's name as the account: `sabot broker-config write --tls`). All three empty: nil,
// no TLS. The broker URL must then be ssl://host:port.
func TLSFiles(caFile, certFile, keyFile string) (*tls.Config, error) {
	if caFile == "" && certFile == "" && keyFile == "" {
		return nil, nil
	}
	if caFile == "" {
		return nil, fmt.Errorf("mqtt: TLS needs the broker's CA (--mqtt-ca)")
	}
	if (certFile == "") != (keyFile == "") {
		return nil, fmt.Errorf("mqtt: a client certificate needs both --mqtt-cert and --mqtt-key")
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("mqtt: CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("mqtt: CA %s: no PEM certificate in it", caFile)
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if certFile != "" {
		c, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			return nil, fmt.Errorf("mqtt: client certificate: %w", err)
		}
		cfg.Certificates = []tls.Certificate{c}
	}
	return cfg, nil
}
