package brokerconf

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/sabot-tables/sabot/tablebus/mqttbus"
)

// certValidity is how long the certificates made here are valid.
const certValidity = 2 * 365 * 24 * time.Hour

// MakeCA makes a certificate authority (ECDSA P-256) in dir: ca.crt and ca.key. An existing
// CA is kept.
func MakeCA(dir, name string) error {
	if _, err := os.Stat(filepath.Join(dir, "ca.key")); err == nil {
		return nil
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("brokerconf: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(certValidity),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return fmt.Errorf("brokerconf: %w", err)
	}
	return writePair(dir, "ca", der, key)
}

func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	return n
}

func writePair(dir, name string, der []byte, key *ecdsa.PrivateKey) error {
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("brokerconf: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return fmt.Errorf("brokerconf: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".key"), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), 0o600); err != nil {
		return fmt.Errorf("brokerconf: %w", err)
	}
	return nil
}

// MakeCert makes a certificate signed by dir's CA: the broker's (server, with hosts as its
// names and addresses) or an account's (client: the common name is the account, which
// mosquitto takes as the user name with use_identity_as_username). It writes <file>.crt and
// <file>.key.
func MakeCert(dir, file, commonName string, server bool, hosts []string) error {
	ca, err := tls.LoadX509KeyPair(filepath.Join(dir, "ca.crt"), filepath.Join(dir, "ca.key"))
	if err != nil {
		return fmt.Errorf("brokerconf: the CA: %w", err)
	}
	caCert, err := x509.ParseCertificate(ca.Certificate[0])
	if err != nil {
		return fmt.Errorf("brokerconf: the CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("brokerconf: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: commonName},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(certValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if server {
		tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
		for _, h := range hosts {
			if ip := net.ParseIP(h); ip != nil {
				tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
			} else {
				tmpl.DNSNames = append(tmpl.DNSNames, h)
			}
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, ca.PrivateKey)
	if err != nil {
		return fmt.Errorf("brokerconf: %w", err)
	}
	return writePair(dir, file, der, key)
}

// ClientTLS returns the TLS configuration of an account with a certificate made by MakeCert.
func ClientTLS(dir, file string) (*tls.Config, error) {
	c, err := mqttbus.TLSFiles(filepath.Join(dir, "ca.crt"), filepath.Join(dir, file+".crt"), filepath.Join(dir, file+".key"))
	if err != nil {
		return nil, fmt.Errorf("brokerconf: %w", err)
	}
	return c, nil
}
