//go:build !unix

package mesh

// openFileLimit is 0 (unknown) where the system has no RLIMIT_NOFILE.
func openFileLimit() int { return 0 }
