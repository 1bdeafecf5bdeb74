package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// Staller is an optional Harness capability: making one client's calls
// hang, as a store that stopped answering (a paused server, a blackholed
// link) makes them, and ending that. The suite uses it to check that every
// call returns by its context's deadline whatever the store does.
type Staller interface {
	// Stall makes b's calls hang until their context ends or Resume.
	Stall(b driver.Backend) error
	// Resume lets b's calls through again.
	Resume(b driver.Backend) error
}

// doneMargin is how late after Deadline a lease's Done may close: the
// scheduling of one timer on a loaded machine.
const doneMargin = 50 * time.Millisecond

// boundMargin is how long past its context's deadline a call may take: a
// bound, not a speed test.
const boundMargin = time.Second

func testUnlockAfterExpiry(ctx context.Context, t *testing.T, s *suite) {
	key := s.key(t, "")
	m := s.mutex(t, s.store(ctx, t), key)
	l, err := m.Lock(ctx, locker.WithLease(2*s.unit))
	require.NoError(t, err)
	select {
	case <-l.Done():
	case <-time.After(s.expiryLimit(2 * s.unit)):
		t.Fatal("Done did not close when the lease ran out")
	}
	// Whatever the store still keeps of the hold (a coarse store keeps it
	// past the local lease), the lease had ended: the answer is ErrLost.
	assert.ErrorIs(t, l.Unlock(ctx), locker.ErrLost, "Unlock after the lease ran out")
	assert.False(t, isHeld(ctx, t, s.backend(ctx, t), key), "Unlock deletes what is left of an ended lease")
}

func testStaleReentry(ctx context.Context, t *testing.T, s *suite) {
	key := s.key(t, "")
	st, other := s.store(ctx, t), s.backend(ctx, t)
	m := s.mutex(t, st, key)
	// A hold of the Mutex's owner that no Lease accounts for, as a lost
	// Unlock or a failover to a replica that missed the release leaves.
	stale, err := other.TryLock(ctx, driver.Request{Key: key, Owner: m.Owner(), TTL: s.long})
	require.NoError(t, err)
	require.True(t, stale.Acquired)

	l, err := m.Lock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	assert.Equal(t, 1, l.Holds(), "a hold no live Lease accounts for must not be re-entered")
	if stale.Token != 0 {
		assert.Greater(t, l.Token(), stale.Token, "the stale hold's token must not be handed out")
	}
	require.NoError(t, l.Unlock(ctx))
	assert.False(t, isHeld(ctx, t, other, key), "nothing of the stale hold is left after Unlock")

	// Deliberate re-entry through a shared owner still nests: the Store
	// accounts for both Mutexes' holds.
	owner := locker.NewOwner()
	m1 := s.mutex(t, st, key, locker.WithOwner(owner))
	m2 := s.mutex(t, st, key, locker.WithOwner(owner))
	l1, err := m1.Lock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	l2, err := m2.Lock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	assert.Equal(t, 2, l2.Holds(), "a shared owner re-enters its live hold")
	assert.Equal(t, l1.Token(), l2.Token(), "re-entry keeps the token")
	require.NoError(t, l2.Unlock(ctx))
	require.NoError(t, l1.Unlock(ctx))
	assert.False(t, isHeld(ctx, t, other, key))
}

func testDoneByDeadline(ctx context.Context, t *testing.T, s *suite) {
	// Renewals that hang (a stalled store) are the hard case: no failed
	// renewal returns in time to say the lease is over.
	cut, heal := func(driver.Backend) error { return nil }, func(driver.Backend) error { return nil }
	if p, ok := s.h.(Partitioner); ok {
		cut, heal = p.Partition, p.Heal
	}
	if st, ok := s.h.(Staller); ok {
		cut, heal = st.Stall, st.Resume
	} else if _, ok := s.h.(Partitioner); !ok {
		t.Skip("the harness can neither stall nor partition a client")
	}
	key := s.key(t, "")
	b, st := s.client(ctx, t)
	// Long enough that a renewal retried after a hung one (a tenth of the
	// lease later) would land well past doneMargin.
	lease := max(15*s.unit, 3*s.h.Granularity())
	m := s.mutex(t, st, key, locker.WithWatchdogLease(lease))
	l, err := m.Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, cut(b))
	healed := false
	defer func() {
		if !healed {
			require.NoError(t, heal(b))
		}
	}()
	// Done closes by Deadline, whether or not a renewal is in flight; the
	// margin covers only the scheduling of the timer.
	for {
		deadline := l.Deadline()
		select {
		case <-l.Done():
			assert.ErrorIs(t, l.Err(), locker.ErrLost)
			assert.False(t, time.Now().Before(deadline.Add(-s.h.Granularity())), "Done closed long before Deadline")
			require.NoError(t, heal(b))
			healed = true
			assert.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)
			return
		case <-time.After(time.Until(deadline) + doneMargin):
			if l.Deadline().Equal(deadline) {
				t.Fatalf("Done still open %v after Deadline", time.Since(deadline))
			}
			// A renewal got through before the partition: a later
			// deadline.
		}
	}
}

