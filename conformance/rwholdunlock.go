package conformance

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

// testRWReadHoldUnlock checks driver.HoldUnlocker on a Read view: a read
// hold keeps the token its first grant carried, its re-entries carry it
// again, and a release by token drops that hold and no later one of the
// same owner. Each of the owner's read holds here is a downgrade, so that
// a write hold comes between them and their tokens differ. Fence raises
// the owner's hold's token, and no other reader's.
func testRWReadHoldUnlock(ctx context.Context, t *testing.T, s *suite) {
	read, write := s.rwViews(ctx, t)
	hu, ok := read.(driver.HoldUnlocker)
	if !ok {
		t.Skip("read view has no unlock by hold (driver.HoldUnlocker)")
	}
	key, o := s.key(t, ""), owners(3)
	downgrade := func() driver.Grant {
		t.Helper()
		w := takes(ctx, t, write, key, o[0], s.long, "a writer")
		r := takes(ctx, t, read, key, o[0], s.long, "a read hold under the owner's write hold")
		require.Equal(t, w.Token, r.Token)
		unlocks(ctx, t, write, key, o[0])
		return r
	}

	require.ErrorIs(t, hu.UnlockHold(ctx, key, o[0], 0), driver.ErrInvalid, "a zero token")
	first := downgrade()
	require.NoError(t, hu.UnlockHold(ctx, key, o[0], first.Token))
	takes(ctx, t, write, key, o[1], s.long, "the read hold named was dropped")
	unlocks(ctx, t, write, key, o[1])

	later := downgrade()
	require.Greater(t, later.Token, first.Token)
	assert.ErrorIs(t, hu.UnlockHold(ctx, key, o[0], first.Token), driver.ErrNotHeld, "a late release of the first read hold")
	assert.ErrorIs(t, hu.UnlockHold(ctx, key, o[1], later.Token), driver.ErrNotHeld, "another owner with the reader's token")
	keptOut(ctx, t, s, write, key, o[1], 0, s.long, "the later read hold is still there")

	other := takes(ctx, t, read, key, o[2], s.long, "another reader")
	assert.Equal(t, later.Token, other.Token, "the last write's token")
	again := takes(ctx, t, read, key, o[0], s.long, "a read re-entry")
	assert.Equal(t, later.Token, again.Token, "a re-entry carries its hold's token")
	require.Equal(t, 2, again.Holds)
	held := later.Token
	if f, ok := read.(driver.Fencer); ok {
		held += 100
		require.NoError(t, f.Fence(ctx, key, o[0], held))
		assert.ErrorIs(t, hu.UnlockHold(ctx, key, o[0], later.Token), driver.ErrNotHeld, "the token before the fence")
		g := takes(ctx, t, read, key, o[0], s.long, "a read re-entry after the fence")
		assert.Equal(t, held, g.Token, "a re-entry carries the raised token")
		require.NoError(t, hu.UnlockHold(ctx, key, o[0], held))
	}
	require.NoError(t, hu.UnlockHold(ctx, key, o[0], held))
	require.NoError(t, hu.UnlockHold(ctx, key, o[0], held))
	assert.ErrorIs(t, hu.UnlockHold(ctx, key, o[0], held), driver.ErrNotHeld, "a release past the holds")
	require.NoError(t, hu.UnlockHold(ctx, key, o[2], other.Token), "another reader keeps its own token")
	takes(ctx, t, write, key, o[1], s.long, "every read hold was dropped")
	unlocks(ctx, t, write, key, o[1])
}
