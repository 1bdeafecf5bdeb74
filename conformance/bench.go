package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// Benchmark measures one uncontended lock and unlock on be, in three
// sub-benchmarks: at the backend (TryLock and Unlock), and through a Mutex
// of a Store over be with a fixed lease and with the watchdog. The Store
// owns be, as Stores own their drivers: be is closed when Benchmark
// returns. Backend authors call it from a benchmark of their own:
//
//	func BenchmarkLockUnlock(b *testing.B) {
//		conformance.Benchmark(b, newBackend(b))
//	}
func Benchmark(b *testing.B, be driver.Backend) {
	ctx := context.Background()
	key := "conformance-bench:" + locker.NewOwner()[:10]
	st := locker.NewStore(be)
	defer func() {
		if err := st.Close(); err != nil {
			b.Error(err)
		}
	}()
	b.Run("TryLockUnlock", func(b *testing.B) {
		owner := locker.NewOwner()
		for b.Loop() {
			g, err := be.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: 10 * time.Second})
			if err != nil || !g.Acquired {
				b.Fatalf("TryLock: %v, %+v", err, g)
			}
			if err := be.Unlock(ctx, key, owner); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, mode := range []struct {
		name string
		opts []locker.LockOption
	}{
		{"MutexFixedLease", []locker.LockOption{locker.WithLease(10 * time.Second)}},
		{"MutexWatchdog", nil},
	} {
		b.Run(mode.name, func(b *testing.B) {
			m, err := st.Mutex(key)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				l, err := m.Lock(ctx, mode.opts...)
				if err != nil {
					b.Fatal(err)
				}
				if err := l.Unlock(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
