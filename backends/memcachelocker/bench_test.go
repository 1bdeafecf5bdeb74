package memcachelocker_test

import (
	"testing"

	"github.com/distlock/distlock/backends/memcachelocker"
	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/internal/memcachedtest"
)

// BenchmarkLockUnlock is one uncontended lock and unlock on a local
// memcached (5 round trips to lock: gets, cas over the last tombstone,
// incr, gets, cas; 2 to unlock: gets, cas), at the backend and through a
// Mutex.
func BenchmarkLockUnlock(b *testing.B) {
	s := memcachedtest.Start(b)
	be, err := memcachelocker.New(s.Client(b))
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	conformance.Benchmark(b, be)
}
