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

func testGranularity(ctx context.Context, t *testing.T, s *suite) {
	b := s.backend(ctx, t)
	require.Positive(t, s.h.Granularity(), "harness granularity")
	if g, ok := b.(driver.Granular); ok {
		assert.Equal(t, s.h.Granularity(), g.Granularity(), "the backend's Granularity disagrees with the harness")
	}
}

// testDrift: a driver that declares a drift allowance leaves some of every
// lease a Mutex may ask for.
func testDrift(ctx context.Context, t *testing.T, s *suite) {
	d, ok := s.backend(ctx, t).(driver.Drifter)
	if !ok {
		t.Skip("the backend declares no drift allowance")
	}
	for _, ttl := range []time.Duration{locker.MinLease, s.long, time.Hour} {
		drift := d.Drift(ttl)
		assert.GreaterOrEqual(t, drift, time.Duration(0), "drift of a lease of %v", ttl)
		assert.Less(t, drift, ttl, "drift of a lease of %v", ttl)
	}
}

func testAcquireRelease(ctx context.Context, t *testing.T, s *suite) {
	b := s.backend(ctx, t)
	key, o1, o2 := s.key(t, ""), locker.NewOwner(), locker.NewOwner()

	g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: o1, TTL: s.long})
	require.NoError(t, err)
	require.True(t, g.Acquired, "a free key must be acquired")
	assert.Equal(t, 1, g.Holds, "first acquisition hold count")
	assert.NotZero(t, g.Token, "an acquisition must carry a fencing token")
	require.NoError(t, b.Unlock(ctx, key, o1))

	g, err = b.TryLock(ctx, driver.Request{Key: key, Owner: o2, TTL: s.long})
	require.NoError(t, err)
	require.True(t, g.Acquired, "a released key must be free for another owner")
	require.NoError(t, b.Unlock(ctx, key, o2))
}

func testContendedTryFails(ctx context.Context, t *testing.T, s *suite) {
	b1 := s.backend(ctx, t)
	b2, st2 := s.client(ctx, t)
	key, o1, o2 := s.key(t, ""), locker.NewOwner(), locker.NewOwner()

	_, err := b1.TryLock(ctx, driver.Request{Key: key, Owner: o1, TTL: s.long})
	require.NoError(t, err)
	g, err := b2.TryLock(ctx, driver.Request{Key: key, Owner: o2, TTL: s.long})
	require.NoError(t, err, "a refused attempt is not an error")
	assert.False(t, g.Acquired, "a held key must refuse another owner")
	assert.Zero(t, g.Holds)
	assert.Zero(t, g.Token)
	if g.Remaining != 0 {
		assert.Positive(t, g.Remaining, "remaining lease of the holder")
		assert.LessOrEqual(t, g.Remaining, s.long+s.h.Granularity(), "remaining lease beyond the holder's lease")
	}
	m := s.mutex(t, st2, key)
	_, err = m.TryLock(ctx)
	assert.ErrorIs(t, err, driver.ErrNotAcquired, "Mutex.TryLock on a held lock")
	require.NoError(t, b1.Unlock(ctx, key, o1))
}

func testUnlockNotHeld(ctx context.Context, t *testing.T, s *suite) {
	b1, st1 := s.client(ctx, t)
	b2 := s.backend(ctx, t)
	key, o1, o2 := s.key(t, ""), locker.NewOwner(), locker.NewOwner()

	assert.ErrorIs(t, b1.Unlock(ctx, key, o1), driver.ErrNotHeld, "unlocking a free key")

	_, err := b1.TryLock(ctx, driver.Request{Key: key, Owner: o1, TTL: s.long})
	require.NoError(t, err)
	assert.ErrorIs(t, b2.Unlock(ctx, key, o2), driver.ErrNotHeld, "unlock by the wrong owner")
	assert.True(t, isHeld(ctx, t, b2, key), "an unlock by the wrong owner must change nothing")

	require.NoError(t, b1.Unlock(ctx, key, o1))
	assert.ErrorIs(t, b1.Unlock(ctx, key, o1), driver.ErrNotHeld, "unlocking twice")
	assert.False(t, isHeld(ctx, t, b2, key), "key must be free after the release")

	m := s.mutex(t, st1, key)
	lease, err := m.TryLock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	require.NoError(t, lease.Unlock(ctx))
	assert.ErrorIs(t, lease.Unlock(ctx), driver.ErrNotHeld, "Lease.Unlock twice")
}

