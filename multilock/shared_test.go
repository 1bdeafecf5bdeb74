package multilock_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/multilock"
)

// permits returns the view of holds of n of limit permits.
func permits(n, limit int) driver.Share {
	return driver.Share{Mode: driver.Permits, Limit: limit, Permits: n}
}

// TestSharedSemaphoreNeverMoreThanLimit: Mutexes of their own on a
// MultiLock's semaphore views, of one and of two permits, take and give
// back three permits from several goroutines at once; the permits held at
// once, counted by the holders, never pass three.
func TestSharedSemaphoreNeverMoreThanLimit(t *testing.T) {
	_, _, ml := memML(t, 3, combine.WithMemberTimeout(memberTimeout))
	one, two := quorumtest.View(t, ml, permits(1, 3)), quorumtest.View(t, ml, permits(2, 3))
	for _, owner := range []string{"a", "b", "c"} {
		require.True(t, quorumtest.Try(t, one, "sem", owner, 0).Acquired)
	}
	require.False(t, quorumtest.Try(t, one, "sem", "d", 0).Acquired, "three permits are held")
	for _, owner := range []string{"a", "b", "c"} {
		require.NoError(t, one.Unlock(context.Background(), "sem", owner))
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var mu sync.Mutex
	held, most := 0, 0
	// hold counts n permits in while it runs.
	hold := func(n int) {
		mu.Lock()
		held += n
		most = max(most, held)
		mu.Unlock()
		time.Sleep(time.Millisecond)
		mu.Lock()
		held -= n
		mu.Unlock()
	}
	var wg sync.WaitGroup
	for g := range 8 {
		view, n := one, 1
		if g%4 == 0 {
			view, n = two, 2
		}
		m, err := storetest.Of(t, view).Mutex("sem")
		require.NoError(t, err)
		wg.Go(func() {
			for range 15 {
				lease, err := m.Lock(ctx, locker.WithLease(10*time.Second))
				if !assert.NoError(t, err) {
					return
				}
				hold(n)
				assert.NoError(t, lease.Unlock(context.Background()))
			}
		})
	}
	wg.Wait()
	assert.LessOrEqual(t, most, 3, "more permits held at once than the semaphore has")
}

// TestSharedSemaphoreWaitsInOrder: a MultiLock's semaphore keeps its wait
// list on the gate, the member every attempt asks first, so nobody
// overtakes a waiter, and a waiter that leaves lets the others in.
func TestSharedSemaphoreWaitsInOrder(t *testing.T) {
	ctx := context.Background()
	stores, _, ml := memML(t, 3)
	big, small := quorumtest.View(t, ml, permits(2, 3)), quorumtest.View(t, ml, permits(1, 3))
	require.True(t, quorumtest.Try(t, big, "s", "H", 0).Acquired)
	require.False(t, quorumtest.Try(t, big, "s", "W", time.Minute).Acquired, "one permit is free, W needs two")
	assert.False(t, quorumtest.Try(t, small, "s", "S", 0).Acquired, "S does not overtake the waiter")

	refused := 0
	for _, m := range stores.Views(t, permits(1, 3)) {
		if g := quorumtest.Try(t, m, "s", "probe", 0); g.Acquired {
			require.NoError(t, m.Unlock(ctx, "s", "probe"))
		} else {
			refused++
		}
	}
	assert.Equal(t, 1, refused, "W waits on the gate alone")

	require.NoError(t, big.(driver.Dequeuer).Dequeue(ctx, "s", "W"))
	require.True(t, quorumtest.Try(t, small, "s", "S", 0).Acquired, "W left")
	require.NoError(t, small.Unlock(ctx, "s", "S"))

	require.False(t, quorumtest.Try(t, big, "s", "W", time.Minute).Acquired)
	require.NoError(t, big.Unlock(ctx, "s", "H"))
	assert.False(t, quorumtest.Try(t, small, "s", "S", 0).Acquired, "the permits are free, but W is first")
	require.True(t, quorumtest.Try(t, big, "s", "W", time.Minute).Acquired)
	assert.True(t, quorumtest.Try(t, small, "s", "S", 0).Acquired)
}

// TestSharedReadWrite: a MultiLock's readers share every member, its
// writer excludes them on every member, and a member that cannot share
// makes Share fail, naming it.
func TestSharedReadWrite(t *testing.T) {
	ctx := context.Background()
	stores, _, ml := memML(t, 2)
	read := quorumtest.View(t, ml, driver.Share{Mode: driver.Read})
	write := quorumtest.View(t, ml, driver.Share{Mode: driver.Write})
	require.True(t, quorumtest.Try(t, read, "k", "r1", 0).Acquired)
	require.True(t, quorumtest.Try(t, read, "k", "r2", 0).Acquired)
	require.False(t, quorumtest.Try(t, write, "k", "w", time.Minute).Acquired)
	assert.False(t, quorumtest.Try(t, read, "k", "r3", 0).Acquired, "a writer waits on every member")
	require.NoError(t, read.Unlock(ctx, "k", "r1"))
	require.NoError(t, read.Unlock(ctx, "k", "r2"))
	require.True(t, quorumtest.Try(t, write, "k", "w", time.Minute).Acquired)
	for i, m := range stores.Views(t, driver.Share{Mode: driver.Read}) {
		assert.Equal(t, "w", quorumtest.Inspect(t, m, "k").Owner, "store %d", i)
	}
	require.NoError(t, write.Unlock(ctx, "k", "w"))

	bare, err := multilock.New([]driver.Backend{stores.Store(0).Client(), quorumtest.Bare{Backend: stores.Store(1).Client()}})
	require.NoError(t, err)
	defer bare.Close()
	_, err = bare.(driver.Sharer).Share(permits(1, 1))
	require.ErrorIs(t, err, errors.ErrUnsupported)
	assert.ErrorContains(t, err, "member 2 (")
}
