package locker_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// A lost Unlock must not leave a hold that the next Lock re-enters with
// its old token.
func TestLockAfterALostUnlockTakesAFreshHold(t *testing.T) {
	ctx := context.Background()
	s := memlocker.NewStore()
	a, b := s.Client(), s.Client()
	ma, mb := newMutex(t, a, "k"), newMutex(t, b, "k")
	l, err := ma.Lock(ctx, locker.WithLease(300*time.Millisecond))
	require.NoError(t, err)
	first := l.Token()
	a.FailNext(1, errors.New("i/o timeout"))
	require.Error(t, l.Unlock(ctx), "the injected failure")

	l, err = ma.Lock(ctx, locker.WithLease(300*time.Millisecond))
	require.NoError(t, err)
	assert.Equal(t, 1, l.Holds(), "no hold that no live Lease accounts for may be re-entered")
	assert.Greater(t, l.Token(), first, "a fresh hold has a fresh token")
	require.NoError(t, l.Unlock(ctx))
	other, err := mb.TryLock(ctx, locker.WithLease(time.Second))
	require.NoError(t, err, "after the Unlock nobody holds the lock")
	require.NoError(t, other.Unlock(ctx))
	waitCleanups()
}

// A hold resurrected on the store (as a failover to a replica that missed
// the release makes one) is given back, not re-entered.
func TestResurrectedHoldIsGivenBackAndTakenFresh(t *testing.T) {
	ctx := context.Background()
	s := memlocker.NewStore()
	c := s.Client()
	m := newMutex(t, c, "k")
	g, err := s.Client().TryLock(ctx, driver.Request{Key: "k", Owner: m.Owner(), TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)

	l, err := m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 1, l.Holds())
	assert.Greater(t, l.Token(), g.Token, "the resurrected hold's token must not be handed out")
	require.NoError(t, l.Unlock(ctx))
	held, err := m.IsLocked(ctx)
	require.NoError(t, err)
	assert.False(t, held, "nothing of the resurrected hold is left")
}

// Mutexes sharing an owner still nest on the holds they know are live, and
// give back only the holds none of them accounts for.
func TestSharedOwnerNestsOnLiveHoldsOnly(t *testing.T) {
	ctx := context.Background()
	s := memlocker.NewStore()
	owner := locker.NewOwner()
	c := s.Client() // one Store: shared owners account together per Store
	m1 := newMutex(t, c, "k", locker.WithOwner(owner))
	m2 := newMutex(t, c, "k", locker.WithOwner(owner))
	m3 := newMutex(t, c, "k", locker.WithOwner(owner))

	// A stale hold with nothing live: given back, a fresh token taken.
	g, err := s.Client().TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
	require.NoError(t, err)
	l1, err := m1.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 1, l1.Holds())
	assert.Greater(t, l1.Token(), g.Token)

	// Deliberate re-entry nests, with the live hold's token.
	l2, err := m2.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 2, l2.Holds())
	assert.Equal(t, l1.Token(), l2.Token())

	// A stale extra hold beside live ones is trimmed; the token stays.
	_, err = s.Client().TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
	require.NoError(t, err)
	l3, err := m3.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 3, l3.Holds())
	assert.Equal(t, l1.Token(), l3.Token())

	for _, l := range []*locker.Lease{l3, l2, l1} {
		require.NoError(t, l.Unlock(ctx))
	}
	held, err := m1.IsLocked(ctx)
	require.NoError(t, err)
	assert.False(t, held, "three Unlocks free the lock: no stale hold is left")
}

// Leases no store can honour are refused before any store call, and a
// lease shorter than the store's replies makes a waiting Mutex back off,
// not spin.
func TestLeaseTooShortIsInvalidAndNeverSpins(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	m := newMutex(t, c, "k")
	for _, d := range []time.Duration{time.Nanosecond, time.Millisecond, locker.MinLease - 1} {
		_, err := m.Lock(ctx, locker.WithLease(d))
		require.ErrorIs(t, err, locker.ErrInvalid, "lease %v", d)
		_, err = m.TryLock(ctx, locker.WithLease(d))
		require.ErrorIs(t, err, locker.ErrInvalid, "lease %v", d)
	}
	_, err := storetest.Of(t, c).Mutex("k", locker.WithWatchdogLease(time.Millisecond))
	require.ErrorIs(t, err, locker.ErrInvalid)
	assert.Zero(t, c.Calls("trylock"), "an invalid lease reaches no store")

	c.SetLatency(locker.MinLease + time.Millisecond)
	_, err = m.Lock(ctx, locker.WithLease(locker.MinLease), locker.WithWait(time.Second))
	require.Error(t, err)
	assert.NotErrorIs(t, err, locker.ErrNotAcquired, "nobody else holds it")
	// Back-to-back attempts would make about 45 in the second; backing off
	// from 5 ms to 500 ms makes about 10.
	assert.LessOrEqual(t, c.Calls("trylock"), 20, "attempts whose lease ran out in flight must back off")
	c.SetLatency(0)
	waitCleanups()
}

