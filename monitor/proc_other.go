//go:build !linux

package monitor

// NewSampler returns ErrUnsupported: reading processes and cgroups needs Linux. Observe still
// works on readings made elsewhere.
func NewSampler(target Target) (*Sampler, error) {
	if err := target.Validate(); err != nil {
		return nil, err
	}
	return nil, ErrUnsupported
}
