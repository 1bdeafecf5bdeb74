package etcdlocker_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/locker"
)

// A semaphore lets holds in while their permits fit, in the order they
// asked: a waiter is not overtaken by a smaller request that would fit.
// Every acquisition gets a higher token; a re-entry keeps its own.
func TestSemaphoreFIFO(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b := newBackend(t, c)
	one, two := view(t, b, permits(1, 3)), view(t, b, permits(2, 3))

	a := mustTry(ctx, t, two, request("s", "a"))
	require.True(t, a.Acquired)
	g := mustTry(ctx, t, two, request("s", "a"))
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 2, Token: a.Token}, held(g), "a re-entry takes no more permits")
	waiting := request("s", "b")
	waiting.Patience = 10 * time.Second
	g = mustTry(ctx, t, two, waiting)
	require.False(t, g.Acquired, "2 of 3 permits are held")
	assert.Positive(t, g.Remaining)
	g = mustTry(ctx, t, one, request("s", "c"))
	assert.False(t, g.Acquired, "a free permit is not taken past a waiter")

	require.NoError(t, two.Unlock(ctx, "s", "a"))
	require.False(t, mustTry(ctx, t, two, waiting).Acquired, "a still holds one hold")
	require.NoError(t, two.Unlock(ctx, "s", "a"))
	g = mustTry(ctx, t, two, waiting)
	require.True(t, g.Acquired, "the first waiter gets in")
	assert.Greater(t, g.Token, a.Token)
	bToken := g.Token
	c1 := mustTry(ctx, t, one, request("s", "c"))
	require.True(t, c1.Acquired, "the last permit is free, and nobody waits")
	assert.Greater(t, c1.Token, g.Token)
	g = mustTry(ctx, t, one, request("s", "d"))
	assert.False(t, g.Acquired, "all permits are held")

	st, err := one.(driver.Inspector).Inspect(ctx, "s")
	require.NoError(t, err)
	require.Len(t, st.Holders, 2)
	for i, want := range []driver.Holder{
		{Owner: "b", Mode: driver.Permits, Holds: 1, Permits: 2, Token: bToken},
		{Owner: "c", Mode: driver.Permits, Holds: 1, Permits: 1, Token: c1.Token},
	} {
		h := st.Holders[i]
		assert.Positive(t, h.Remaining)
		h.Remaining = 0
		assert.Equal(t, want, h)
	}
	assert.True(t, st.Held)
	assert.Empty(t, st.Owner, "a semaphore has no writer")
	assert.Equal(t, 3, st.Limit)
	assert.Equal(t, c1.Token, st.Token, "the token of the last acquisition")
	assert.Greater(t, st.Remaining, 25*time.Second)
}

// The limit is stored with a semaphore in use: an attempt with another
// limit, or for other permits than the owner holds, fails and changes
// nothing. An unused semaphore forgets its limit and keeps its counter.
func TestSemaphoreLimit(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b := newBackend(t, c)
	of3, of4, two := view(t, b, permits(1, 3)), view(t, b, permits(1, 4)), view(t, b, permits(2, 3))
	g := mustTry(ctx, t, of3, request("s", "a"))
	require.True(t, g.Acquired)
	before := etcdKeys(ctx, t, c, "distlock/")
	_, err := of4.TryLock(ctx, request("s", "b"))
	assert.ErrorIs(t, err, locker.ErrInvalid, "another limit while in use")
	_, err = two.TryLock(ctx, request("s", "a"))
	assert.ErrorIs(t, err, locker.ErrInvalid, "other permits than the owner holds")
	assert.Equal(t, before, etcdKeys(ctx, t, c, "distlock/"), "nothing changed")

	require.NoError(t, of3.Unlock(ctx, "s", "a"))
	st, err := of4.(driver.Inspector).Inspect(ctx, "s")
	require.NoError(t, err)
	assert.Equal(t, driver.State{Token: g.Token}, st, "an unused semaphore keeps its counter only")
	g4 := mustTry(ctx, t, of4, request("s", "b"))
	require.True(t, g4.Acquired, "an unused semaphore takes a new limit")
	assert.Greater(t, g4.Token, g.Token)
	for _, o := range []string{"c", "d", "e"} {
		require.True(t, mustTry(ctx, t, of4, request("s", o)).Acquired, "4 permits")
	}
	assert.False(t, mustTry(ctx, t, of4, request("s", "f")).Acquired)
}

// A waiter keeps its place while it asks again within its patience, and
// loses it when its patience runs out or it leaves.
func TestSemaphoreWaitList(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b := newBackend(t, c)
	sem := view(t, b, permits(1, 1))
	require.True(t, mustTry(ctx, t, sem, request("s", "a")).Acquired)
	first, second := request("s", "w1"), request("s", "w2")
	first.Patience, second.Patience = 10*time.Second, 10*time.Second
	require.False(t, mustTry(ctx, t, sem, first).Acquired)
	require.False(t, mustTry(ctx, t, sem, second).Acquired)
	require.False(t, mustTry(ctx, t, sem, first).Acquired, "asking again keeps the place")
	require.NoError(t, sem.Unlock(ctx, "s", "a"))
	assert.False(t, mustTry(ctx, t, sem, second).Acquired, "the second waiter does not overtake the first")
	require.True(t, mustTry(ctx, t, sem, first).Acquired)
	require.NoError(t, sem.Unlock(ctx, "s", "w1"))
	assert.True(t, mustTry(ctx, t, sem, second).Acquired, "then the second is first")
	require.NoError(t, sem.Unlock(ctx, "s", "w2"))

	require.True(t, mustTry(ctx, t, sem, request("s", "a")).Acquired)
	require.False(t, mustTry(ctx, t, sem, first).Acquired)
	require.NoError(t, sem.(driver.Dequeuer).Dequeue(ctx, "s", "w1"))
	require.NoError(t, sem.Unlock(ctx, "s", "a"))
	assert.True(t, mustTry(ctx, t, sem, request("s", "x")).Acquired, "a waiter that left is not in the way")
	require.NoError(t, sem.Unlock(ctx, "s", "x"))

	short := request("s", "w3")
	short.Patience = time.Second
	require.True(t, mustTry(ctx, t, sem, request("s", "a")).Acquired)
	require.False(t, mustTry(ctx, t, sem, short).Acquired)
	require.NoError(t, sem.Unlock(ctx, "s", "a"))
	require.False(t, mustTry(ctx, t, sem, request("s", "y")).Acquired, "w3 waits")
	require.Eventually(t, func() bool { return mustTry(ctx, t, sem, request("s", "y")).Acquired }, 10*time.Second, 100*time.Millisecond,
		"a waiter whose patience ran out is not in the way")
}
