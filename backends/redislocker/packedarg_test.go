package redislocker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
)

// TestOwnersOfAnyBytesInThePackedArgument: the scripts take the owner
// inside their packed argument, after its length, so owners with zero
// bytes, longer than the buffer the argument starts in, or that differ
// only in their last byte are owners of their own through every
// operation.
func TestOwnersOfAnyBytesInThePackedArgument(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	ctx := context.Background()
	long := strings.Repeat("o", 1000)
	owners := [][2]string{
		{"nul\x00a", "nul\x00b"},
		{"\x00", "\x00\x00"},
		{long + "a", long + "b"},
		{"a", long},
	}
	for i, pair := range owners {
		key := "k" + string(rune('0'+i))
		one, other := pair[0], pair[1]
		g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: one, TTL: time.Minute})
		require.NoError(t, err)
		require.True(t, g.Acquired, "pair %d: the first owner takes the lock", i)
		g, err = b.TryLock(ctx, driver.Request{Key: key, Owner: other, TTL: time.Minute, Patience: time.Second})
		require.NoError(t, err)
		assert.False(t, g.Acquired, "pair %d: the other owner is refused", i)
		assert.ErrorIs(t, b.Expire(ctx, key, other, time.Minute), driver.ErrNotHeld, "pair %d", i)
		assert.ErrorIs(t, b.Fence(ctx, key, other, g.Token+1), driver.ErrNotHeld, "pair %d", i)
		assert.ErrorIs(t, b.Unlock(ctx, key, other), driver.ErrNotHeld, "pair %d", i)

		st, err := b.Inspect(ctx, key)
		require.NoError(t, err)
		assert.Equal(t, one, st.Owner, "pair %d: the holder, byte for byte", i)
		require.NoError(t, b.Expire(ctx, key, one, time.Minute), "pair %d", i)
		require.NoError(t, b.Fence(ctx, key, one, st.Token+1), "pair %d", i)
		g, err = b.TryLock(ctx, driver.Request{Key: key, Owner: one, TTL: time.Minute})
		require.NoError(t, err)
		assert.Equal(t, 2, g.Holds, "pair %d: re-entry", i)
		require.NoError(t, b.Unlock(ctx, key, one), "pair %d", i)
		require.NoError(t, b.Unlock(ctx, key, one), "pair %d", i)

		// The release granted the lock to the other owner, first in line.
		st, err = b.Inspect(ctx, key)
		require.NoError(t, err)
		assert.Equal(t, other, st.Owner, "pair %d: the waiter holds the grant", i)
		require.NoError(t, b.Dequeue(ctx, key, other), "pair %d: the waiter gives the grant back", i)
		st, err = b.Inspect(ctx, key)
		require.NoError(t, err)
		assert.False(t, st.Held, "pair %d: free once the grant is given back", i)
	}
}
