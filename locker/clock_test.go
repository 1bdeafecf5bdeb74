package locker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/locker"
)

func fakeClockStore() (*memlocker.ManualClock, *memlocker.Store) {
	clock := memlocker.NewManualClock(time.Unix(1e9, 0))
	return clock, memlocker.NewStore(memlocker.WithClock(clock))
}

func TestFixedLeaseRunsOutOnTheStoresFakeClock(t *testing.T) {
	ctx := context.Background()
	clock, s := fakeClockStore()
	m := newMutex(t, s.Client(), "k")
	l, err := m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, clock.Now().Add(time.Minute), l.Deadline(), "the deadline is on the store's clock")

	clock.Advance(2 * time.Minute)
	select {
	case <-l.Done():
	default:
		t.Fatal("Done still open after the fake clock passed the lease")
	}
	require.ErrorIs(t, l.Err(), locker.ErrLost)
	held, err := m.IsLocked(ctx)
	require.NoError(t, err)
	assert.False(t, held, "the store let the lease go too")
	require.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)
}

func TestWatchdogRenewsOnTheStoresFakeClock(t *testing.T) {
	ctx := context.Background()
	clock, s := fakeClockStore()
	const lease = 30 * time.Second
	m := newMutex(t, s.Client(), "k", locker.WithWatchdogLease(lease))
	l, err := m.Lock(ctx)
	require.NoError(t, err)
	rival := newMutex(t, s.Client(), "k")

	for range 30 { // ten lease lengths
		deadline := l.Deadline()
		clock.Advance(lease / 3)
		// The renewal runs in the watchdog's goroutine: wait for it.
		require.Eventually(t, func() bool { return l.Deadline().After(deadline) }, 5*time.Second, time.Millisecond,
			"no renewal at %v", clock.Now())
		select {
		case <-l.Done():
			t.Fatalf("lease lost at %v: %v", clock.Now(), l.Err())
		default:
		}
	}
	_, err = rival.TryLock(ctx)
	require.ErrorIs(t, err, locker.ErrNotAcquired, "the lock is still held after ten lease lengths")
	require.NoError(t, l.Unlock(ctx))
}

func TestWaiterAcquiresWhenTheLeaseRunsOutOnTheFakeClock(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	clock, s := fakeClockStore()
	holder, err := newMutex(t, s.Client(), "k").Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)

	got := make(chan *locker.Lease, 1)
	go func() {
		l, err := newMutex(t, s.Client(), "k").Lock(ctx)
		assert.NoError(t, err)
		got <- l
	}()
	// The waiter sleeps on the fake clock; move it on in steps, giving
	// the waiter's goroutine a moment to run after each.
	var waiter *locker.Lease
	for waiter == nil {
		select {
		case waiter = <-got:
		case <-time.After(time.Millisecond):
			require.NoError(t, ctx.Err(), "the waiter did not get the lock")
			clock.Advance(time.Second)
		}
	}
	require.NotNil(t, waiter)
	assert.False(t, clock.Now().Before(holder.Deadline()), "acquired before the holder's lease ran out")
	select {
	case <-holder.Done():
	default:
		t.Fatal("the holder's Done is open while another holds the lock")
	}
	require.NoError(t, waiter.Unlock(ctx))
	require.ErrorIs(t, holder.Unlock(ctx), locker.ErrLost)
}
