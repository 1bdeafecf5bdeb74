package etcdlocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/locker"
)

// BenchmarkLockUnlock is one uncontended TryLock and Unlock on an embedded
// single-member server (2 round trips to lock, 3 to unlock).
func BenchmarkLockUnlock(b *testing.B) {
	ctx := context.Background()
	c := etcdtest.Start(b)
	be, err := etcdlocker.New(c.Client(b))
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
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
	c := etcdtest.Start(b)
	be, err := etcdlocker.New(c.Client(b))
	if err != nil {
		b.Fatal(err)
	}
	defer be.Close()
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
