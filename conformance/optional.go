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

// notifyLimit is how soon after a release a watcher must hear of it.
const notifyLimit = 5 * time.Second

func testReleaseNotification(ctx context.Context, t *testing.T, s *suite) {
	b1, st1 := s.client(ctx, t)
	b2, st2 := s.client(ctx, t)
	n, ok := b2.(driver.Notifier)
	if !ok {
		t.Skip("backend has no release notification (driver.Notifier); waiters poll")
	}
	key, o1 := s.key(t, ""), locker.NewOwner()

	released := make(chan struct{}, 16)
	stop, err := n.Watch(ctx, key, func() {
		select {
		case released <- struct{}{}:
		default:
		}
	})
	require.NoError(t, err)
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()

	_, err = b1.TryLock(ctx, driver.Request{Key: key, Owner: o1, TTL: s.long})
	require.NoError(t, err)
	_, err = b1.TryLock(ctx, driver.Request{Key: key, Owner: o1, TTL: s.long})
	require.NoError(t, err)
	require.NoError(t, b1.Unlock(ctx, key, o1))
	drain(released)
	require.NoError(t, b1.Unlock(ctx, key, o1))
	select {
	case <-released:
	case <-time.After(notifyLimit):
		t.Fatalf("the watcher heard of no release within %v", notifyLimit)
	}

	// After stop returns, the callback is not called again.
	stop()
	stopped = true
	drain(released)
	_, err = b1.TryLock(ctx, driver.Request{Key: key, Owner: o1, TTL: s.long})
	require.NoError(t, err)
	require.NoError(t, b1.Unlock(ctx, key, o1))
	time.Sleep(2 * s.unit)
	assert.Empty(t, released, "the callback ran after stop")

	// A Mutex waiting on a long lease wakes at the release, well before a
	// poll bounded by that lease would.
	holder, err := s.mutex(t, st1, key).Lock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	acquired := make(chan time.Time, 1)
	waiterDone := make(chan struct{})
	// The waiter's Unlock needs the subtest's context: finish it first.
	defer func() { <-waiterDone }()
	go func() {
		defer close(waiterDone)
		l, err := s.mutex(t, st2, key).Lock(ctx, locker.WithLease(s.long))
		if assert.NoError(t, err) {
			acquired <- time.Now()
			assert.NoError(t, l.Unlock(ctx))
		}
	}()
	time.Sleep(2 * s.unit)
	releasedAt := time.Now()
	require.NoError(t, holder.Unlock(ctx))
	select {
	case at := <-acquired:
		assert.Less(t, at.Sub(releasedAt), notifyLimit)
	case <-time.After(notifyLimit):
		t.Fatalf("the waiter did not wake within %v of the release", notifyLimit)
	}
}

// drain empties a notification channel.
func drain(c chan struct{}) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

func testInspection(ctx context.Context, t *testing.T, s *suite) {
	b1 := s.backend(ctx, t)
	b2, st2 := s.client(ctx, t)
	in, ok := b2.(driver.Inspector)
	if !ok {
		t.Skip("backend has no inspection (driver.Inspector)")
	}
	key, o1 := s.key(t, ""), locker.NewOwner()

	st, err := in.Inspect(ctx, key)
	require.NoError(t, err)
	assert.False(t, st.Held, "a key never locked")
	assert.Empty(t, st.Owner)
	assert.Zero(t, st.Holds)

	g, err := b1.TryLock(ctx, driver.Request{Key: key, Owner: o1, TTL: s.long})
	require.NoError(t, err)
	_, err = b1.TryLock(ctx, driver.Request{Key: key, Owner: o1, TTL: s.long})
	require.NoError(t, err)
	st, err = in.Inspect(ctx, key)
	require.NoError(t, err)
	assert.True(t, st.Held)
	assert.Equal(t, o1, st.Owner)
	assert.Equal(t, 2, st.Holds)
	assert.Equal(t, g.Token, st.Token)
	assert.Positive(t, st.Remaining)
	assert.LessOrEqual(t, st.Remaining, s.long+s.h.Granularity())

	m := s.mutex(t, st2, key, locker.WithOwner(o1))
	locked, err := m.IsLocked(ctx)
	require.NoError(t, err)
	assert.True(t, locked, "Mutex.IsLocked")
	holds, err := m.HoldCount(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, holds, "Mutex.HoldCount for the holder")
	holds, err = s.mutex(t, st2, key).HoldCount(ctx)
	require.NoError(t, err)
	assert.Zero(t, holds, "Mutex.HoldCount for another owner")

	require.NoError(t, b1.Unlock(ctx, key, o1))
	require.NoError(t, b1.Unlock(ctx, key, o1))
	st, err = in.Inspect(ctx, key)
	require.NoError(t, err)
	assert.False(t, st.Held, "a released key")
	assert.Zero(t, st.Remaining)
	assert.GreaterOrEqual(t, st.Token, g.Token, "the token of a released key")
}

