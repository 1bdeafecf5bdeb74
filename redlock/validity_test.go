package redlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
)

// slowByClock returns a RedLock over 5 stores on a manual clock, whose
// first member's lock call takes d of that clock.
func slowByClock(t *testing.T, d time.Duration) (*memlocker.ManualClock, *quorumtest.Mem, driver.Backend) {
	clock := memlocker.NewManualClock(epoch)
	stores := quorumtest.NewMem(5, memlocker.WithClock(clock))
	slow := quorumtest.NewHooked(stores.Store(0))
	slow.SetHook(func(op string) error {
		if op == "trylock" {
			clock.Advance(d)
		}
		return nil
	})
	members := []driver.Backend{slow}
	for i := 1; i < 5; i++ {
		members = append(members, stores.Store(i).Client())
	}
	return clock, stores, newRL(t, members, combine.WithClock(clock))
}

// TestValidity: the validity is the lease less the attempt's time less the
// drift (1% of the lease plus 2 ms); a quorum with none left is a failure.
func TestValidity(t *testing.T) {
	ctx := context.Background()
	const lease = 10 * time.Second
	const drift = lease/100 + 2*time.Millisecond

	_, stores, rl := slowByClock(t, 9800*time.Millisecond)
	owner := locker.NewOwner()
	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: lease})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	assert.Equal(t, lease-9800*time.Millisecond-drift, g.Validity)
	assert.Equal(t, quorumtest.Repeat(owner, 5), stores.Holders(t, "k"))
	require.NoError(t, rl.Unlock(ctx, "k", owner))

	_, stores, rl = slowByClock(t, 9900*time.Millisecond)
	g, err = rl.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: lease})
	require.ErrorIs(t, err, locker.ErrUnavailable, "a late grant")
	assert.ErrorContains(t, err, "no validity left")
	assert.False(t, g.Acquired, "a quorum with validity %v left must not count", lease-9900*time.Millisecond-drift)
	assert.Equal(t, quorumtest.Repeat("", 5), stores.Holders(t, "k"), "the members of a quorum without validity are released")
}

// TestLeaseDeadlineReflectsValidity: a Mutex's lease ends with the
// validity, not with the lease it asked for.
func TestLeaseDeadlineReflectsValidity(t *testing.T) {
	ctx := context.Background()
	_, _, rl := slowByClock(t, 9800*time.Millisecond)
	m, err := newMutex(t, rl, "k")
	require.NoError(t, err)
	start := time.Now()
	lease, err := m.TryLock(ctx, locker.WithLease(10*time.Second))
	require.NoError(t, err)
	assert.True(t, lease.Deadline().Before(start.Add(time.Second)),
		"deadline %v after the start: the 98 ms of validity must show", lease.Deadline().Sub(start))
	select {
	case <-lease.Done():
		assert.ErrorIs(t, lease.Err(), locker.ErrLost)
	case <-time.After(5 * time.Second):
		t.Fatal("the lease did not end with its validity")
	}
	// The members still hold it by their own clock: Unlock releases them,
	// and says that the lease had ended.
	assert.ErrorIs(t, lease.Unlock(ctx), locker.ErrLost)
	held, err := m.IsLocked(ctx)
	require.NoError(t, err)
	assert.False(t, held)
}

// TestWaitBudgetBoundsTheCalls: member calls end with the caller's wait
// budget, before slow members run them.
func TestWaitBudgetBoundsTheCalls(t *testing.T) {
	stores, cs, rl := memRL(t, 5, combine.WithMemberTimeout(time.Second))
	for _, c := range cs {
		c.SetLatency(300 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Minute})
	require.ErrorIs(t, err, locker.ErrUnavailable, "the budget ran out mid-attempt: the stores could not decide")
	assert.NotErrorIs(t, err, locker.ErrNotAcquired)
	assert.False(t, g.Acquired, "calls bounded by the budget end before the members answer")
	assert.Equal(t, quorumtest.Repeat("", 5), stores.Holders(t, "k"))
}

