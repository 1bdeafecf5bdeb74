package etcdlocker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
)

// Readers share; a writer excludes readers and writers; an owner's read
// hold blocks its own write (no upgrade); a writer may read (downgrade).
// Write tokens rise, and a read hold carries the last write's token.
func TestRWLockRules(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b := newBackend(t, c)
	r, w := view(t, b, readShare), view(t, b, writeShare)

	g := mustTry(ctx, t, r, request("k", "r1"))
	require.True(t, g.Acquired)
	assert.Zero(t, g.Token, "no write hold yet")
	g = mustTry(ctx, t, r, request("k", "r2"))
	assert.True(t, g.Acquired, "readers share")
	g = mustTry(ctx, t, r, request("k", "r1"))
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 2}, held(g), "a read re-entry")
	g = mustTry(ctx, t, w, request("k", "r1"))
	assert.False(t, g.Acquired, "no upgrade")
	assert.Positive(t, g.Remaining)
	require.NoError(t, r.Unlock(ctx, "k", "r1"))
	require.NoError(t, r.Unlock(ctx, "k", "r1"))
	require.NoError(t, r.Unlock(ctx, "k", "r2"))
	assert.ErrorIs(t, r.Unlock(ctx, "k", "r2"), driver.ErrNotHeld)

	wg := mustTry(ctx, t, w, request("k", "w1"))
	require.True(t, wg.Acquired)
	assert.Positive(t, wg.Token)
	g = mustTry(ctx, t, r, request("k", "r1"))
	assert.False(t, g.Acquired, "a writer excludes readers")
	assert.Positive(t, g.Remaining)
	g = mustTry(ctx, t, w, request("k", "w2"))
	assert.False(t, g.Acquired, "a writer excludes writers")
	g = mustTry(ctx, t, w, request("k", "w1"))
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 2, Token: wg.Token}, held(g), "a write re-entry keeps the token")
	assert.ErrorIs(t, r.Unlock(ctx, "k", "w1"), driver.ErrNotHeld, "the write hold is no read hold")

	g = mustTry(ctx, t, r, request("k", "w1"))
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 1, Token: wg.Token}, held(g), "a downgrade reads the write's token")
	require.NoError(t, w.Unlock(ctx, "k", "w1"))
	require.NoError(t, w.Unlock(ctx, "k", "w1"))
	g = mustTry(ctx, t, r, request("k", "r2"))
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 1, Token: wg.Token}, held(g), "readers read the last write's token")
	g = mustTry(ctx, t, w, request("k", "w2"))
	assert.False(t, g.Acquired, "the downgraded read hold excludes writers")
	require.NoError(t, r.Unlock(ctx, "k", "w1"))
	require.NoError(t, r.Unlock(ctx, "k", "r2"))

	g = mustTry(ctx, t, w, request("k", "w2"))
	require.True(t, g.Acquired)
	assert.Greater(t, g.Token, wg.Token, "the token rises with every write hold")
	require.NoError(t, w.Unlock(ctx, "k", "w2"))
	st, err := r.(driver.Inspector).Inspect(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, driver.State{Token: g.Token}, st, "a free lock keeps its counter")
}

// A writer refused with patience waits: new readers are refused while it
// does, readers that hold may re-enter, and the writer gets the lock when
// they leave. A writer that leaves the wait list (Dequeue) or whose
// patience runs out lets readers in again.
func TestRWLockWaitingWriter(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b := newBackend(t, c)
	r, w := view(t, b, readShare), view(t, b, writeShare)
	require.True(t, mustTry(ctx, t, r, request("k", "r1")).Acquired)
	waiting := request("k", "w")
	waiting.Patience = 10 * time.Second
	g := mustTry(ctx, t, w, waiting)
	require.False(t, g.Acquired)
	assert.Positive(t, g.Remaining)

	g = mustTry(ctx, t, r, request("k", "r2"))
	assert.False(t, g.Acquired, "a waiting writer keeps new readers out")
	assert.Greater(t, g.Remaining, 5*time.Second, "the writer's patience is in the way")
	assert.True(t, mustTry(ctx, t, r, request("k", "r1")).Acquired, "a reader that holds re-enters")
	require.NoError(t, r.Unlock(ctx, "k", "r1"))
	require.NoError(t, r.Unlock(ctx, "k", "r1"))
	g = mustTry(ctx, t, w, waiting)
	require.True(t, g.Acquired, "the writer gets the lock when the readers leave")
	require.NoError(t, w.Unlock(ctx, "k", "w"))
	assert.True(t, mustTry(ctx, t, r, request("k", "r2")).Acquired, "the writer left the wait list when it acquired")
	require.NoError(t, r.Unlock(ctx, "k", "r2"))

	// Dequeue.
	require.True(t, mustTry(ctx, t, r, request("k", "r1")).Acquired)
	require.False(t, mustTry(ctx, t, w, waiting).Acquired)
	require.False(t, mustTry(ctx, t, r, request("k", "r2")).Acquired)
	require.NoError(t, w.(driver.Dequeuer).Dequeue(ctx, "k", "w"))
	require.NoError(t, w.(driver.Dequeuer).Dequeue(ctx, "k", "w"), "a second Dequeue changes nothing")
	assert.True(t, mustTry(ctx, t, r, request("k", "r2")).Acquired, "a writer that left lets readers in")

	// Patience running out: the waiter's lease is a whole second.
	short := waiting
	short.Patience = time.Second
	require.False(t, mustTry(ctx, t, w, short).Acquired)
	require.False(t, mustTry(ctx, t, r, request("k", "r3")).Acquired)
	require.Eventually(t, func() bool { return mustTry(ctx, t, r, request("k", "r3")).Acquired }, 10*time.Second, 100*time.Millisecond,
		"a writer whose patience ran out lets readers in")
}
