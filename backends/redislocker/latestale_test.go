package redislocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/tcpproxy"
	"github.com/distlock/distlock/locker"
)

// lateHold takes one owner's holds of a lock, again and again;
// rival tries a hold that a live one must keep out.
type lateHold struct {
	take  func(context.Context) (*locker.Lease, error)
	rival func(context.Context) error
}

// lateHolds are the locks whose holds one owner takes again and again: a
// Mutex's, an RWMutex's write holds (one owner per RWMutex), the read
// holds it downgrades to (the writer's owner), and a Semaphore's holds
// under WithOwner.
var lateHolds = []struct {
	name  string
	setup func(t *testing.T, mine, theirs *locker.Store) lateHold
}{
	{"mutex", func(t *testing.T, mine, theirs *locker.Store) lateHold {
		m, err := mine.Mutex("late-release")
		require.NoError(t, err)
		rival, err := theirs.Mutex("late-release")
		require.NoError(t, err)
		return lateHold{
			take:  func(ctx context.Context) (*locker.Lease, error) { return m.Lock(ctx, minute) },
			rival: func(ctx context.Context) error { return tryOnce(rival.TryLock(ctx, minute)) },
		}
	}},
	{"write", func(t *testing.T, mine, theirs *locker.Store) lateHold {
		rw, other := rwMutex(t, mine, "late-write"), rwMutex(t, theirs, "late-write")
		return lateHold{
			take:  func(ctx context.Context) (*locker.Lease, error) { return rw.Lock(ctx, minute) },
			rival: func(ctx context.Context) error { return tryOnce(other.TryLock(ctx, minute)) },
		}
	}},
	{"downgraded read", func(t *testing.T, mine, theirs *locker.Store) lateHold {
		rw, other := rwMutex(t, mine, "late-read"), rwMutex(t, theirs, "late-read")
		take := func(ctx context.Context) (*locker.Lease, error) {
			w, err := rw.Lock(ctx, minute)
			if err != nil {
				return nil, err
			}
			return rw.Downgrade(ctx, w, minute)
		}
		return lateHold{take: take, rival: func(ctx context.Context) error { return tryOnce(other.TryLock(ctx, minute)) }}
	}},
	{"semaphore", func(t *testing.T, mine, theirs *locker.Store) lateHold {
		sm, err := mine.Semaphore("late-permits", 1, locker.WithOwner(locker.NewOwner()))
		require.NoError(t, err)
		other, err := theirs.Semaphore("late-permits", 1)
		require.NoError(t, err)
		return lateHold{
			take:  func(ctx context.Context) (*locker.Lease, error) { return sm.Acquire(ctx, 1, minute) },
			rival: func(ctx context.Context) error { return tryOnce(other.TryAcquire(ctx, 1, minute)) },
		}
	}},
}

// minute is the lease of every hold here.
var minute = locker.WithLease(time.Minute)

func rwMutex(t *testing.T, s *locker.Store, name string) *locker.RWMutex {
	t.Helper()
	rw, err := s.RWMutex(name)
	require.NoError(t, err)
	return rw
}

// tryOnce is the error of an attempt, whose Lease it releases.
func tryOnce(l *locker.Lease, err error) error {
	if err == nil {
		return l.Unlock(context.Background())
	}
	return err
}

// TestALateReleaseDropsNoLaterHold: an Unlock whose request is held up in
// the network (the client gave up on it and released again on a new
// connection) reaches the server after the same owner has locked again.
// It must not release that later hold: another owner must still be
// refused.
func TestALateReleaseDropsNoLaterHold(t *testing.T) {
	srv := redistest.Start(t)
	for _, tc := range lateHolds {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			proxy, err := tcpproxy.Start(srv.Addr())
			require.NoError(t, err)
			defer proxy.Close()
			client := redis.NewClient(&redis.Options{Addr: proxy.Addr(), ContextTimeoutEnabled: true})
			b, err := redislocker.New(client, redislocker.WithOwnedClient())
			require.NoError(t, err)
			mine := locker.NewStore(b)
			defer mine.Close()
			theirs := locker.NewStore(newBackend(t, srv.Addr()))
			defer theirs.Close()
			h := tc.setup(t, mine, theirs)

			l, err := h.take(ctx)
			require.NoError(t, err)
			proxy.StallOpenRequests()
			uctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			err = l.Unlock(uctx)
			cancel()
			require.True(t, locker.IsUnknown(err), "the release's request is held: %v", err)

			// The hold is released again on a new connection (in the
			// background, or by the next attempt, which gives back the
			// stale hold it finds) before the owner holds the lock again.
			later, err := h.take(ctx)
			require.NoError(t, err)
			defer func() { _ = later.Unlock(ctx) }()
			proxy.Heal()
			// The held release reaches the server now; wait until its
			// connection is gone, so that it has run.
			time.Sleep(200 * time.Millisecond)

			assert.ErrorIs(t, h.rival(ctx), locker.ErrNotAcquired, "the late release dropped the later hold")
			require.NoError(t, later.Err(), "the later hold is live")
		})
	}
}
