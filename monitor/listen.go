package monitor

// Listener is a process holding a TCP socket that listens on a port.
type Listener struct {
	PID  int
	Comm string // its command name, as the kernel keeps it (at most 15 bytes)
}

// Listening is what Listeners finds for a port: the processes holding a socket that listens on it,
// and how many such sockets have no process this one may see (another user's: their
// /proc/PID/fd cannot be read).
type Listening struct {
	Procs  []Listener
	Hidden int
}
