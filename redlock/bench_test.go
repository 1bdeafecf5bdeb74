package redlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/redlock"
)

// benchLockUnlock measures an uncontended Lock and Unlock through a Mutex.
func benchLockUnlock(b *testing.B, rl *redlock.RedLock) {
	ctx := context.Background()
	m, err := locker.New(rl, "bench")
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
