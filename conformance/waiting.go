package conformance

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// resource is what a lock protects. It counts holders inside it at once
// and rejects a token that is not higher than the last one it saw, so it
// catches both overlapping holders and stale ones.
type resource struct {
	inside   atomic.Int32
	overlaps atomic.Int32

	mu        sync.Mutex
	lastToken uint64
	stale     int
}

func (r *resource) use(token uint64, hold time.Duration) {
	if r.inside.Add(1) > 1 {
		r.overlaps.Add(1)
	}
	r.mu.Lock()
	if token <= r.lastToken {
		r.stale++
	} else {
		r.lastToken = token
	}
	r.mu.Unlock()
	time.Sleep(hold)
	r.inside.Add(-1)
}

func testMutualExclusion(ctx context.Context, t *testing.T, s *suite) {
	const workers, rounds = 6, 5
	key := s.key(t, "")
	var r resource
	var acquired atomic.Int32
	var wg sync.WaitGroup
	for range workers {
		m := s.mutex(t, s.store(ctx, t), key)
		wg.Go(func() {
			for range rounds {
				l, err := m.Lock(ctx, locker.WithLease(s.long))
				if !assert.NoError(t, err, "Lock") {
					return
				}
				acquired.Add(1)
				r.use(l.Token(), time.Millisecond)
				assert.NoError(t, l.Unlock(ctx), "Unlock")
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, workers*rounds, acquired.Load(), "acquisitions")
	assert.Zero(t, r.overlaps.Load(), "holders overlapped")
	assert.Zero(t, r.stale, "tokens did not rise from holder to holder")
}

func testWaitThenAcquire(ctx context.Context, t *testing.T, s *suite) {
	key := s.key(t, "")
	holder := s.mutex(t, s.store(ctx, t), key)
	waiter := s.mutex(t, s.store(ctx, t), key)

	held, err := holder.Lock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	var released atomic.Bool
	got := make(chan *locker.Lease, 1)
	go func() {
		l, err := waiter.Lock(ctx, locker.WithLease(s.long))
		assert.NoError(t, err, "waiter")
		assert.True(t, released.Load(), "the waiter acquired before the release")
		got <- l
	}()
	time.Sleep(2 * s.unit)
	released.Store(true)
	require.NoError(t, held.Unlock(ctx))
	// The holder's lease is s.long: a waiter that only retries when the lease
	// would end fails this.
	select {
	case l := <-got:
		require.NotNil(t, l)
		assert.Greater(t, l.Token(), held.Token())
		require.NoError(t, l.Unlock(ctx))
	case <-time.After(s.long / 4):
		t.Fatalf("the waiter did not acquire within %v of the release", s.long/4)
	}

	// A bounded wait that runs out reports ErrNotAcquired.
	held, err = holder.Lock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	_, err = waiter.TryLock(ctx, locker.WithWait(2*s.unit))
	assert.ErrorIs(t, err, driver.ErrNotAcquired, "TryLock with a wait that runs out")
	require.NoError(t, held.Unlock(ctx))
}

func testCancelWhileWaiting(ctx context.Context, t *testing.T, s *suite) {
	key := s.key(t, "")
	b, st := s.client(ctx, t)
	holder := s.mutex(t, st, key)
	waiter := s.mutex(t, s.store(ctx, t), key)

	held, err := holder.Lock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := waiter.Lock(wctx)
		done <- err
	}()
	time.Sleep(2 * s.unit)
	cancel()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, driver.ErrNotAcquired)
		assert.ErrorIs(t, err, context.Canceled)
	case <-time.After(caseTimeout / 3):
		t.Fatal("cancelling the context did not end the wait")
	}
	require.NoError(t, held.Unlock(ctx))
	assert.False(t, isHeld(ctx, t, b, key), "the cancelled waiter left a hold behind")

	// The waiter's Mutex is usable again.
	l, err := waiter.TryLock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	require.NoError(t, l.Unlock(ctx))

	_, err = waiter.Lock(wctx)
	assert.ErrorIs(t, err, context.Canceled, "Lock with a cancelled context")
	assert.False(t, isHeld(ctx, t, b, key), "Lock with a cancelled context left a hold behind")
}
