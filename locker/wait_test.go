package locker_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// plainBackend hides every optional capability of the backend it wraps.
type plainBackend struct{ driver.Backend }

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

// noQueue is a driver with release notification but no wait queue:
// embedding the interfaces, not the client, passes only their methods.
type noQueue struct {
	driver.Backend
	driver.Notifier
}

func TestWaitersInOneProcessShareASubscription(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	held, err := newMutex(t, c, "k").Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)

	const waiters = 5
	var wg sync.WaitGroup
	for range waiters {
		m := newMutex(t, noQueue{c, c}, "k")
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

// A wait that runs out while an attempt is in flight gives the attempt
// the store's answer: the lock, if the store grants it, or ErrNotAcquired
// if it refuses, not the error of an attempt cut short. The caller's
// context still bounds the attempt.
func TestWaitBudgetLetsTheAttemptInFlightAnswer(t *testing.T) {
	ctx := context.Background()
	store := memlocker.NewStore()
	holder := newMutex(t, store.Client(), "k")
	for _, release := range []bool{true, false} {
		held, err := holder.Lock(ctx, locker.WithLease(time.Minute))
		require.NoError(t, err)
		g := newGate(store.Client())
		got := make(chan error, 1)
		go func() {
			l, err := newMutex(t, g, "k").Lock(ctx, locker.WithWait(100*time.Millisecond))
			if err == nil {
				err = l.Unlock(ctx)
			}
			got <- err
		}()
		<-g.held // the second attempt, after a refusal
		time.Sleep(150 * time.Millisecond)
		if release {
			require.NoError(t, held.Unlock(ctx))
		}
		close(g.open)
		err = <-got
		if release {
			require.NoError(t, err, "the attempt in flight when the wait ran out found the lock free")
			continue
		}
		require.ErrorIs(t, err, locker.ErrNotAcquired, "the attempt in flight was refused")
		assert.NotErrorIs(t, err, context.DeadlineExceeded, "the wait budget is not the caller's deadline")
		require.NoError(t, held.Unlock(ctx))
	}

	// A wait that ran out during its first attempt does not start
	// watching the lock once the attempt is refused.
	held, err := holder.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	c := store.Client()
	c.SetLatency(100 * time.Millisecond)
	_, err = newMutex(t, c, "k").Lock(ctx, locker.WithWait(10*time.Millisecond))
	require.ErrorIs(t, err, locker.ErrNotAcquired)
	assert.Zero(t, c.Calls("watch")+c.Calls("watchturn"), "a wait that is over subscribes to nothing")
	c.SetLatency(0)
	waitCleanups()

	g := newGate(store.Client())
	cctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	_, err = newMutex(t, g, "k").Lock(cctx, locker.WithWait(100*time.Millisecond))
	require.Error(t, err)
	assert.True(t, locker.IsUnknown(err), "the caller's deadline cut the attempt short: %v", err)
	close(g.open)
	waitCleanups()
	require.NoError(t, held.Unlock(ctx))
}

// gate is a driver without notification whose TryLocks after the first
// wait for open (or their context) before they reach the store; held
// closes when the second one is waiting.
type gate struct {
	driver.Backend
	calls atomic.Int32
	held  chan struct{}
	open  chan struct{}
}

func newGate(b driver.Backend) *gate {
	return &gate{Backend: b, held: make(chan struct{}), open: make(chan struct{})}
}

func (g *gate) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	if n := g.calls.Add(1); n > 1 {
		if n == 2 {
			close(g.held)
		}
		select {
		case <-g.open:
		case <-ctx.Done():
			return driver.Grant{}, ctx.Err()
		}
	}
	return g.Backend.TryLock(ctx, r)
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
// does after a slow attempt. It passes on inspection and nothing else.
type shortValidity struct {
	c        *memlocker.Client
	validity time.Duration
}

func (s shortValidity) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	g, err := s.c.TryLock(ctx, r)
	g.Validity = s.validity
	return g, err
}
func (s shortValidity) Unlock(ctx context.Context, key, owner string) error {
	return s.c.Unlock(ctx, key, owner)
}
func (s shortValidity) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	return s.c.Expire(ctx, key, owner, ttl)
}
func (s shortValidity) Inspect(ctx context.Context, key string) (driver.State, error) {
	return s.c.Inspect(ctx, key)
}
func (s shortValidity) Close() error { return s.c.Close() }

func TestGrantValiditySetsTheDeadline(t *testing.T) {
	ctx := context.Background()
	m := newMutex(t, shortValidity{memlocker.New(), 100 * time.Millisecond}, "k")
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

// noWatch passes on a mem client's locking and inspection, and neither its
// notification nor its queue.
type noWatch struct{ c *memlocker.Client }

func (n noWatch) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	return n.c.TryLock(ctx, r)
}
func (n noWatch) Unlock(ctx context.Context, key, owner string) error {
	return n.c.Unlock(ctx, key, owner)
}
func (n noWatch) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	return n.c.Expire(ctx, key, owner, ttl)
}
func (n noWatch) Inspect(ctx context.Context, key string) (driver.State, error) {
	return n.c.Inspect(ctx, key)
}
func (n noWatch) Close() error { return n.c.Close() }

// TestAWaiterPollsAStoreWithoutNotification: the Store finds capabilities
// by type assertion on its driver, and a waiter on a driver that is not a
// Notifier polls.
func TestAWaiterPollsAStoreWithoutNotification(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	b := noWatch{c}
	held, err := newMutex(t, b, "k").Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)

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
	assert.Zero(t, c.Calls("watch"), "the waiter must poll a store that cannot notify")
	assert.Zero(t, c.Calls("trylockqueued"), "nor may it queue on a store without a queue")
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
