package items

import (
	"crypto/tls"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/rpcbench/rpcbench/serve/h3serve"
)

// loadCert returns the server certificate of cfg: from CertFile and KeyFile when set, else a new
// self-signed one. It also returns the certificate chain in PEM.
func loadCert(cfg Config, now time.Time) (tls.Certificate, []byte, error) {
	var certPEM, keyPEM []byte
	switch {
	case cfg.CertFile == "" && cfg.KeyFile == "":
		var err error
		if certPEM, keyPEM, err = h3serve.SelfSigned("rpcbench items", now); err != nil {
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
