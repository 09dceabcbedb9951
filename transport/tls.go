package transport

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// TLSFiles say how TLS connections verify the server and show the client, and the lowest TLS
// version they accept. The zero value verifies
// servers against the system's roots, by the name in the URL, and shows no client certificate.
type TLSFiles struct {
	// CACert is a PEM file of the certificates that verify servers, instead of the system's.
	CACert string `json:"cacert,omitempty"`
	// Cert and Key are PEM files of the client's certificate and private key (mutual TLS).
	Cert string `json:"cert,omitempty"`
	Key  string `json:"key,omitempty"`
	// ServerName is the name the server's certificate must hold; empty: the URL's host.
	ServerName string `json:"server_name,omitempty"`
	// MinVersion is the lowest TLS version accepted: "1.2" or "1.3"; empty: 1.2.
	MinVersion string `json:"min_version,omitempty"`
}

// TLSVersions maps the versions MinVersion accepts to crypto/tls's.
var TLSVersions = map[string]uint16{"1.2": tls.VersionTLS12, "1.3": tls.VersionTLS13}

// IsZero reports whether f asks for nothing beyond the defaults.
func (f TLSFiles) IsZero() bool { return f == TLSFiles{} }

// Config returns the tls.Config f describes, with insecure skipping the server's verification. A
// file that cannot be read or holds no certificate is an error naming it.
func (f TLSFiles) Config(insecure bool) (*tls.Config, error) {
	c := &tls.Config{ServerName: f.ServerName, InsecureSkipVerify: insecure, MinVersion: tls.VersionTLS12} //nolint:gosec // the user asked
	if f.MinVersion != "" {
		v, ok := TLSVersions[f.MinVersion]
		if !ok {
			return nil, fmt.Errorf("TLS version %q: want 1.2 or 1.3", f.MinVersion)
		}
		c.MinVersion = v
	}
	if f.CACert != "" {
		pem, err := os.ReadFile(f.CACert)
		if err != nil {
			return nil, fmt.Errorf("CA certificates: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("CA certificates %s: no PEM certificate in it", f.CACert)
		}
	}
	switch {
	case (f.Cert == "") != (f.Key == ""):
		return nil, errors.New("a client certificate and its key go together: give both files or neither")
	case f.Cert != "":
		pair, err := tls.LoadX509KeyPair(f.Cert, f.Key)
		if err != nil {
			return nil, fmt.Errorf("client certificate %s, key %s: %w", f.Cert, f.Key, err)
		}
		c.Certificates = []tls.Certificate{pair}
	}
	return c, nil
}
