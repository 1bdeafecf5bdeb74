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
)

func newRWMutex(t testing.TB, b driver.Backend, name string, opts ...locker.MutexOption) *locker.RWMutex {
	t.Helper()
	rw, err := storetest.Of(t, b).RWMutex(name, opts...)
	require.NoError(t, err)
	return rw
}

func TestReadersShareAndAWriterExcludesThem(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	rw := newRWMutex(t, c, "k")
	r1, err := rw.RLock(ctx)
	require.NoError(t, err)
	r2, err := rw.TryRLock(ctx)
	require.NoError(t, err, "a second reader of the same process shares the lock")
	assert.NotEqual(t, r1.Owner(), r2.Owner(), "each acquisition has an owner of its own")

	_, err = rw.TryLock(ctx)
	require.ErrorIs(t, err, locker.ErrNotAcquired, "readers keep the writer out")
	other := newRWMutex(t, c.Store().Client(), "k")
	_, err = other.TryLock(ctx)
	require.ErrorIs(t, err, locker.ErrNotAcquired, "also the writer of another client")

	require.NoError(t, r1.Unlock(ctx))
	require.NoError(t, r2.Unlock(ctx))
	w, err := other.TryLock(ctx)
	require.NoError(t, err)
	_, err = rw.TryRLock(ctx)
	require.ErrorIs(t, err, locker.ErrNotAcquired, "a writer keeps readers out")
	require.NoError(t, w.Unlock(ctx))
}

func TestAReadWriteLockIsNotTheMutexOfItsName(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	m := newMutex(t, c, "k")
	l, err := m.TryLock(ctx)
	require.NoError(t, err)
	defer func() { require.NoError(t, l.Unlock(ctx)) }()
	w, err := newRWMutex(t, c, "k").TryLock(ctx)
	require.NoError(t, err, "the mutex k and the read-write lock k are two locks")
	require.NoError(t, w.Unlock(ctx))
}

func TestAWaitingWriterHoldsOffNewReaders(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	rw := newRWMutex(t, c, "k")
	r, err := rw.RLock(ctx)
	require.NoError(t, err)

	got := make(chan *locker.Lease)
	go func() {
		w, err := rw.Lock(ctx, locker.WithWait(10*time.Second))
		assert.NoError(t, err)
		got <- w
	}()
	// Once the writer waits, a new reader is turned away.
	require.Eventually(t, func() bool {
		l, err := rw.TryRLock(ctx)
		if err == nil {
			require.NoError(t, l.Unlock(ctx))
			return false
		}
		return errors.Is(err, locker.ErrNotAcquired)
	}, 5*time.Second, 10*time.Millisecond)
	require.NoError(t, r.Unlock(ctx))
	w := <-got
	require.NotNil(t, w)
	require.NoError(t, w.Unlock(ctx))
}

func TestDowngradeLeavesNoGapAndKeepsTheToken(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	rw := newRWMutex(t, c, "k")
	rival := newRWMutex(t, c.Store().Client(), "k")
	w, err := rw.Lock(ctx)
	require.NoError(t, err)
	r, err := rw.Downgrade(ctx, w)
	require.NoError(t, err)
	assert.Equal(t, w.Token(), r.Token(), "the read hold carries the write's token")
	assert.ErrorIs(t, w.Err(), locker.ErrReleased, "the write hold is released")

	_, err = rival.TryLock(ctx)
	require.ErrorIs(t, err, locker.ErrNotAcquired, "the read hold keeps writers out")
	other, err := rival.TryRLock(ctx)
	require.NoError(t, err, "and lets readers in")
	require.NoError(t, other.Unlock(ctx))
	require.NoError(t, r.Unlock(ctx))

	w2, err := rival.TryLock(ctx)
	require.NoError(t, err)
	assert.Greater(t, w2.Token(), w.Token(), "the next write gets a higher token")
	_, err = rw.Downgrade(ctx, w2)
	require.ErrorIs(t, err, locker.ErrInvalid, "another RWMutex's lease")
	require.NoError(t, w2.Unlock(ctx))
}

func TestRWMutexOnAStoreWithoutSharedLocks(t *testing.T) {
	s := locker.NewStore(lockOnly{memlocker.New()})
	defer s.Close()
	_, err := s.RWMutex("k")
	require.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = s.Semaphore("k", 3)
	require.ErrorIs(t, err, errors.ErrUnsupported)
}

func TestReadersAndWritersOfOneProcessKeepTheirPromise(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	rw := newRWMutex(t, c, "k")
	var readers, writers, maxReaders atomic.Int32
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				if i == 0 {
					w, err := rw.Lock(ctx, locker.WithLease(time.Minute))
					if !assert.NoError(t, err) {
						return
					}
					assert.Equal(t, int32(1), writers.Add(1))
					assert.Zero(t, readers.Load(), "no reader beside the writer")
					time.Sleep(time.Millisecond)
					writers.Add(-1)
					assert.NoError(t, w.Unlock(ctx))
					continue
				}
				r, err := rw.RLock(ctx, locker.WithLease(time.Minute))
				if !assert.NoError(t, err) {
					return
				}
				n := readers.Add(1)
				for m := maxReaders.Load(); n > m && !maxReaders.CompareAndSwap(m, n); m = maxReaders.Load() {
				}
				assert.Zero(t, writers.Load(), "no writer beside a reader")
				time.Sleep(time.Millisecond)
				readers.Add(-1)
				assert.NoError(t, r.Unlock(ctx))
			}
		}()
	}
	wg.Wait()
	assert.Greater(t, maxReaders.Load(), int32(1), "readers overlapped")
}

func TestStoreCloseEndsSharedLeases(t *testing.T) {
	ctx := context.Background()
	s := locker.NewStore(memlocker.New())
	rw, err := s.RWMutex("k")
	require.NoError(t, err)
	r, err := rw.RLock(ctx)
	require.NoError(t, err)
	sem, err := s.Semaphore("s", 2)
	require.NoError(t, err)
	p, err := sem.Acquire(ctx, 2)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	for _, l := range []*locker.Lease{r, p} {
		<-l.Done()
		assert.ErrorIs(t, l.Err(), locker.ErrLost)
		assert.ErrorIs(t, l.Err(), locker.ErrClosed)
	}
	_, err = rw.RLock(ctx)
	assert.ErrorIs(t, err, locker.ErrClosed)
	_, err = sem.Acquire(ctx, 1)
	assert.ErrorIs(t, err, locker.ErrClosed)
}
