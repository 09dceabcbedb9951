package transport

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"

	"github.com/rpcbench/rpcbench/result"
)

// TLSFiles say how TLS connections verify the server and show the client; see result.TLSFiles.
type TLSFiles = result.TLSFiles

// TLSVersions maps the versions TLSFiles.MinVersion accepts to crypto/tls's.
var TLSVersions = result.TLSVersions

// TLSConfig returns the tls.Config f describes, with insecure skipping the server's verification. A
// file that cannot be read or holds no certificate is an error naming it.
func TLSConfig(f TLSFiles, insecure bool) (*tls.Config, error) {
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