// A call returns by its context's deadline although the store does not
// answer; the release after it goes on in the background, and the Mutex's
// next call waits for it rather than racing it.
func TestContextBoundsTheCallNotTheCleanup(t *testing.T) {
	c := memlocker.New()
	m := newMutex(t, c, "k")
	c.TimeoutNext(1) // the attempt takes the lock, the reply is lost
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	c.SetLatency(0)
	_, err := m.TryLock(ctx)
	require.Error(t, err)

	c.SetLatency(2 * time.Second) // the release cannot get through in time
	c.TimeoutNext(1)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel2()
	start := time.Now()
	_, err = m.TryLock(ctx2)
	elapsed := time.Since(start)
	require.Error(t, err)
	assert.NotErrorIs(t, err, locker.ErrNotAcquired, "a slow store is not another holder")
	assert.Less(t, elapsed, 700*time.Millisecond, "the call must return by its deadline, not after the release")

	ctx3, cancel3 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel3()
	_, err = m.TryLock(ctx3)
	require.ErrorIs(t, err, locker.ErrUnavailable, "the next call waits for the cleanup within its context")
	assert.NotErrorIs(t, err, locker.ErrNotAcquired)

	c.SetLatency(0)
	waitCleanups()
	held, err := m.IsLocked(context.Background())
	require.NoError(t, err)
	assert.False(t, held, "the background release gave back what the lost attempts took")
	l, err := m.TryLock(context.Background(), locker.WithLease(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 1, l.Holds())
	require.NoError(t, l.Unlock(context.Background()))
}

// Unlock after the lease ran out answers ErrLost, though the store may
// still hold what is left (it deletes that too).
func TestUnlockAfterTheLeaseRanOutIsErrLost(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	m := newMutex(t, c, "k")
	l, err := m.Lock(ctx, locker.WithLease(50*time.Millisecond))
	require.NoError(t, err)
	<-l.Done()
	require.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)
}

// Names have one documented maximum, and errors quote a short prefix only.
func TestOversizedNamesAreInvalid(t *testing.T) {
	c := memlocker.New()
	long := strings.Repeat("n", 1<<20)
	_, err := storetest.Of(t, c).Mutex(long)
	require.ErrorIs(t, err, locker.ErrInvalid)
	assert.Less(t, len(err.Error()), 1024, "an error quotes a short prefix of the name")
	_, err = storetest.Of(t, c).Mutex(long[:locker.MaxNameLen+1])
	require.ErrorIs(t, err, locker.ErrInvalid)
	m, err := storetest.Of(t, c).Mutex(long[:locker.MaxNameLen])
	require.NoError(t, err)
	l, err := m.TryLock(context.Background(), locker.WithLease(time.Minute))
	require.NoError(t, err)
	require.NoError(t, l.Unlock(context.Background()))
	_, err = storetest.Of(t, c).Mutex("k", locker.WithOwner(strings.Repeat("o", 257)))
	require.ErrorIs(t, err, locker.ErrInvalid)
}

// An Unlock whose outcome is unknown is not made again for a shared owner:
// the second Unlock could drop the hold of another Mutex of the owner.
func TestSharedOwnerDoesNotRetryAnUnknownUnlock(t *testing.T) {
	ctx := context.Background()
	s := memlocker.NewStore()
	owner := locker.NewOwner()
	c1 := s.Client()
	m1 := newMutex(t, c1, "k", locker.WithOwner(owner))
	m2 := newMutex(t, c1, "k", locker.WithOwner(owner)) // the same Store
	l1, err := m1.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	l2, err := m2.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	require.Equal(t, 2, l2.Holds())

	c1.TimeoutNext(1) // the Unlock runs, its reply is lost
	require.Error(t, l1.Unlock(ctx))
	waitCleanups()
	n, err := m2.HoldCount(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, n, "m2's hold survives m1's lost Unlock")
	require.NoError(t, l2.Unlock(ctx))
	held, err := m2.IsLocked(ctx)
	require.NoError(t, err)
	assert.False(t, held)
}

// An Unlock that was not sent (ErrUnavailable) left the hold in place: it
// is made again in the background, also for a shared owner, since nothing
// of it ran.
func TestAnUnsentUnlockIsMadeAgain(t *testing.T) {
	ctx := context.Background()
	for _, opts := range [][]locker.MutexOption{nil, {locker.WithOwner(locker.NewOwner())}} {
		c := memlocker.New()
		m := newMutex(t, c, "k", opts...)
		l, err := m.Lock(ctx, locker.WithLease(time.Minute))
		require.NoError(t, err)
		c.FailNext(1, fmt.Errorf("%w: injected: no connection", driver.ErrUnavailable))
		require.ErrorIs(t, l.Unlock(ctx), locker.ErrUnavailable)
		waitCleanups()
		held, err := m.IsLocked(ctx)
		require.NoError(t, err)
		assert.False(t, held, "the release is made again, not left to the lease (options %v)", opts)
	}
}
