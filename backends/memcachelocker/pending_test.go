package memcachelocker

import (
	"context"
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/memcachedtest"
)

// A hold taken by another client of the same owner that has not written its
// token yet: re-entry writes one, and the first client then finds it.
func TestReentryCompletesPendingToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	s := memcachedtest.Start(t)
	b, err := New(s.Client(t))
	require.NoError(t, err)
	lk, ck := b.itemKeys("k")
	pending := lockItem{owner: "o", holds: 1, expiry: time.Now().Add(time.Minute).UnixNano(), nonce: "first"}
	require.NoError(t, b.mc.Add(&memcache.Item{Key: lk, Value: pending.encode(), Expiration: 61}))

	st, err := b.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.True(t, st.Held)
	assert.Zero(t, st.Token, "a pending hold has no token yet")

	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	assert.Equal(t, 2, g.Holds)
	assert.NotZero(t, g.Token, "re-entry must write the missing token")

	// The first client goes on with its own acquisition: it finds the token
	// written and takes it, not a new one.
	g1, err := b.assignToken(ctx, lk, ck, "o", "first", 0)
	require.NoError(t, err)
	assert.True(t, g1.Acquired)
	assert.Equal(t, g.Token, g1.Token)

	// A client whose acquisition was replaced by another (its nonce is gone)
	// does not hold the lock.
	g2, err := b.assignToken(ctx, lk, ck, "o", "gone", 0)
	require.NoError(t, err)
	assert.False(t, g2.Acquired)
}
