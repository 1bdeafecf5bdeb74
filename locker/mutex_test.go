package locker_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

func newMutex(t testing.TB, b driver.Backend, name string, opts ...locker.MutexOption) *locker.Mutex {
	t.Helper()
	m, err := storetest.Of(t, b).Mutex(name, opts...)
	require.NoError(t, err)
	return m
}

// telMutex is newMutex on a Store that reports through tel.
func telMutex(t testing.TB, b driver.Backend, name string, tel *locker.Telemetry, opts ...locker.MutexOption) *locker.Mutex {
	t.Helper()
	m, err := storetest.Of(t, b, locker.WithTelemetry(tel)).Mutex(name, opts...)
	require.NoError(t, err)
	return m
}

// waitCleanups waits for the background cleanups of every test Store.
func waitCleanups() {
	for _, s := range storetest.Live() {
		s.WaitCleanups()
	}
}

func TestGoroutinesSharingAMutexExcludeEachOther(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	m := newMutex(t, c, "shared")

	first, err := m.TryLock(ctx)
	require.NoError(t, err)
	_, err = m.TryLock(ctx)
	require.ErrorIs(t, err, locker.ErrNotAcquired, "a second hold of one Mutex must not re-enter")
	tries := c.Calls("trylock")

	got := make(chan *locker.Lease)
	go func() {
		l, err := m.Lock(ctx)
		assert.NoError(t, err)
		got <- l
	}()
	select {
	case <-got:
		t.Fatal("a second goroutine took the Mutex while it was held")
	case <-time.After(50 * time.Millisecond):
	}
	assert.Equal(t, tries, c.Calls("trylock"), "goroutines of one Mutex wait locally, without calls to the store")
	require.NoError(t, first.Unlock(ctx))
	second := <-got
	assert.Greater(t, second.Token(), first.Token())
	require.NoError(t, second.Unlock(ctx))
}

func TestContextBoundsTheWaitNotTheLock(t *testing.T) {
	c := memlocker.New()
	m := newMutex(t, c, "k", locker.WithWatchdogLease(time.Second))
	ctx, cancel := context.WithCancel(context.Background())
	l, err := m.Lock(ctx)
	require.NoError(t, err)
	cancel()
	time.Sleep(1500 * time.Millisecond)
	select {
	case <-l.Done():
		t.Fatalf("cancelling the Lock context ended the hold: %v", l.Err())
	default:
	}
	held, err := m.IsLocked(context.Background())
	require.NoError(t, err)
	assert.True(t, held)
	require.NoError(t, l.Unlock(context.Background()))
}

func TestAttemptWithLostReplyIsReleased(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	m := newMutex(t, c, "k")
	c.TimeoutNext(1)
	_, err := m.TryLock(ctx)
	require.ErrorIs(t, err, memlocker.ErrTimeout)
	assert.NotErrorIs(t, err, locker.ErrNotAcquired, "an unknown outcome is not a refusal")
	assert.Equal(t, 1, c.Calls("unlock"), "the Mutex must release a lock whose reply was lost")
	held, err := m.IsLocked(ctx)
	require.NoError(t, err)
	assert.False(t, held, "the lock taken by the lost attempt must be released")

	l, err := m.TryLock(ctx)
	require.NoError(t, err, "the Mutex is usable after a failed attempt")
	require.NoError(t, l.Unlock(ctx))
}

func TestSharedOwnerLeavesUnknownAttemptToExpire(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	owner := locker.NewOwner()
	outer, err := newMutex(t, c, "k", locker.WithOwner(owner)).TryLock(ctx)
	require.NoError(t, err)
	c.TimeoutNext(1)
	_, err = newMutex(t, c, "k", locker.WithOwner(owner)).TryLock(ctx, locker.WithLease(time.Second))
	require.ErrorIs(t, err, memlocker.ErrTimeout)
	// Releasing could have dropped the outer hold instead of the lost one.
	assert.Zero(t, c.Calls("unlock"))
	require.NoError(t, outer.Unlock(ctx))
}

