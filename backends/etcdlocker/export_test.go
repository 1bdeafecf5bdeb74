package etcdlocker

import "time"

// WithClock makes the backend read the time from now instead of time.Now.
func WithClock(now func() time.Time) Option {
	return func(b *Backend) error {
		b.clock = now
		return nil
	}
}

// SharedLeases returns how many shared leases for a lease of ttl b hands
// out.
func SharedLeases(b *Backend, ttl time.Duration) int {
	return b.pool.handedOut(b.leaseSeconds(ttl))
}
