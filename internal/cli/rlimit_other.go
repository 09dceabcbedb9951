//go:build !unix

package cli

func raiseOpenFiles(int) string { return "" }
