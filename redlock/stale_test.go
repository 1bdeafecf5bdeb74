package redlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
)

// TestStaleHoldShows: a member that still holds the lock for the owner (a
// hold resurrected by a failover, or left by a lost Unlock) makes the
// grant's Holds 2, the largest among the members, so that the owner sees
// it; two Unlocks drain every member: the first drops a hold everywhere
// (nil), the second the stale one, and reports ErrNotHeld since a quorum
// no longer held it.
func TestStaleHoldShows(t *testing.T) {
	ctx := context.Background()
	stores, _, rl := memRL(t, 3)
	stores.Take(t, "k", "o", time.Minute, 0)

	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	assert.Equal(t, 2, g.Holds, "member 1's stale hold shows")

	require.NoError(t, rl.Unlock(ctx, "k", "o"))
	assert.Equal(t, []string{"o", "", ""}, stores.Holders(t, "k"))
	assert.ErrorIs(t, rl.Unlock(ctx, "k", "o"), locker.ErrNotHeld, "members 2 and 3 are drained")
	assert.Equal(t, quorumtest.Repeat("", 3), stores.Holders(t, "k"))
	st, err := rl.(driver.Inspector).Inspect(ctx, "k")
	require.NoError(t, err)
	assert.False(t, st.Held)
	assert.ErrorIs(t, rl.Unlock(ctx, "k", "o"), locker.ErrNotHeld)
}
