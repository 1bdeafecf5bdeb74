package redislocker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// BenchmarkLockUnlock is one uncontended lock and unlock (two script calls,
// two round trips), at the backend and through a Mutex.
func BenchmarkLockUnlock(b *testing.B) {
	srv := redistest.Start(b)
	conformance.Benchmark(b, newBackend(b, srv.Addr()))
}

// BenchmarkLockUnlockCluster is the same on a 3-master Cluster.
func BenchmarkLockUnlockCluster(b *testing.B) {
	cluster := redistest.StartCluster(b, 3)
	client := redis.NewClusterClient(&redis.ClusterOptions{Addrs: cluster.Addrs(), ContextTimeoutEnabled: true})
	bk, err := redislocker.New(client, redislocker.WithOwnedClient())
	if err != nil {
		b.Fatal(err)
	}
	defer bk.Close()
	conformance.Benchmark(b, bk)
}

// BenchmarkContended has several goroutines, each with a Mutex of its own
// owner, take turns on one key; waiters sleep until the release message.
// One op is one acquisition and release by some goroutine.
func BenchmarkContended(b *testing.B) {
	srv := redistest.Start(b)
	ctx := context.Background()
	for _, workers := range []int{4, 16} {
		b.Run(fmt.Sprint("Goroutines", workers), func(b *testing.B) {
			key := fmt.Sprint("contended-", workers)
			stores := make([]*locker.Store, workers)
			for i := range stores {
				stores[i] = storetest.Of(b, newBackend(b, srv.Addr()))
			}
			b.SetParallelism((workers + 1) / 2) // GOMAXPROCS is 2 on CI machines
			next := make(chan int, workers*4)
			for i := range cap(next) {
				next <- i % workers
			}
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				m, err := stores[<-next].Mutex(key)
				if err != nil {
					b.Error(err)
					return
				}
				for pb.Next() {
					l, err := m.Lock(ctx, locker.WithLease(time.Minute))
					if err != nil {
						b.Error(err)
						return
					}
					if err := l.Unlock(ctx); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}

// BenchmarkExpireBatch renews 1,000 held locks in one ExpireBatch call.
func BenchmarkExpireBatch(b *testing.B) {
	srv := redistest.Start(b)
	bk := newBackend(b, srv.Addr())
	ctx := context.Background()
	owner := locker.NewOwner()
	renewals := make([]driver.Renewal, 1000)
	for i := range renewals {
		key := fmt.Sprint("bench-batch/", i)
		if _, err := bk.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: time.Minute}); err != nil {
			b.Fatal(err)
		}
		renewals[i] = driver.Renewal{Key: key, Owner: owner, TTL: time.Minute}
	}
	for b.Loop() {
		for _, err := range bk.ExpireBatch(ctx, renewals) {
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "ns/renewal")
}
