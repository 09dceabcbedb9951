package result

import "fmt"

// Class says how a request ended. OK is the zero value; every other class is a failure. Transport
// classes (Refused … Other) mean no usable answer arrived; Status and Check mean an answer arrived
// but was not a success; TooLarge, an answer arrived whose body was too long to keep for checking.
type Class uint8

// The classes, in the order reports list them.
const (
	OK            Class = iota // an answer that counts as a success
	Refused                    // the connection was refused (nothing listens)
	Timeout                    // connect, send or answer exceeded its time limit
	Reset                      // the peer reset or closed the connection mid-request
	TLS                        // the TLS handshake or certificate check failed
	DNS                        // the host name could not be resolved
	Protocol                   // the answer broke the protocol (bad status line, bad framing)
	Status                     // an answer with a non-success status (HTTP 4xx/5xx, gRPC non-OK)
	Check                      // an answer that failed a user's check
	Canceled                   // cut short when the run was stopped
	Other                      // anything else
	TooLarge                   // an answer whose body, kept for checks, exceeded the limit (--max-body)
	QUICHandshake              // a QUIC handshake that got no answer in time (a server that drops UDP, or no HTTP/3 there)
	NumClasses
)

var classNames = [NumClasses]string{"ok", "refused", "timeout", "reset", "tls", "dns", "protocol", "status", "check", "canceled", "other", "too-large", "quic-handshake"}

// String returns the class's lower-case name as used in reports ("timeout").
func (c Class) String() string {
	if c < NumClasses {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// ParseClass returns the class named s, as String spells it.
func ParseClass(s string) (Class, error) {
	for i, n := range classNames {
		if n == s {
			return Class(i), nil
		}
	}
	return 0, fmt.Errorf("result: unknown error class %q", s)
}
