package memcachelocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/distlock/distlock/backends/memcachelocker"
	"github.com/distlock/distlock/internal/memcachedtest"
	"github.com/distlock/distlock/locker"
)

// BenchmarkLockUnlock is one uncontended TryLock and Unlock on a local
// memcached (5 round trips to lock: gets, cas over the last tombstone,
// incr, gets, cas; 2 to unlock: gets, cas).
func BenchmarkLockUnlock(b *testing.B) {
	ctx := context.Background()
	s := memcachedtest.Start(b)
	be, err := memcachelocker.New(s.Client(b))
	if err != nil {
		b.Fatal(err)
	}
	owner := locker.NewOwner()
	for b.Loop() {
		g, err := be.TryLock(ctx, "bench", owner, 10*time.Second)
		if err != nil || !g.Acquired {
			b.Fatalf("TryLock: %v, %+v", err, g)
		}
		if err := be.Unlock(ctx, "bench", owner); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMutexLockUnlock is the same through a Mutex with a fixed lease.
func BenchmarkMutexLockUnlock(b *testing.B) {
	ctx := context.Background()
	s := memcachedtest.Start(b)
	be, err := memcachelocker.New(s.Client(b))
	if err != nil {
		b.Fatal(err)
	}
	m, err := locker.New(be, "bench")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		l, err := m.Lock(ctx, locker.WithLease(10*time.Second))
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