func TestWatchdogBatchesRenewals(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	const locks = 200
	leases := make([]*locker.Lease, locks)
	for i := range leases {
		m := newMutex(t, c, fmt.Sprintf("k%d", i), locker.WithWatchdogLease(time.Second))
		l, err := m.Lock(ctx)
		require.NoError(t, err)
		leases[i] = l
	}
	time.Sleep(1500 * time.Millisecond)
	for _, l := range leases {
		select {
		case <-l.Done():
			t.Fatalf("a watchdog lease was lost: %v", l.Err())
		default:
		}
	}
	// About five renewal rounds of 200 leases: batched, that is a few dozen
	// calls, not a thousand.
	assert.Zero(t, c.Calls("expire"), "renewals must go through ExpireBatch")
	assert.Positive(t, c.Calls("expirebatch"), "renewals happened")
	assert.Less(t, c.Calls("expirebatch"), 50, "renewals were not batched")
	for _, l := range leases {
		require.NoError(t, l.Unlock(ctx))
	}
	after := c.Calls("expirebatch")
	time.Sleep(time.Second)
	assert.Equal(t, after, c.Calls("expirebatch"), "Unlock must stop renewal")
}

func TestWatchdogRetriesATransientFailure(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	m := newMutex(t, c, "k", locker.WithWatchdogLease(1200*time.Millisecond))
	l, err := m.Lock(ctx)
	require.NoError(t, err)
	c.FailNext(1, errors.New("connection reset"))
	time.Sleep(1500 * time.Millisecond)
	select {
	case <-l.Done():
		t.Fatalf("one failed renewal lost the lock: %v", l.Err())
	default:
	}
	require.NoError(t, l.Unlock(ctx))
}

func TestExtendMovesAFixedLeaseEnd(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	m := newMutex(t, c, "k")
	l, err := m.Lock(ctx, locker.WithLease(200*time.Millisecond))
	require.NoError(t, err)
	before := l.Deadline()
	require.NoError(t, l.Extend(ctx, time.Second))
	assert.True(t, l.Deadline().After(before.Add(500*time.Millisecond)), "Extend must move the deadline")
	time.Sleep(400 * time.Millisecond)
	select {
	case <-l.Done():
		t.Fatalf("the extended lease ended at its old deadline: %v", l.Err())
	default:
	}
	require.ErrorIs(t, l.Extend(ctx, 0), locker.ErrInvalid)
	require.NoError(t, l.Unlock(ctx))
	require.ErrorIs(t, l.Extend(ctx, time.Second), locker.ErrNotHeld, "Extend after Unlock")
}

func TestExtendOfALostLockClosesDone(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	m := newMutex(t, c, "k")
	l, err := m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	_, err = m.ForceUnlock(ctx)
	require.NoError(t, err)
	require.ErrorIs(t, l.Extend(ctx, time.Minute), locker.ErrLost)
	<-l.Done()
	assert.ErrorIs(t, l.Err(), locker.ErrLost)
	assert.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)
}

func TestGrantArrivingAfterItsLeaseIsGivenBack(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	m := newMutex(t, c, "k")
	c.SetLatency(200 * time.Millisecond)
	_, err := m.TryLock(ctx, locker.WithLease(100*time.Millisecond))
	require.ErrorIs(t, err, locker.ErrUnavailable, "a grant whose lease ran out in flight is no grant")
	assert.NotErrorIs(t, err, locker.ErrNotAcquired, "a slow store is not another holder")
	assert.Equal(t, 1, c.Calls("unlock"), "the stale hold must be released")
	c.SetLatency(0)
	held, err := m.IsLocked(ctx)
	require.NoError(t, err)
	assert.False(t, held)

	l, err := m.TryLock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err, "the Mutex is usable afterwards")
	require.NoError(t, l.Unlock(ctx))
}
