package redlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// benchLockUnlock measures an uncontended Lock and Unlock through a Mutex.
func benchLockUnlock(b *testing.B, rl driver.Backend) {
	ctx := context.Background()
	m, err := newMutex(b, rl, "bench")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		l, err := m.TryLock(ctx, locker.WithLease(10*time.Second))
		if err != nil {
			b.Fatal(err)
		}
		if err := l.Unlock(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLockUnlockMem5 is an uncontended RedLock of five in-memory
// stores.
func BenchmarkLockUnlockMem5(b *testing.B) {
	_, _, rl := memRL(b, 5)
	benchLockUnlock(b, rl)
}
