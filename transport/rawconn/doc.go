// Package rawconn makes TCP connections whose reads and writes the Go scheduler does not see as
// system calls.
//
// A read or write through net.Conn enters the runtime's system-call state: the runtime's monitor
// (sysmon) is woken from its deep sleep if it slept, polls every 20 µs for a while after, and takes
// the P of any goroutine it finds in a system call for longer than one of its ticks — a loopback
// write of a request takes about that long — handing it to another thread. For a load generator
// that writes and reads thousands of times a second on one CPU, that was most of its CPU time: at
// 5,000 requests/s on one CPU, about 5,500 monitor sleeps and 1,300 futex hand-offs a second, and
// twice the context switches of the requests' own wake-ups (docs/performance.md).
//
// The sockets are non-blocking, so a read or write returns at once — with data, or with EAGAIN —
// and nothing is gained by letting the scheduler hand the P over while it runs. Wrap's connection
// reads and writes with raw system calls inside syscall.RawConn's Read and Write, which wait for
// readiness in the runtime's network poller exactly as net.Conn does, honouring deadlines. Errors
// are those net.Conn gives: *net.OpError with the same Op, addresses and cause, io.EOF at the end of
// the stream.
//
// On systems other than Linux, Wrap returns the connection as it is.
package rawconn
