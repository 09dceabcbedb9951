package result

import "crypto/tls"

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