// TestLastAttemptAfterTheBudget: a budget that has run out still leaves
// each member call a millisecond, as Redisson does; a cancelled context
// stops the calls.
func TestLastAttemptAfterTheBudget(t *testing.T) {
	stores, _, rl := memRL(t, 5)
	ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	owner := locker.NewOwner()
	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, g.Acquired, "a budget that ran out still allows one attempt")
	require.NoError(t, rl.Unlock(context.Background(), "k", owner))

	// A Mutex's TryLock with a zero wait is such an attempt.
	m, err := newMutex(t, rl, "zero")
	require.NoError(t, err)
	l, err := m.TryLock(context.Background(), locker.WithWait(0))
	require.NoError(t, err)
	require.NoError(t, l.Unlock(context.Background()))

	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	g, err = rl.TryLock(cancelled, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
	require.ErrorIs(t, err, locker.ErrUnavailable)
	assert.False(t, g.Acquired, "a cancelled context stops the attempt")
	assert.Equal(t, quorumtest.Repeat("", 5), stores.Holders(t, "k"))
}

// hookedRL returns a RedLock over 5 hooked clients.
func hookedRL(t *testing.T, opts ...combine.Option) (*quorumtest.Mem, []*quorumtest.Hooked, driver.Backend) {
	stores := quorumtest.NewMem(5)
	hs := make([]*quorumtest.Hooked, 5)
	for i := range hs {
		hs[i] = quorumtest.NewHooked(stores.Store(i))
	}
	return stores, hs, newRL(t, quorumtest.Backends(hs), opts...)
}

// TestOneRoundWithADeadline: a wait budget shorter than half the lease
// costs no second round: members get the whole lease in the first, and
// nobody is asked to extend it.
func TestOneRoundWithADeadline(t *testing.T) {
	const lease = 10 * time.Second
	stores, hs, rl := hookedRL(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	owner := locker.NewOwner()
	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: lease})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	for i, h := range hs {
		assert.Zero(t, h.Calls("expire"), "member %d: no second round", i)
		assert.Greater(t, stores.State(t, i, "k").Remaining, 9*time.Second, "member %d has the whole lease", i)
	}
	assert.Greater(t, g.Validity, 9*time.Second)
	require.NoError(t, rl.Unlock(ctx, "k", owner))

	// Through a Mutex: TryLock with a wait and a lease.
	m, err := newMutex(t, rl, "m")
	require.NoError(t, err)
	l, err := m.TryLock(context.Background(), locker.WithWait(time.Second), locker.WithLease(lease))
	require.NoError(t, err)
	for i, h := range hs {
		assert.Zero(t, h.Calls("expire"), "member %d: a wait shorter than half the lease adds no round", i)
	}
	require.NoError(t, l.Unlock(context.Background()))
}

// A renewal, like an acquisition, allows for the drift: the Lease's
// Deadline after Extend is the renewal's lease less 1% and 2 ms from the
// start of the call, on a RedLock as on each of its Mutexes' renewals by
// the watchdog. A single store's renewal keeps its whole lease.
func TestRenewalAllowsForDrift(t *testing.T) {
	ctx := context.Background()
	const lease = 10 * time.Second
	const drift = lease/100 + 2*time.Millisecond
	_, cs, rl := memRL(t, 5)
	for _, c := range []struct {
		name string
		b    driver.Backend
		hold time.Duration
	}{{"redlock", rl, lease - drift}, {"one store", cs[0], lease}} {
		m, err := newMutex(t, c.b, "k")
		require.NoError(t, err)
		l, err := m.TryLock(ctx, locker.WithLease(time.Second))
		require.NoError(t, err)
		before := time.Now()
		require.NoError(t, l.Extend(ctx, lease))
		after := time.Now()
		assert.WithinRange(t, l.Deadline(), before.Add(c.hold), after.Add(c.hold), c.name)
		require.NoError(t, l.Unlock(ctx))
	}
}
