package h2

// EmptyReads returns, for the open HTTP/2 connection to host (over TCP: rawconn's), how many of
// its reads found the socket empty; false when there is none.
func EmptyReads(t *Transport, scheme, host string) (int, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, pc := range t.pools[poolKey{scheme, host}] {
		if pc.cc == nil {
			continue
		}
		if c, ok := pc.cc.nc.(interface{ EmptyReads() int }); ok {
			return c.EmptyReads(), true
		}
	}
	return 0, false
}
