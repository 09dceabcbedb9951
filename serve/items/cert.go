package items

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"time"
)

// selfSigned makes a self-signed ECDSA P-256 certificate for localhost, 127.0.0.1 and ::1, valid
// from an hour ago for a year, and returns it and its key in PEM.
func selfSigned(now time.Time) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"rpcbench items"}, CommonName: "localhost"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(365 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder}), nil
}

// loadCert returns the server certificate of cfg: from CertFile and KeyFile when set, else a new
// self-signed one. It also returns the certificate chain in PEM.
func loadCert(cfg Config, now time.Time) (tls.Certificate, []byte, error) {
	var certPEM, keyPEM []byte
	switch {
	case cfg.CertFile == "" && cfg.KeyFile == "":
		var err error
		if certPEM, keyPEM, err = selfSigned(now); err != nil {
			return tls.Certificate{}, nil, fmt.Errorf("items: making a self-signed certificate: %w", err)
		}
	case cfg.CertFile == "" || cfg.KeyFile == "":
		return tls.Certificate{}, nil, errors.New("items: a certificate file needs its key file and the other way round: set both or neither")
	default:
		var err error
		if certPEM, err = os.ReadFile(cfg.CertFile); err != nil {
			return tls.Certificate{}, nil, fmt.Errorf("items: reading the certificate: %w", err)
		}
		if keyPEM, err = os.ReadFile(cfg.KeyFile); err != nil {
			return tls.Certificate{}, nil, fmt.Errorf("items: reading the key: %w", err)
		}
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("items: certificate %q and key %q: %w (want PEM files of a certificate and its private key)",
			cfg.CertFile, cfg.KeyFile, err)
	}
	return cert, certPEM, nil
}