func testContextBound(ctx context.Context, t *testing.T, s *suite) {
	st, ok := s.h.(Staller)
	if !ok {
		t.Skip("the harness cannot stall a client")
	}
	key := s.key(t, "")
	b, store := s.client(ctx, t)
	m := s.mutex(t, store, key)
	held, err := m.Lock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	require.NoError(t, st.Stall(b))
	resumed := false
	defer func() {
		if !resumed {
			require.NoError(t, st.Resume(b))
		}
	}()

	// Each call gets a context that ends after 300ms twice: by its
	// deadline, and cancelled without one (a request or signal context);
	// a client that bounds a read by the context's deadline alone misses
	// the second.
	bounded := func(what string, call func(context.Context) error) {
		t.Helper()
		for _, end := range []string{"deadline", "cancellation"} {
			cctx, cancel := endsAfter(ctx, 300*time.Millisecond, end == "cancellation")
			start := time.Now()
			err := call(cctx)
			elapsed := time.Since(start)
			cancel()
			assert.Error(t, err, "%s on a stalled store", what)
			assert.NotErrorIs(t, err, driver.ErrNotAcquired, "%s: a stalled store is not another holder", what)
			assert.Less(t, elapsed, 300*time.Millisecond+boundMargin, "%s must return by its context's %s", what, end)
		}
	}
	bounded("Extend", func(ctx context.Context) error { return held.Extend(ctx, s.long) })
	bounded("Inspect", func(ctx context.Context) error { _, err := m.Inspect(ctx); return err })
	if n, ok := b.(driver.Notifier); ok {
		// A watch may be set up although the store does not answer (it
		// reconnects and says so later); it must not hold its caller.
		wctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		start := time.Now()
		stop, err := n.Watch(wctx, key, func() {})
		elapsed := time.Since(start)
		cancel()
		if err == nil {
			stop()
		}
		assert.Less(t, elapsed, 300*time.Millisecond+boundMargin, "Watch must return by its context's deadline")
	}
	bounded("Unlock", func(ctx context.Context) error { return held.Unlock(ctx) })
	fresh := s.mutex(t, store, key)
	bounded("TryLock", func(ctx context.Context) error { _, err := fresh.TryLock(ctx, locker.WithLease(s.long)); return err })
	bounded("Lock", func(ctx context.Context) error { _, err := fresh.Lock(ctx, locker.WithLease(s.long)); return err })

	require.NoError(t, st.Resume(b))
	resumed = true
	// What the stalled calls may have left is released in the background:
	// the lock becomes free without waiting for a lease to run out.
	other := s.backend(ctx, t)
	eventually(ctx, t, caseTimeout/2, "the lock left by stalled calls freed by their cleanup", func() bool {
		return !isHeld(ctx, t, other, key)
	})
	l, err := fresh.Lock(ctx, locker.WithLease(s.long))
	require.NoError(t, err, "the Mutex is usable once the store answers")
	require.NoError(t, l.Unlock(ctx))
}

// endsAfter returns a context that ends after d: by its deadline, or with
// cancelled by a cancellation, without a deadline. Call stop when done.
func endsAfter(ctx context.Context, d time.Duration, cancelled bool) (_ context.Context, stop func()) {
	if !cancelled {
		return context.WithTimeout(ctx, d)
	}
	ctx, cancel := context.WithCancel(ctx)
	timer := time.AfterFunc(d, cancel)
	return ctx, func() {
		timer.Stop()
		cancel()
	}
}

func testWaiterAtExpiry(ctx context.Context, t *testing.T, s *suite) {
	key := s.key(t, "")
	b := s.backend(ctx, t)
	// A holder that never unlocks: its lease runs out, and nothing is
	// published. The waiter must try again as it runs out, not a poll or a
	// safety net later.
	start := time.Now()
	g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: locker.NewOwner(), TTL: 3 * s.unit})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	waiter := s.mutex(t, s.store(ctx, t), key)
	l, err := waiter.Lock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	late := time.Since(start) - 3*s.unit
	assert.Less(t, late, s.h.Granularity()+3*s.unit, "the waiter took the lock %v after the holder's lease ran out", late)
	require.NoError(t, l.Unlock(ctx))
}

func testHolderLabel(ctx context.Context, t *testing.T, s *suite) {
	key := s.key(t, "")
	b, st := s.client(ctx, t)
	if _, ok := b.(driver.Inspector); !ok {
		t.Skip("backend has no inspection (driver.Inspector)")
	}
	m := s.mutex(t, st, key, locker.WithLabel("conformance-holder"))
	l, err := m.Lock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	state, err := s.mutex(t, s.store(ctx, t), key).Inspect(ctx)
	require.NoError(t, err)
	assert.Equal(t, "conformance-holder", state.Label, "the store keeps the holder's label with the hold")
	require.NoError(t, l.Unlock(ctx))
}
