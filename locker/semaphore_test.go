package locker_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/redlock"
)

func newSemaphore(t testing.TB, b driver.Backend, name string, permits int, opts ...locker.MutexOption) *locker.Semaphore {
	t.Helper()
	sem, err := storetest.Of(t, b).Semaphore(name, permits, opts...)
	require.NoError(t, err)
	return sem
}

func TestASemaphoreCountsPermits(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	sem := newSemaphore(t, c, "k", 3)
	assert.Equal(t, 3, sem.Permits())
	two, err := sem.TryAcquire(ctx, 2)
	require.NoError(t, err)
	_, err = sem.TryAcquire(ctx, 2)
	require.ErrorIs(t, err, locker.ErrNotAcquired, "one permit is left")
	one, err := sem.TryAcquire(ctx, 1)
	require.NoError(t, err)
	assert.Greater(t, one.Token(), two.Token(), "every acquisition gets a higher token")

	st, err := sem.Inspect(ctx)
	require.NoError(t, err)
	assert.True(t, st.Held)
	assert.Equal(t, 3, st.Limit)
	require.Len(t, st.Holders, 2)
	permits := 0
	for _, h := range st.Holders {
		permits += h.Permits
		assert.Equal(t, 1, h.Holds)
		assert.Positive(t, h.Remaining)
		assert.NotEmpty(t, h.Label, "holders carry their labels")
	}
	assert.Equal(t, 3, permits)

	require.NoError(t, two.Unlock(ctx))
	again, err := sem.TryAcquire(ctx, 2)
	require.NoError(t, err, "the released permits are free")
	require.NoError(t, again.Unlock(ctx))
	require.NoError(t, one.Unlock(ctx))
}

func TestSemaphoreBadInput(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	s := storetest.Of(t, c)
	for _, n := range []int{0, -1, driver.MaxPermits + 1} {
		_, err := s.Semaphore("k", n)
		assert.ErrorIs(t, err, locker.ErrInvalid, "%d permits", n)
	}
	sem := newSemaphore(t, c, "k", 2)
	for _, n := range []int{0, -1, 3} {
		_, err := sem.TryAcquire(ctx, n)
		assert.ErrorIs(t, err, locker.ErrInvalid, "acquiring %d of 2", n)
	}
	held, err := sem.TryAcquire(ctx, 1)
	require.NoError(t, err)
	_, err = newSemaphore(t, c, "k", 5).TryAcquire(ctx, 1)
	assert.ErrorIs(t, err, locker.ErrInvalid, "another number of permits while in use")
	st, err := sem.Inspect(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, st.Limit, "the refused attempt changed nothing")
	require.NoError(t, held.Unlock(ctx))
}

func TestASemaphoreNeverHasMoreHoldersThanPermits(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	const permits = 3
	var inside, most atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem := newSemaphore(t, c.Store().Client(), "k", permits)
			for range 15 {
				l, err := sem.Acquire(ctx, 1, locker.WithLease(time.Minute))
				if !assert.NoError(t, err) {
					return
				}
				n := inside.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(time.Millisecond)
				inside.Add(-1)
				assert.NoError(t, l.Unlock(ctx))
			}
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, most.Load(), int32(permits))
	assert.Greater(t, most.Load(), int32(1), "permits were held together")
}

func TestAWaitingLargeRequestIsNotOvertaken(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	sem := newSemaphore(t, c, "k", 2)
	small, err := sem.TryAcquire(ctx, 1)
	require.NoError(t, err)

	got := make(chan *locker.Lease)
	go func() {
		l, err := sem.Acquire(ctx, 2, locker.WithWait(10*time.Second))
		assert.NoError(t, err)
		got <- l
	}()
	// Once the large request waits, a small one is not let past it,
	// although a permit is free.
	require.Eventually(t, func() bool {
		l, err := sem.TryAcquire(ctx, 1)
		if err == nil {
			require.NoError(t, l.Unlock(ctx))
			return false
		}
		return errors.Is(err, locker.ErrNotAcquired)
	}, 5*time.Second, 10*time.Millisecond)
	require.NoError(t, small.Unlock(ctx))
	large := <-got
	require.NotNil(t, large)
	require.NoError(t, large.Unlock(ctx))
}

func TestASemaphoreOnARedLockTakesWhatAMajorityBounds(t *testing.T) {
	ctx := context.Background()
	members := []driver.Backend{memlocker.New(), memlocker.New(), memlocker.New()}
	rl, err := redlock.New(members)
	require.NoError(t, err)
	sem := newSemaphore(t, rl, "k", 3)
	_, err = sem.TryAcquire(ctx, 1)
	require.ErrorIs(t, err, locker.ErrInvalid, "holds of 1 of 3 would let a majority admit more than 3")
	l, err := sem.TryAcquire(ctx, 2)
	require.NoError(t, err, "holds of 2 of 3: one holder per member, so one in all")
	st, err := sem.Inspect(ctx)
	require.NoError(t, err)
	require.Len(t, st.Holders, 1)
	assert.Equal(t, 2, st.Holders[0].Permits)
	assert.Equal(t, 3, st.Limit)
	require.NoError(t, l.Unlock(ctx))
	broke, err := sem.ForceUnlock(ctx)
	require.NoError(t, err)
	assert.False(t, broke)
}
