package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

// inspect returns key's state, or false if the backend cannot say.
func inspect(ctx context.Context, t *testing.T, b driver.Backend, key string) (driver.State, bool) {
	t.Helper()
	in, ok := b.(driver.Inspector)
	if !ok {
		return driver.State{}, false
	}
	st, err := in.Inspect(ctx, key)
	require.NoError(t, err, "Inspect")
	return st, true
}

// reservedFor checks, when the backend can say, that key is reserved for
// owner for at most limit, and returns its state.
func reservedFor(ctx context.Context, t *testing.T, b driver.Backend, key, owner string, limit time.Duration) driver.State {
	t.Helper()
	st, ok := inspect(ctx, t, b, key)
	if !ok {
		return st
	}
	assert.True(t, st.Held, "a reserved key is held")
	assert.Equal(t, owner, st.Owner, "a reserved key is held by the waiter it is reserved for")
	assert.Zero(t, st.Holds, "a reservation not yet taken has a hold count of 0")
	assert.Positive(t, st.Remaining, "a reservation has a lease")
	assert.LessOrEqual(t, st.Remaining, limit, "a reservation lasts at most the waiter's patience")
	return st
}

// isFree checks, when the backend can say, that key is neither held nor
// reserved.
func isFree(ctx context.Context, t *testing.T, b driver.Backend, key, why string) {
	t.Helper()
	if st, ok := inspect(ctx, t, b, key); ok {
		assert.False(t, st.Held, "%s: the key must be free, held by %q (%d holds)", why, st.Owner, st.Holds)
	}
}

// acquire takes key for owner through b, failing the test if it cannot.
func acquire(ctx context.Context, t *testing.T, b driver.Backend, key, owner string, ttl time.Duration) driver.Grant {
	t.Helper()
	g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: ttl})
	require.NoError(t, err)
	require.True(t, g.Acquired, "TryLock on a key nobody holds or waits for")
	return g
}

// queueUp makes owner wait for key through q, which must be held by
// another owner.
func queueUp(ctx context.Context, t *testing.T, q driver.Backend, key, owner string, ttl, patience time.Duration) {
	t.Helper()
	g, err := q.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: ttl, Patience: patience})
	require.NoError(t, err, "TryLock with patience")
	require.False(t, g.Acquired, "TryLock with patience on a key held by another owner")
	assert.Zero(t, g.Holds)
	assert.Zero(t, g.Token)
}

// refused checks that owner's plain TryLock of key through b fails.
func refused(ctx context.Context, t *testing.T, b driver.Backend, key, owner, why string) driver.Grant {
	t.Helper()
	g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g.Acquired, why)
	return g
}