func testReentry(ctx context.Context, t *testing.T, s *suite) {
	b1, b2 := s.backend(ctx, t), s.backend(ctx, t)
	key, o1 := s.key(t, ""), locker.NewOwner()

	var token uint64
	for want := 1; want <= 3; want++ {
		g, err := b1.TryLock(ctx, driver.Request{Key: key, Owner: o1, TTL: s.long})
		require.NoError(t, err)
		require.True(t, g.Acquired, "the holder must re-enter")
		assert.Equal(t, want, g.Holds, "hold count after %d acquisitions", want)
		if token == 0 {
			token = g.Token
		}
		assert.Equal(t, token, g.Token, "re-entry must keep the fencing token")
	}
	for left := 2; left >= 0; left-- {
		require.NoError(t, b1.Unlock(ctx, key, o1))
		assert.Equal(t, left > 0, isHeld(ctx, t, b2, key), "held with %d holds left", left)
	}

	// Mutexes of one Store sharing an owner nest; Mutexes with their own
	// owners do not, on the same Store or another.
	st, other := s.store(ctx, t), s.store(ctx, t)
	shared := locker.NewOwner()
	outer, err := s.mutex(t, st, key, locker.WithOwner(shared)).TryLock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)
	inner, err := s.mutex(t, st, key, locker.WithOwner(shared)).TryLock(ctx, locker.WithLease(s.long))
	require.NoError(t, err, "a Mutex with the holder's owner must re-enter")
	assert.Equal(t, 2, inner.Holds())
	assert.Equal(t, outer.Token(), inner.Token())
	_, err = s.mutex(t, st, key).TryLock(ctx)
	assert.ErrorIs(t, err, driver.ErrNotAcquired, "a Mutex with its own owner must not re-enter")
	_, err = s.mutex(t, other, key).TryLock(ctx)
	assert.ErrorIs(t, err, driver.ErrNotAcquired, "a Mutex of another Store with its own owner must not re-enter")
	require.NoError(t, inner.Unlock(ctx))
	assert.True(t, isHeld(ctx, t, b2, key), "the outer hold must survive the inner unlock")
	require.NoError(t, outer.Unlock(ctx))
	assert.False(t, isHeld(ctx, t, b2, key))
}

func testFencingTokens(ctx context.Context, t *testing.T, s *suite) {
	key := s.key(t, "")
	var last uint64
	for i := range 6 {
		b := s.backend(ctx, t)
		o := locker.NewOwner()
		g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: s.long})
		require.NoError(t, err)
		require.True(t, g.Acquired)
		assert.Greater(t, g.Token, last, "holder %d's token must exceed the previous holder's", i)
		last = g.Token
		again, err := b.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: s.long})
		require.NoError(t, err)
		assert.Equal(t, g.Token, again.Token, "re-entry must keep the token")
		require.NoError(t, b.Unlock(ctx, key, o))
		require.NoError(t, b.Unlock(ctx, key, o))
	}

	// A lease that runs out also ends the hold: the next token is higher.
	b := s.backend(ctx, t)
	expired, err := b.TryLock(ctx, driver.Request{Key: key, Owner: locker.NewOwner(), TTL: s.unit})
	require.NoError(t, err)
	require.True(t, expired.Acquired)
	assert.Greater(t, expired.Token, last)
	var g driver.Grant
	eventually(ctx, t, 3*s.unit+s.h.Granularity()+5*s.unit, "acquiring after expiry", func() bool {
		g, err = b.TryLock(ctx, driver.Request{Key: key, Owner: "next-" + locker.NewOwner(), TTL: s.long})
		require.NoError(t, err)
		return g.Acquired
	})
	assert.Greater(t, g.Token, expired.Token, "tokens must rise across an expired hold too")
}
