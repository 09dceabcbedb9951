//go:build !linux

package monitor

func affinityCPUs() int { return 0 }

func cgroupQuota() float64 { return 0 }
