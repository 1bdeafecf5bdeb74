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

// grantedTo checks that a release granted key to owner: that the grant
// heard on owner's turn, unless the store only woke it, is one hold with a
// token above after, and, when the backend can say, that owner holds key
// with one hold and a lease of at most limit (the lease it asked for). It
// returns the state, or the grant heard when the backend cannot be
// inspected, or a zero State when the store only woke the waiter and shows
// the key free: it reserves the key for the waiter (see driver.Queuer).
func grantedTo(ctx context.Context, t *testing.T, b driver.Backend, turn driver.Grant, key, owner string, after uint64, limit time.Duration) driver.State {
	t.Helper()
	if turn.Acquired {
		assert.Equal(t, 1, turn.Holds, "a grant is one hold")
		assert.Greater(t, turn.Token, after, "a grant is a new hold: its token must exceed the last one's")
	}
	st, ok := inspect(ctx, t, b, key)
	if !ok {
		return driver.State{Held: turn.Acquired, Owner: owner, Holds: turn.Holds, Token: turn.Token}
	}
	if !turn.Acquired && !st.Held {
		// A store that reserves the lock for the waiter, whose turns
		// carry no grant (a combinator: see driver.Queuer), shows the
		// members' holds, and refuses everyone else.
		g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: "probe-" + locker.NewOwner(), TTL: limit})
		require.NoError(t, err)
		assert.False(t, g.Acquired, "a key reserved for its waiter is nobody else's")
		assert.True(t, g.Reserved, "the refusal of a key reserved for its waiter reports the reservation")
		return driver.State{}
	}
	assert.True(t, st.Held, "a granted key is held")
	assert.Equal(t, owner, st.Owner, "a granted key is held by the waiter it was granted to")
	assert.Equal(t, 1, st.Holds, "a grant is one hold, claimed or not")
	assert.Positive(t, st.Remaining, "a grant has a lease")
	assert.LessOrEqual(t, st.Remaining, limit, "a grant lasts the lease the waiter asked for")
	if turn.Acquired {
		assert.Equal(t, turn.Token, st.Token, "the turn's grant has the hold's token")
	}
	return st
}

// takeUp makes owner hold key, which a release granted it, as grantedTo
// found it in st: a store that granted it has nothing left to do, and the
// waiter claims a key the store only reserved for it.
func takeUp(ctx context.Context, t *testing.T, b driver.Backend, st driver.State, key, owner string, ttl time.Duration) {
	t.Helper()
	if !st.Held {
		claim(ctx, t, b, key, owner, ttl, "the waiter claims the key reserved for it")
	}
}

// claim takes the grant of key to owner through b with a TryLock with
// patience: acquired, with the grant's one hold.
func claim(ctx context.Context, t *testing.T, b driver.Backend, key, owner string, ttl time.Duration, why string) driver.Grant {
	t.Helper()
	g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: ttl, Patience: ttl})
	require.NoError(t, err)
	require.True(t, g.Acquired, why)
	assert.Equal(t, 1, g.Holds, "%s: claiming a grant adds no hold", why)
	return g
}

// isFree checks, when the backend can say, that key is not held.
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

// queueUp makes owner wait for key through q, asking for a lease of ttl;
// key must be held by another owner.
func queueUp(ctx context.Context, t *testing.T, q driver.Backend, key, owner string, ttl, patience time.Duration) driver.Grant {
	t.Helper()
	return queueRequest(ctx, t, q, driver.Request{Key: key, Owner: owner, TTL: ttl, Patience: patience})
}

// queueRequest is queueUp of r, which has Patience.
func queueRequest(ctx context.Context, t *testing.T, q driver.Backend, r driver.Request) driver.Grant {
	t.Helper()
	g, err := q.TryLock(ctx, r)
	require.NoError(t, err, "TryLock with patience")
	require.False(t, g.Acquired, "TryLock with patience on a key held by another owner")
	assert.Zero(t, g.Holds)
	return g
}

// refused checks that owner's plain TryLock of key through b fails.
func refused(ctx context.Context, t *testing.T, b driver.Backend, key, owner, why string) driver.Grant {
	t.Helper()
	g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g.Acquired, why)
	return g
}
