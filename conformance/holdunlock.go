package conformance

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// testHoldUnlock checks driver.HoldUnlocker: an Unlock that names its hold
// by token drops that hold and no later one of the same owner, and
// re-entries share their hold's token.
func testHoldUnlock(ctx context.Context, t *testing.T, s *suite) {
	b := s.backend(ctx, t)
	hu, ok := b.(driver.HoldUnlocker)
	if !ok {
		t.Skip("backend has no unlock by hold (driver.HoldUnlocker)")
	}
	key, owner := s.key(t, ""), locker.NewOwner()
	lock := func() driver.Grant {
		t.Helper()
		g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: s.long})
		require.NoError(t, err)
		require.True(t, g.Acquired)
		return g
	}

	require.ErrorIs(t, hu.UnlockHold(ctx, key, owner, 0), driver.ErrInvalid, "a zero token")
	first := lock()
	require.NoError(t, hu.UnlockHold(ctx, key, owner, first.Token))
	assert.False(t, isHeld(ctx, t, b, key), "the hold named was dropped")

	later := lock()
	require.Greater(t, later.Token, first.Token)
	assert.ErrorIs(t, hu.UnlockHold(ctx, key, owner, first.Token), driver.ErrNotHeld,
		"a late release of the first hold")
	assert.ErrorIs(t, hu.UnlockHold(ctx, key, locker.NewOwner(), later.Token), driver.ErrNotHeld,
		"another owner with the holder's token")
	assert.True(t, isHeld(ctx, t, b, key), "the later hold is still there")

	again := lock()
	assert.Equal(t, later.Token, again.Token, "a re-entry shares its hold's token")
	require.Equal(t, 2, again.Holds)
	require.NoError(t, hu.UnlockHold(ctx, key, owner, later.Token))
	assert.True(t, isHeld(ctx, t, b, key), "one hold of two was dropped")
	require.NoError(t, hu.UnlockHold(ctx, key, owner, later.Token))
	assert.False(t, isHeld(ctx, t, b, key), "both holds were dropped")
	assert.ErrorIs(t, hu.UnlockHold(ctx, key, owner, later.Token), driver.ErrNotHeld, "a third release")
}
