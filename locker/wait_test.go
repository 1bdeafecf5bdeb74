package locker_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/locker"
)

// plainBackend hides every optional capability of the backend it wraps.
type plainBackend struct{ locker.Backend }

func TestWaitersWithoutNotificationPoll(t *testing.T) {
	ctx := context.Background()
	store := memlocker.NewStore()
	holder := newMutex(t, plainBackend{store.Client()}, "k")
	waiter := newMutex(t, plainBackend{store.Client()}, "k")
	held, err := holder.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	got := make(chan error, 1)
	go func() {
		l, err := waiter.Lock(ctx)
		if err == nil {
			err = l.Unlock(ctx)
		}
		got <- err
	}()
	time.Sleep(100 * time.Millisecond)
	require.NoError(t, held.Unlock(ctx))
	select {
	case err := <-got:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("a polling waiter did not acquire after the release")
	}
}

// noQueue is a backend with release notification but no wait queue.
type noQueue struct{ *memlocker.Client }

func (noQueue) Supports(c locker.Capability) bool { return c != locker.CapQueue }

func TestWaitersInOneProcessShareASubscription(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	held, err := newMutex(t, c, "k").Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)

	const waiters = 5
	var wg sync.WaitGroup
	for range waiters {
		m := newMutex(t, noQueue{c}, "k")
		wg.Go(func() {
			l, err := m.Lock(ctx, locker.WithLease(time.Minute))
			if assert.NoError(t, err) {
				assert.NoError(t, l.Unlock(ctx))
			}
		})
	}
	// Each waiter makes an attempt, and the one that starts the shared
	// subscription a second one after it.
	require.Eventually(t, func() bool { return c.Calls("trylock") >= 2+waiters }, 5*time.Second, 5*time.Millisecond,
		"every waiter made its attempts")
	assert.Equal(t, 1, c.Calls("watch"), "waiters on one lock must share one subscription")
	require.NoError(t, held.Unlock(ctx))
	wg.Wait()
}

func TestWaitBudgetEndsTheWait(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	held, err := newMutex(t, c, "k").Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	_, err = newMutex(t, c, "k").Lock(ctx, locker.WithWait(100*time.Millisecond))
	require.ErrorIs(t, err, locker.ErrNotAcquired)
	assert.NotErrorIs(t, err, context.DeadlineExceeded, "the wait budget is not the caller's deadline")
	require.NoError(t, held.Unlock(ctx))
}

func TestZeroWaitIsOneAttempt(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	m := newMutex(t, c, "k")
	for _, lock := range []func(context.Context, ...locker.LockOption) (*locker.Lease, error){m.Lock, m.TryLock} {
		l, err := lock(ctx, locker.WithWait(0))
		require.NoError(t, err, "a zero wait on a free lock takes it")
		_, err = newMutex(t, c, "k").Lock(ctx, locker.WithWait(0))
		require.ErrorIs(t, err, locker.ErrNotAcquired, "a zero wait on a held lock fails at once")
		require.NoError(t, l.Unlock(ctx))
	}
}

// shortValidity reports a validity shorter than the lease, as a RedLock
// does after a slow attempt. It has no wait queue: its queued attempts
// would bypass its TryLock.
type shortValidity struct {
	*locker.KeyLock
	validity time.Duration
}

func (shortValidity) Supports(c locker.Capability) bool { return c != locker.CapQueue }

func (s shortValidity) TryLock(ctx context.Context, owner string, ttl time.Duration) (locker.Grant, error) {
	g, err := s.KeyLock.TryLock(ctx, owner, ttl)
	g.Validity = s.validity
	return g, err
}

func TestGrantValiditySetsTheDeadline(t *testing.T) {
	ctx := context.Background()
	k, err := locker.Key(memlocker.New(), "k")
	require.NoError(t, err)
	m, err := locker.NewMutex(shortValidity{k, 100 * time.Millisecond})
	require.NoError(t, err)
	start := time.Now()
	l, err := m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	assert.WithinDuration(t, start.Add(100*time.Millisecond), l.Deadline(), 50*time.Millisecond)
	select {
	case <-l.Done():
		assert.ErrorIs(t, l.Err(), locker.ErrLost)
	case <-time.After(10 * time.Second):
		t.Fatal("Done did not close when the validity ran out")
	}
	// The store still held the lock, and Unlock deletes it, but the lease
	// had ended: the answer is ErrLost.
	require.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)
	held, err := m.IsLocked(ctx)
	require.NoError(t, err)
	assert.False(t, held, "Unlock deletes what is left of a lost lease")
}

// reportsNoWatch has a Watch method that it reports as unavailable, as a
// combinator over members without notification does.
type reportsNoWatch struct{ *memlocker.Client }

func (reportsNoWatch) Supports(c locker.Capability) bool { return c != locker.CapWatch }

func TestCapabilityReporterHasTheLastWord(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	b := reportsNoWatch{c}
	held, err := newMutex(t, b, "k").Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	k, err := locker.Key(b, "k")
	require.NoError(t, err)
	assert.False(t, locker.Supports(k, locker.CapWatch))
	assert.True(t, locker.Supports(k, locker.CapInspect))

	got := make(chan error, 1)
	go func() {
		l, err := newMutex(t, b, "k").Lock(ctx)
		if err == nil {
			err = l.Unlock(ctx)
		}
		got <- err
	}()
	time.Sleep(50 * time.Millisecond)
	require.NoError(t, held.Unlock(ctx))
	require.NoError(t, <-got)
	assert.Zero(t, c.Calls("watch"), "the waiter must poll rather than call a Watch reported unavailable")
}

func TestSubscriptionOutlivesItsLastWaiterBriefly(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	held, err := newMutex(t, c, "k").Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	defer func() { require.NoError(t, held.Unlock(ctx)) }()

	m := newMutex(t, c, "k")
	waitBriefly := func() {
		t.Helper()
		_, err := m.Lock(ctx, locker.WithWait(20*time.Millisecond))
		require.ErrorIs(t, err, locker.ErrNotAcquired)
	}
	waitBriefly()
	waitBriefly() // at once: the turn's watch is still there
	assert.Equal(t, 1, c.Calls("watchturn"), "a wait right after another must reuse its subscription")
	// The holder's attempt, the first wait's two (before and after it
	// subscribed), and one for the second wait.
	assert.Equal(t, 4, c.Calls("trylockqueued"),
		"a waiter that finds its subscription still active needs no second attempt")
	time.Sleep(time.Second) // well past the linger
	waitBriefly()
	assert.Equal(t, 2, c.Calls("watchturn"), "a subscription nobody used for a while must have stopped")
}
