package etcdlocker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
)

// A write or semaphore hold's token is at least Request.Floor, and later
// ones rise above it; a read hold carries the counter whatever its Floor.
// Another client's acquisition moves the counter: the next one still
// rises above it.
func TestShareFloor(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b, other := newBackend(t, c), newBackend(t, c)
	r, w, sem := view(t, b, readShare), view(t, b, writeShare), view(t, b, permits(1, 2))
	for _, v := range []driver.Backend{w, sem} {
		floored := request("k", "o")
		floored.Floor = 1000
		g := mustTry(ctx, t, v, floored)
		require.True(t, g.Acquired)
		assert.Equal(t, uint64(1000), g.Token)
		require.NoError(t, v.Unlock(ctx, "k", "o"))
		g = mustTry(ctx, t, v, request("k", "o"))
		assert.Equal(t, uint64(1001), g.Token, "the next token rises above the floor")
		require.NoError(t, v.Unlock(ctx, "k", "o"))
	}
	ow := view(t, other, writeShare)
	require.Equal(t, uint64(1002), mustTry(ctx, t, ow, request("k", "p")).Token, "another client reads the counter")
	require.NoError(t, ow.Unlock(ctx, "k", "p"))
	assert.Equal(t, uint64(1003), mustTry(ctx, t, w, request("k", "o")).Token, "the counter another client moved")
	require.NoError(t, w.Unlock(ctx, "k", "o"))
	read := request("k", "o")
	read.Floor = 5000
	assert.Equal(t, uint64(1003), mustTry(ctx, t, r, read).Token, "a read ignores Floor")
}

// Fence raises the counter, and a write or semaphore hold's token, to at
// least the token asked for: re-entries return the raised token, later
// holds rise above it, other holders keep theirs. It needs a hold in the
// view's mode.
func TestShareFence(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b := newBackend(t, c)
	r, w := view(t, b, readShare), view(t, b, writeShare)
	fence := func(v driver.Backend, key, owner string, token uint64) error {
		return v.(driver.Fencer).Fence(ctx, key, owner, token)
	}
	g := mustTry(ctx, t, w, request("k", "o"))
	require.True(t, g.Acquired)
	assert.ErrorIs(t, fence(r, "k", "o", 50), driver.ErrNotHeld, "o holds no read hold")
	assert.ErrorIs(t, fence(w, "k", "x", 50), driver.ErrNotHeld)
	require.NoError(t, fence(w, "k", "o", 50))
	require.NoError(t, fence(w, "k", "o", 10), "a lower token leaves it alone")
	assert.Equal(t, uint64(50), mustTry(ctx, t, w, request("k", "o")).Token, "a re-entry returns the raised token")
	assert.Equal(t, uint64(50), mustTry(ctx, t, r, request("k", "o")).Token, "a downgrade reads it")
	require.NoError(t, fence(r, "k", "o", 70))
	st, err := r.(driver.Inspector).Inspect(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, uint64(70), st.Token, "a read hold's Fence raises the counter")
	for range 2 {
		require.NoError(t, w.Unlock(ctx, "k", "o"))
	}
	require.NoError(t, r.Unlock(ctx, "k", "o"))
	assert.Equal(t, uint64(71), mustTry(ctx, t, w, request("k", "o")).Token)

	sem := view(t, b, permits(1, 2))
	a := mustTry(ctx, t, sem, request("s", "a"))
	require.True(t, mustTry(ctx, t, sem, request("s", "b")).Acquired)
	require.NoError(t, fence(sem, "s", "b", 90))
	assert.Equal(t, uint64(90), mustTry(ctx, t, sem, request("s", "b")).Token)
	assert.Equal(t, a.Token, mustTry(ctx, t, sem, request("s", "a")).Token, "another holder keeps its token")
	require.NoError(t, sem.Unlock(ctx, "s", "a"))
	require.NoError(t, sem.Unlock(ctx, "s", "a"))
	assert.Equal(t, uint64(91), mustTry(ctx, t, sem, request("s", "c")).Token)
}
