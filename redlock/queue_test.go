package redlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
)

// queueMutexes returns a function that makes a Mutex on lock "k" of its
// own Store over its own RedLock of the members clients returns, new
// clients of the same stores, as in separate processes.
func queueMutexes(t *testing.T, clients func() []driver.Backend, opts ...combine.Option) func() *locker.Mutex {
	return func() *locker.Mutex {
		t.Helper()
		rl := newRL(t, clients(), opts...)
		_, ok := rl.(driver.Queuer)
		require.True(t, ok, "a RedLock whose members keep queues keeps one")
		m, err := newMutex(t, rl, "k")
		require.NoError(t, err)
		return m
	}
}

// TestAReleaseGoesToTheWaiterFirstInLine: a holder that releases and asks
// again at once, as a loop does, does not overtake the waiter: the line
// member granted the lock to the waiter, which takes it within a few
// milliseconds of the release (a waiter woken by its safety net would
// take half a second or more), and the holder gets it after the waiter.
func TestAReleaseGoesToTheWaiterFirstInLine(t *testing.T) {
	t.Run("memlocker", func(t *testing.T) {
		stores := quorumtest.NewMem(5)
		testFirstInLine(t, queueMutexes(t, func() []driver.Backend { return quorumtest.Backends(stores.Clients()) }))
	})
	t.Run("redis", func(t *testing.T) {
		stores := quorumtest.StartRedis(t, 5)
		testFirstInLine(t, queueMutexes(t, func() []driver.Backend { return stores.Clients(t) }, combine.WithRestartGuard(0)))
	})
}

func testFirstInLine(t *testing.T, open func() *locker.Mutex) {
	ctx := context.Background()
	holder := open()
	for run := range 5 {
		waiter := open()
		held, err := holder.Lock(ctx, locker.WithLease(time.Minute))
		require.NoError(t, err)
		took := make(chan time.Time, 1)
		go func() {
			l, err := waiter.Lock(ctx, locker.WithLease(time.Minute), locker.WithWait(10*time.Second))
			took <- time.Now()
			if assert.NoError(t, err, "run %d: the waiter", run) {
				time.Sleep(20 * time.Millisecond)
				assert.NoError(t, l.Unlock(ctx))
			}
		}()
		time.Sleep(100 * time.Millisecond) // the waiter is in line
		released := time.Now()
		require.NoError(t, held.Unlock(ctx))
		_, err = holder.TryLock(ctx, locker.WithLease(time.Minute))
		assert.ErrorIs(t, err, locker.ErrNotAcquired, "run %d: the releaser asking again at once must not take the lock from the waiter", run)
		again, err := holder.Lock(ctx, locker.WithLease(time.Minute), locker.WithWait(10*time.Second))
		require.NoError(t, err)
		heldAgain := time.Now()
		tookAt := <-took
		assert.Less(t, tookAt.Sub(released), 250*time.Millisecond, "run %d: the waiter's turn came with the release", run)
		assert.True(t, tookAt.Before(heldAgain), "run %d: the waiter held the lock before the releaser did again", run)
		require.NoError(t, again.Unlock(ctx))
	}
}

// TestAStaleHoldOnAMemberDoesNotBlockAWaiter: a RedLock needs a majority,
// with its line member or without it. After a contended wait, which makes
// the Mutex's next waiting attempts ask the line member first, another
// owner's hold on any one member, the line member included, costs a
// waiting Lock at most one refused attempt's wait, never the hold's lease.
func TestAStaleHoldOnAMemberDoesNotBlockAWaiter(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(3)
	open := queueMutexes(t, func() []driver.Backend { return quorumtest.Backends(stores.Clients()) })
	other, m := open(), open()
	for i := range stores.Len() {
		// A contended wait.
		held, err := other.Lock(ctx, locker.WithLease(time.Minute))
		require.NoError(t, err)
		released := make(chan struct{})
		go func() {
			defer close(released)
			time.Sleep(50 * time.Millisecond)
			assert.NoError(t, held.Unlock(ctx))
		}()
		l, err := m.Lock(ctx, locker.WithLease(time.Minute), locker.WithWait(10*time.Second))
		require.NoError(t, err)
		require.NoError(t, l.Unlock(ctx))
		<-released // every member, not just a quorum, is free

		// A stale hold on member i, for longer than the test.
		c := stores.Clients()[i]
		g, err := c.TryLock(ctx, driver.Request{Key: "k", Owner: "stale-" + locker.NewOwner(), TTL: time.Hour})
		require.NoError(t, err)
		require.True(t, g.Acquired)
		start := time.Now()
		l, err = m.Lock(ctx, locker.WithLease(time.Minute), locker.WithWait(10*time.Second))
		require.NoError(t, err, "member %d held by another owner", i)
		assert.Less(t, time.Since(start), 2500*time.Millisecond, "member %d held by another owner: the Lock took %v", i, time.Since(start))
		require.NoError(t, l.Unlock(ctx))
		_, err = c.ForceUnlock(ctx, "k")
		require.NoError(t, err)
	}
}