func testForceUnlock(ctx context.Context, t *testing.T, s *suite) {
	st1, b2 := s.store(ctx, t), s.backend(ctx, t)
	f, ok := b2.(driver.ForceUnlocker)
	if !ok {
		t.Skip("backend has no force unlock (driver.ForceUnlocker)")
	}
	key := s.key(t, "")

	held, err := f.ForceUnlock(ctx, key)
	require.NoError(t, err)
	assert.False(t, held, "force unlock of a free key")

	lease := 3 * s.unit
	l, err := s.mutex(t, st1, key, locker.WithWatchdogLease(lease)).Lock(ctx)
	require.NoError(t, err)
	held, err = f.ForceUnlock(ctx, key)
	require.NoError(t, err)
	assert.True(t, held, "force unlock of a held key")
	assert.False(t, isHeld(ctx, t, b2, key), "the key after force unlock")

	// The holder's watchdog finds the lock gone and says so.
	select {
	case <-l.Done():
		assert.ErrorIs(t, l.Err(), locker.ErrLost)
	case <-time.After(s.expiryLimit(lease)):
		t.Fatal("Done did not close after the lock was force-unlocked")
	}
	assert.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)
}

func testBatchRenewal(ctx context.Context, t *testing.T, s *suite) {
	b1 := s.backend(ctx, t)
	be, ok := b1.(driver.BatchExpirer)
	if !ok {
		t.Skip("backend has no batched renewal (driver.BatchExpirer)")
	}
	b2 := s.backend(ctx, t)
	k1, k2, k3 := s.key(t, "/1"), s.key(t, "/2"), s.key(t, "/free")
	o1, o2 := locker.NewOwner(), locker.NewOwner()
	for _, k := range []string{k1, k2} {
		g, err := b1.TryLock(ctx, driver.Request{Key: k, Owner: o1, TTL: 2 * s.unit})
		require.NoError(t, err)
		require.True(t, g.Acquired)
	}
	errs := be.ExpireBatch(ctx, []driver.Renewal{
		{Key: k1, Owner: o1, TTL: s.long},
		{Key: k2, Owner: o2, TTL: s.long},
		{Key: k3, Owner: o1, TTL: s.long},
	})
	require.Len(t, errs, 3, "one result per renewal")
	assert.NoError(t, errs[0], "the owner's renewal")
	assert.ErrorIs(t, errs[1], driver.ErrNotHeld, "the wrong owner's renewal")
	assert.ErrorIs(t, errs[2], driver.ErrNotHeld, "renewing a free key")
	assert.False(t, isHeld(ctx, t, b2, k3), "renewing a free key must not create it")
	time.Sleep(s.expiryLimit(2 * s.unit))
	assert.True(t, isHeld(ctx, t, b2, k1), "the renewed lease")
	assert.False(t, isHeld(ctx, t, b2, k2), "the lease renewed by the wrong owner")
	require.NoError(t, b1.Unlock(ctx, k1, o1))
	assert.Empty(t, be.ExpireBatch(ctx, nil), "an empty batch")
}

func testPartition(ctx context.Context, t *testing.T, s *suite) {
	p, ok := s.h.(Partitioner)
	if !ok {
		t.Skip("harness cannot partition a client (conformance.Partitioner)")
	}
	b1, st1 := s.client(ctx, t)
	b2 := s.backend(ctx, t)
	key := s.key(t, "")
	lease := 3 * s.unit

	l, err := s.mutex(t, st1, key, locker.WithWatchdogLease(lease)).Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, p.Partition(b1))
	healed := false
	defer func() {
		if !healed {
			_ = p.Heal(b1)
		}
	}()
	select {
	case <-l.Done():
		assert.ErrorIs(t, l.Err(), locker.ErrLost)
	case <-time.After(s.expiryLimit(lease)):
		t.Fatal("Done did not close when no renewal could reach the store")
	}
	other := locker.NewOwner()
	eventually(ctx, t, s.expiryLimit(lease), "another owner acquiring after the partitioned lease ran out", func() bool {
		g, err := b2.TryLock(ctx, driver.Request{Key: key, Owner: other, TTL: s.long})
		require.NoError(t, err)
		return g.Acquired
	})
	require.NoError(t, p.Heal(b1))
	healed = true
	assert.ErrorIs(t, l.Unlock(ctx), locker.ErrLost, "Unlock after the loss")
	assert.True(t, isHeld(ctx, t, b2, key), "the old holder's Unlock must not release the new holder")
	require.NoError(t, b2.Unlock(ctx, key, other))
}
