package conformance

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// semStoreCases are what a Store's Semaphore needs of the driver's
// semaphores, in the order they run.
var semStoreCases = []testCase{
	{"NeverMoreThanItsPermits", testSemStoreBound},
	{"WaiterWokenByRelease", testSemStoreWaiterWoken},
	{"LostLeaseClosesDone", testSemStoreLostLease},
	{"AnotherNumberOfPermits", testSemStoreMismatch},
}

// semaphore returns the Semaphore of permits permits on key from st.
func semaphore(t *testing.T, st *locker.Store, key string, permits int, opts ...locker.MutexOption) *locker.Semaphore {
	t.Helper()
	sm, err := st.Semaphore(key, permits, opts...)
	require.NoError(t, err)
	return sm
}

// permitCounter is what a semaphore protects: it counts the permits in use
// at once, and checks the tokens: an acquisition that began after a hold
// ended must have another token than that hold's. (A single store gives
// every acquisition a new token, which the driver cases check; through a
// combinator, whose token is the highest of its members', two acquisitions
// that overlap may share one.)
type permitCounter struct {
	mu     sync.Mutex
	inUse  int
	most   int
	ended  map[uint64]time.Time // token -> when the last hold with it ended
	reused int
}

// use holds n permits with token for hold, for an acquisition that began
// at began.
func (c *permitCounter) use(n int, token uint64, began time.Time, hold time.Duration) {
	c.mu.Lock()
	c.inUse += n
	c.most = max(c.most, c.inUse)
	if end, ok := c.ended[token]; ok && end.Before(began) {
		c.reused++
	}
	c.mu.Unlock()
	time.Sleep(hold)
	c.mu.Lock()
	c.inUse -= n
	c.ended[token] = time.Now()
	c.mu.Unlock()
}

func testSemStoreBound(ctx context.Context, t *testing.T, s *suite) {
	const permits, workers, rounds = 3, 6, 4
	key := s.key(t, "")
	c := permitCounter{ended: make(map[uint64]time.Time)}
	var acquired atomic.Int32
	var wg sync.WaitGroup
	for i := range workers {
		sm := semaphore(t, s.store(ctx, t), key, permits)
		n := 1 + i%2 // small and large requests mixed
		wg.Go(func() {
			for range rounds {
				began := time.Now()
				l, err := sm.Acquire(ctx, n, locker.WithLease(s.long))
				if !assert.NoError(t, err, "Acquire(%d)", n) {
					return
				}
				acquired.Add(1)
				c.use(n, l.Token(), began, time.Millisecond)
				assert.NoError(t, l.Unlock(ctx))
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, workers*rounds, acquired.Load(), "acquisitions")
	assert.LessOrEqual(t, c.most, permits, "more permits in use than the semaphore has")
	assert.Zero(t, c.reused, "a token was handed out again after its hold ended")
}

func testSemStoreWaiterWoken(ctx context.Context, t *testing.T, s *suite) {
	key := s.key(t, "")
	holder := semaphore(t, s.store(ctx, t), key, 2)
	waiter := semaphore(t, s.store(ctx, t), key, 2)

	held, err := holder.Acquire(ctx, 2, locker.WithLease(s.long))
	require.NoError(t, err)
	w := startWaiter(t, "a waiting Acquire", func() (*locker.Lease, error) {
		return waiter.Acquire(ctx, 1, locker.WithLease(s.long))
	})
	time.Sleep(2 * s.unit)
	w.release()
	require.NoError(t, held.Unlock(ctx))
	// The holder's lease is s.long: a waiter that only retries when it
	// would end fails this.
	l := w.acquired(t, "a waiting Acquire", s.long/4)
	assert.Greater(t, l.Token(), held.Token(), "every acquisition's token rises")
	require.NoError(t, l.Unlock(ctx))

	// A bounded wait that runs out reports ErrNotAcquired.
	held, err = holder.Acquire(ctx, 2, locker.WithLease(s.long))
	require.NoError(t, err)
	_, err = waiter.TryAcquire(ctx, 1, locker.WithWait(2*s.unit))
	assert.ErrorIs(t, err, driver.ErrNotAcquired, "TryAcquire with a wait that runs out")
	require.NoError(t, held.Unlock(ctx))
}

func testSemStoreLostLease(ctx context.Context, t *testing.T, s *suite) {
	key := s.key(t, "")
	sm := semaphore(t, s.store(ctx, t), key, 1)
	other := semaphore(t, s.store(ctx, t), key, 1)
	l, err := sm.Acquire(ctx, 1, locker.WithLease(2*s.unit))
	require.NoError(t, err)
	select {
	case <-l.Done():
		assert.ErrorIs(t, l.Err(), locker.ErrLost)
	case <-time.After(s.expiryLimit(2 * s.unit)):
		t.Fatal("Done did not close when the permit's lease ran out")
	}
	var next *locker.Lease
	eventually(ctx, t, s.expiryLimit(2*s.unit), "another owner acquiring the permit after the loss", func() bool {
		next, err = other.TryAcquire(ctx, 1, locker.WithLease(s.long))
		return err == nil
	})
	err = l.Unlock(ctx)
	assert.ErrorIs(t, err, locker.ErrLost, "Unlock after the loss")
	_, err = sm.TryAcquire(ctx, 1)
	assert.ErrorIs(t, err, driver.ErrNotAcquired, "Unlock after the loss must not release the new holder")
	require.NoError(t, next.Unlock(ctx))
}

func testSemStoreMismatch(ctx context.Context, t *testing.T, s *suite) {
	key := s.key(t, "")
	st := s.store(ctx, t)
	l, err := semaphore(t, st, key, 3).Acquire(ctx, 2, locker.WithLease(s.long))
	require.NoError(t, err)
	_, err = semaphore(t, s.store(ctx, t), key, 4).TryAcquire(ctx, 1, locker.WithLease(s.long))
	assert.ErrorIs(t, err, driver.ErrInvalid, "a Semaphore of another number of permits while in use")
	_, err = semaphore(t, st, key, 3).TryAcquire(ctx, 4)
	assert.ErrorIs(t, err, driver.ErrInvalid, "more permits than the semaphore has")
	if state, err := semaphore(t, st, key, 3).Inspect(ctx); !errors.Is(err, errors.ErrUnsupported) {
		require.NoError(t, err)
		assert.Equal(t, 3, state.Limit)
		if assert.Len(t, state.Holders, 1, "the refused attempts took nothing") {
			assert.Equal(t, 2, state.Holders[0].Permits)
		}
	}
	require.NoError(t, l.Unlock(ctx))
}
