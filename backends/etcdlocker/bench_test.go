package etcdlocker_test

import (
	"testing"

	"github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/internal/etcdtest"
)

// BenchmarkLockUnlock is one uncontended lock and unlock on an embedded
// single-member server (one transaction to lock, one to unlock, with lease
// grants and revocations in the background), at the backend and through a
// Mutex.
func BenchmarkLockUnlock(b *testing.B) {
	c := etcdtest.Start(b)
	be, err := etcdlocker.New(c.Client(b))
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
	conformance.Benchmark(b, be)
}
