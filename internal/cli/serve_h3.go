package cli

import (
	"fmt"

	"github.com/rpcbench/rpcbench/transport/h3"
)

// sayH3 prints where service kind serves HTTP/3 (addr, UDP), and whether its HTTPS answers offer
// it by Alt-Svc, and, on stderr, a warning when addr lets other machines in (as for --addr) and one
// when the kernel keeps UDP buffers below what quic-go asks for.
func sayH3(se *serveEnv, kind, addr string, altSvc bool) {
	how := "(QUIC, UDP; self-signed)"
	if altSvc {
		how = "(QUIC, UDP), offered by Alt-Svc on its HTTPS answers"
	}
	fmt.Fprintf(se.Out, "%s listening on https://%s over HTTP/3 %s\n", kind, addr, how)
	if msg := exposedWarningOf("--h3-addr", addr); msg != "" && se.Err != nil {
		fmt.Fprintf(se.Err, "rpcbench serve %s: warning: %s\n", kind, msg)
	}
	if w := h3.BufferWarning(); w != "" && se.Err != nil {
		fmt.Fprintf(se.Err, "rpcbench serve %s: %s\n", kind, w)
	}
}
