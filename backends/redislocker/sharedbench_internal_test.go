package redislocker

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
)

// The benchmarks of the shared locks beside the mutex's, with the scripts'
// time on the server from INFO commandstats:
//
//	go test -run '^$' -bench 'SharedLockUnlock|TryLockScript|StoreLockUnlock' ./backends/redislocker/

// benchLock is a lock the benchmarks compare: the mutex, or a view.
type benchLock struct {
	name string
	v    driver.Backend
	// release runs the lock's unlock script by its source (EVAL), so that
	// commandstats counts it apart from the trylock script (EVALSHA).
	release func(ctx context.Context, key, owner string) error
}

// benchLocks returns the mutex and a view of each kind and mode of a new
// backend on srv.
func benchLocks(b *testing.B, srv *redistest.Server) []benchLock {
	bk, err := New(redis.NewClient(&redis.Options{Addr: srv.Addr()}), WithOwnedClient())
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = bk.Close() })
	locks := []benchLock{{"Mutex", bk, func(ctx context.Context, key, owner string) error {
		k := bk.keys(key)
		return eval(ctx, bk, unlockScript, k.queued, bk.releaseArg(owner, 0))
	}}}
	for _, c := range []struct {
		name  string
		share driver.Share
	}{
		{"Read", driver.Share{Mode: driver.Read}},
		{"Write", driver.Share{Mode: driver.Write}},
		{"Semaphore", driver.Share{Mode: driver.Permits, Limit: 10, Permits: 1}},
	} {
		sv, err := bk.Share(c.share)
		if err != nil {
			b.Fatal(err)
		}
		v := sv.(*view)
		locks = append(locks, benchLock{c.name, v, func(ctx context.Context, key, owner string) error {
			return eval(ctx, bk, v.unlock, v.keys(key).own, v.mode, owner, 0, v.publish)
		}})
	}
	return locks
}

// eval runs s by its source.
func eval(ctx context.Context, bk *Backend, s *script, keys []any, args ...any) error {
	cmd := s.command(ctx, false, keys, args...)
	_ = bk.client.Process(ctx, cmd)
	return cmd.Err()
}

// scriptTime returns the calls of command (EVAL or EVALSHA) the server
// counted since its last CONFIG RESETSTAT, and the µs they took.
func scriptTime(b *testing.B, srv *redistest.Server, command string) (calls, usec float64) {
	b.Helper()
	info, err := srv.Info("commandstats")
	if err != nil {
		b.Fatal(err)
	}
	for f := range strings.SplitSeq(info["cmdstat_"+command], ",") { // calls=3,usec=41,usec_per_call=13.67,...
		name, value, _ := strings.Cut(f, "=")
		n, _ := strconv.ParseFloat(value, 64)
		switch name {
		case "calls":
			calls = n
		case "usec":
			usec = n
		}
	}
	return calls, usec
}

// cycles runs b.Loop of uncontended acquisitions of l by one owner, each
// released by release, on server counters reset first.
func cycles(b *testing.B, srv *redistest.Server, l benchLock, release func(ctx context.Context, key, owner string) error) {
	ctx := context.Background()
	owner := locker.NewOwner()
	if _, err := srv.Do("CONFIG", "RESETSTAT"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		g, err := l.v.TryLock(ctx, driver.Request{Key: "bench", Owner: owner, TTL: 10 * time.Second})
		if err != nil || !g.Acquired {
			b.Fatalf("TryLock: %v, %+v", err, g)
		}
		if err := release(ctx, "bench", owner); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSharedLockUnlock is one uncontended acquisition and release
// (two script calls, two round trips) of a read hold, a write hold and a
// semaphore hold, beside the mutex's. server-µs/op is the time of both
// scripts on the server.
func BenchmarkSharedLockUnlock(b *testing.B) {
	srv := redistest.Start(b)
	for _, l := range benchLocks(b, srv) {
		b.Run(l.name, func(b *testing.B) {
			cycles(b, srv, l, l.v.Unlock)
			_, usec := scriptTime(b, srv, "evalsha")
			b.ReportMetric(usec/float64(b.N), "server-µs/op")
		})
	}
}

// BenchmarkTryLockScript is the same cycle with the release run by its
// source (EVAL), so that commandstats counts the trylock script alone
// under EVALSHA: server-µs/trylock, and the release's under EVAL (which
// hashes the script's source too).
func BenchmarkTryLockScript(b *testing.B) {
	srv := redistest.Start(b)
	for _, l := range benchLocks(b, srv) {
		b.Run(l.name, func(b *testing.B) {
			cycles(b, srv, l, l.release)
			calls, usec := scriptTime(b, srv, "evalsha")
			if calls != float64(b.N) {
				b.Fatalf("%v trylock calls for %d cycles", calls, b.N)
			}
			b.ReportMetric(usec/calls, "server-µs/trylock")
			calls, usec = scriptTime(b, srv, "eval")
			b.ReportMetric(usec/calls, "server-µs/release")
		})
	}
}

// BenchmarkStoreLockUnlock is the same cycle through a Store, with a fixed
// lease: a Mutex's Lock, an RWMutex's RLock and Lock, a Semaphore's
// Acquire of one permit, each with its Unlock.
func BenchmarkStoreLockUnlock(b *testing.B) {
	srv := redistest.Start(b)
	bk, err := New(redis.NewClient(&redis.Options{Addr: srv.Addr()}), WithOwnedClient())
	if err != nil {
		b.Fatal(err)
	}
	st := locker.NewStore(bk)
	b.Cleanup(func() { _ = st.Close() })
	m, err1 := st.Mutex("bench")
	rw, err2 := st.RWMutex("bench")
	sem, err3 := st.Semaphore("bench", 10)
	if err := errors.Join(err1, err2, err3); err != nil {
		b.Fatal(err)
	}
	lease := locker.WithLease(10 * time.Second)
	for _, c := range []struct {
		name string
		lock func(context.Context) (*locker.Lease, error)
	}{
		{"Mutex", func(ctx context.Context) (*locker.Lease, error) { return m.Lock(ctx, lease) }},
		{"RLock", func(ctx context.Context) (*locker.Lease, error) { return rw.RLock(ctx, lease) }},
		{"Lock", func(ctx context.Context) (*locker.Lease, error) { return rw.Lock(ctx, lease) }},
		{"Acquire", func(ctx context.Context) (*locker.Lease, error) { return sem.Acquire(ctx, 1, lease) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			if _, err := srv.Do("CONFIG", "RESETSTAT"); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				l, err := c.lock(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if err := l.Unlock(ctx); err != nil {
					b.Fatal(err)
				}
			}
			calls, usec := scriptTime(b, srv, "evalsha")
			b.ReportMetric(calls/float64(b.N), "scripts/op")
			b.ReportMetric(usec/float64(b.N), "server-µs/op")
		})
	}
}
