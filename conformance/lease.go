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

// expiryLimit is how long after a lease of d was taken the store must have
// let it go.
func (s *suite) expiryLimit(d time.Duration) time.Duration {
	return d + s.h.Granularity() + 5*s.unit
}

func testLeaseExpiry(ctx context.Context, t *testing.T, s *suite) {
	b1, b2 := s.backend(ctx, t), s.backend(ctx, t)
	key, o1, o2 := s.key(t, ""), locker.NewOwner(), locker.NewOwner()

	start := time.Now()
	_, err := b1.TryLock(ctx, driver.Request{Key: key, Owner: o1, TTL: 2 * s.unit})
	require.NoError(t, err)
	g, err := b2.TryLock(ctx, driver.Request{Key: key, Owner: o2, TTL: s.long})
	require.NoError(t, err)
	require.False(t, g.Acquired, "the lease has not run out yet")
	eventually(ctx, t, s.expiryLimit(2*s.unit), "another owner acquiring after the lease ran out", func() bool {
		g, err = b2.TryLock(ctx, driver.Request{Key: key, Owner: o2, TTL: s.long})
		require.NoError(t, err)
		return g.Acquired
	})
	assert.GreaterOrEqual(t, time.Since(start), 2*s.unit-s.h.Granularity()/2, "the lease ended early")
	assert.ErrorIs(t, b1.Unlock(ctx, key, o1), driver.ErrNotHeld, "unlock after the lease ran out")
	assert.ErrorIs(t, b1.Expire(ctx, key, o1, s.long), driver.ErrNotHeld, "expire after the lease ran out")
	require.NoError(t, b2.Unlock(ctx, key, o2))
}

func testExpireOnlyByOwner(ctx context.Context, t *testing.T, s *suite) {
	b1, b2 := s.backend(ctx, t), s.backend(ctx, t)
	key, o1, o2 := s.key(t, ""), locker.NewOwner(), locker.NewOwner()

	assert.ErrorIs(t, b1.Expire(ctx, key, o1, s.long), driver.ErrNotHeld, "expire on a free key")
	assert.False(t, isHeld(ctx, t, b2, key), "expire on a free key must not create it")

	_, err := b1.TryLock(ctx, driver.Request{Key: key, Owner: o1, TTL: 2 * s.unit})
	require.NoError(t, err)
	assert.ErrorIs(t, b2.Expire(ctx, key, o2, s.long), driver.ErrNotHeld, "expire by the wrong owner")
	require.NoError(t, b1.Expire(ctx, key, o1, s.long), "expire by the owner")
	time.Sleep(s.expiryLimit(2 * s.unit))
	assert.True(t, isHeld(ctx, t, b2, key), "the owner's Expire must have lengthened the lease")
	require.NoError(t, b1.Unlock(ctx, key, o1))

	// The wrong owner's Expire must not have lengthened anything either.
	_, err = b1.TryLock(ctx, driver.Request{Key: key, Owner: o1, TTL: 2 * s.unit})
	require.NoError(t, err)
	assert.ErrorIs(t, b2.Expire(ctx, key, o2, s.long), driver.ErrNotHeld)
	eventually(ctx, t, s.expiryLimit(2*s.unit), "the lease running out after a refused Expire", func() bool {
		return !isHeld(ctx, t, b2, key)
	})
}

func testWatchdogRenews(ctx context.Context, t *testing.T, s *suite) {
	st1, b2 := s.store(ctx, t), s.backend(ctx, t)
	key := s.key(t, "")
	// Renewals come every third of the lease: leave room for a loaded
	// machine to be late by a few hundred milliseconds without a loss.
	lease := max(3*s.unit, 1200*time.Millisecond)

	m := s.mutex(t, st1, key, locker.WithWatchdogLease(lease))
	l, err := m.Lock(ctx)
	require.NoError(t, err)
	time.Sleep(2 * lease)
	select {
	case <-l.Done():
		t.Fatalf("the watchdog let the lease go: %v", l.Err())
	default:
	}
	assert.True(t, isHeld(ctx, t, b2, key), "the watchdog must keep renewing the lease")
	require.NoError(t, l.Unlock(ctx))
	select {
	case <-l.Done():
	default:
		t.Fatal("Done must be closed after Unlock")
	}
	assert.ErrorIs(t, l.Err(), locker.ErrReleased)
	assert.False(t, isHeld(ctx, t, b2, key), "Unlock must release the key")
}

func testLostLeaseClosesDone(ctx context.Context, t *testing.T, s *suite) {
	st1, b2 := s.store(ctx, t), s.backend(ctx, t)
	key := s.key(t, "")

	m := s.mutex(t, st1, key)
	l, err := m.Lock(ctx, locker.WithLease(2*s.unit))
	require.NoError(t, err)
	select {
	case <-l.Done():
		assert.ErrorIs(t, l.Err(), locker.ErrLost)
	case <-time.After(s.expiryLimit(2 * s.unit)):
		t.Fatal("Done did not close when the lease ran out")
	}
	other := locker.NewOwner()
	eventually(ctx, t, s.expiryLimit(2*s.unit), "another owner acquiring after the loss", func() bool {
		g, err := b2.TryLock(ctx, driver.Request{Key: key, Owner: other, TTL: s.long})
		require.NoError(t, err)
		return g.Acquired
	})
	err = l.Unlock(ctx)
	assert.ErrorIs(t, err, locker.ErrLost, "Unlock after the loss")
	assert.ErrorIs(t, err, driver.ErrNotHeld, "Unlock after the loss")
	assert.True(t, isHeld(ctx, t, b2, key), "Unlock after the loss must not release the new holder")
	require.NoError(t, b2.Unlock(ctx, key, other))
}
