package redislocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
)

// TestFence raises the token of a hold: re-entry returns the raised
// token, the next holder gets a higher one, and only the holder may raise
// it.
func TestFence(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	ctx := context.Background()

	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	raised := g.Token + 1_000_000_000
	assert.ErrorIs(t, b.Fence(ctx, "k", "other", raised), locker.ErrNotHeld, "a non-holder's fence")
	assert.ErrorIs(t, b.Fence(ctx, "free", "o", raised), locker.ErrNotHeld, "fencing a free key")
	assert.ErrorIs(t, b.Fence(ctx, "k", "o", 0), locker.ErrInvalid)
	assert.ErrorIs(t, b.Fence(ctx, "k", "o", 1<<53+1), locker.ErrInvalid, "a token the scripts cannot count exactly")
	require.NoError(t, b.Fence(ctx, "k", "o", raised))
	require.NoError(t, b.Fence(ctx, "k", "o", g.Token), "a lower token leaves the counter alone")

	again, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, raised, again.Token, "re-entry returns the raised token")
	st, err := b.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, raised, st.Token)
	assert.Greater(t, st.Remaining, 50*time.Second, "fencing leaves the lease alone")
	require.NoError(t, b.Unlock(ctx, "k", "o"))
	require.NoError(t, b.Unlock(ctx, "k", "o"))

	next, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "n", TTL: time.Minute})
	require.NoError(t, err)
	assert.Greater(t, next.Token, raised, "the next holder's token exceeds the raised one")
}

// TestTryLockFloor: a new token is at least the floor; a counter already
// above the floor goes on from itself; re-entry keeps the token.
func TestTryLockFloor(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	ctx := context.Background()

	floor := uint64(time.Now().Add(time.Hour).UnixMicro())
	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute, Floor: floor})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	assert.Equal(t, floor, g.Token, "a counter below the floor gives the floor")
	again, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute, Floor: floor + 1000})
	require.NoError(t, err)
	assert.Equal(t, floor, again.Token, "re-entry keeps the token")
	require.NoError(t, b.Unlock(ctx, "k", "o"))
	require.NoError(t, b.Unlock(ctx, "k", "o"))

	next, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "n", TTL: time.Minute, Floor: floor - 1000})
	require.NoError(t, err)
	assert.Equal(t, floor+1, next.Token, "a counter above the floor goes on from itself")
	require.NoError(t, b.Unlock(ctx, "k", "n"))

	_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: "n", TTL: time.Minute, Floor: 1<<53 + 1})
	assert.ErrorIs(t, err, locker.ErrInvalid, "a floor the scripts cannot count exactly")
}
