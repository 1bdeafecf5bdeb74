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

// TestSemaphorePermits: holds take their permits until the limit; a
// re-entry takes no more; tokens rise with every acquisition; the limit
// and the permits are checked while in use, and forgotten when idle.
func TestSemaphorePermits(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	two := share(t, b, driver.Share{Mode: driver.Permits, Limit: 5, Permits: 2})
	one := share(t, b, driver.Share{Mode: driver.Permits, Limit: 5, Permits: 1})
	ctx := context.Background()
	const key = "sem"
	a, c, d := locker.NewOwner(), locker.NewOwner(), locker.NewOwner()

	ga := try(t, two, driver.Request{Key: key, Owner: a})
	require.True(t, ga.Acquired)
	assert.Positive(t, ga.Uptime)
	gc := try(t, two, driver.Request{Key: key, Owner: c})
	require.True(t, gc.Acquired)
	assert.Greater(t, gc.Token, ga.Token, "every acquisition gets a higher token")
	again := try(t, two, driver.Request{Key: key, Owner: a})
	assert.Equal(t, 2, again.Holds)
	assert.Equal(t, ga.Token, again.Token, "a re-entry keeps its token and takes no permits")
	refused := try(t, two, driver.Request{Key: key, Owner: d})
	assert.False(t, refused.Acquired, "1 permit left, 2 asked")
	assert.Greater(t, refused.Remaining, 50*time.Second, "the shortest lease of the holders")
	// A floor a minute ahead of the tokens, which follow the server's
	// clock in µs: the token is the floor, however slow the machine.
	floor := gc.Token + uint64(time.Minute/time.Microsecond)
	gd := try(t, one, driver.Request{Key: key, Owner: d, Floor: floor})
	require.True(t, gd.Acquired, "the last permit")
	assert.Equal(t, floor, gd.Token, "at least the floor")

	_, err := one.TryLock(ctx, driver.Request{Key: key, Owner: a, TTL: time.Minute})
	assert.ErrorIs(t, err, driver.ErrInvalid, "a re-entry asking other permits")
	other := share(t, b, driver.Share{Mode: driver.Permits, Limit: 6, Permits: 1})
	_, err = other.TryLock(ctx, driver.Request{Key: key, Owner: locker.NewOwner(), TTL: time.Minute})
	assert.ErrorIs(t, err, driver.ErrInvalid, "another limit while in use")
	st, err := one.(driver.Inspector).Inspect(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, 5, st.Limit)
	require.Len(t, st.Holders, 3, "nothing changed")
	for _, h := range st.Holders {
		if h.Owner == a {
			assert.Equal(t, driver.Holder{Owner: a, Mode: driver.Permits, Holds: 2, Permits: 2, Remaining: h.Remaining, Token: ga.Token}, h)
		}
	}

	for _, o := range []string{a, a, c} {
		require.NoError(t, two.Unlock(ctx, key, o))
	}
	assert.ErrorIs(t, two.Unlock(ctx, key, c), driver.ErrNotHeld)
	require.NoError(t, one.Unlock(ctx, key, d))
	g := try(t, other, driver.Request{Key: key, Owner: a})
	require.True(t, g.Acquired, "an idle semaphore takes a new limit")
	assert.Greater(t, g.Token, gd.Token, "and keeps its counter")
	st, err = other.(driver.Inspector).Inspect(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, 6, st.Limit)
}

// TestSemaphoreWaitList: refused attempts with patience queue up in
// order; nobody overtakes a live waiter, not even a small request that
// would fit; a waiter whose patience ends, or who leaves, gives up its
// place.
func TestSemaphoreWaitList(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	big := share(t, b, driver.Share{Mode: driver.Permits, Limit: 3, Permits: 3})
	small := share(t, b, driver.Share{Mode: driver.Permits, Limit: 3, Permits: 1})
	ctx := context.Background()
	const key = "fifo"
	holder, first, second, late := locker.NewOwner(), locker.NewOwner(), locker.NewOwner(), locker.NewOwner()

	require.True(t, try(t, small, driver.Request{Key: key, Owner: holder, TTL: 500 * time.Millisecond}).Acquired)
	assert.False(t, try(t, big, driver.Request{Key: key, Owner: first, Patience: time.Minute}).Acquired)
	assert.False(t, try(t, small, driver.Request{Key: key, Owner: second, Patience: time.Minute}).Acquired,
		"two permits are free, but the first waiter is ahead")
	assert.False(t, try(t, small, driver.Request{Key: key, Owner: late}).Acquired, "without patience too")
	assert.False(t, try(t, big, driver.Request{Key: key, Owner: first, Patience: time.Minute}).Acquired, "the holder's permit")

	time.Sleep(600 * time.Millisecond) // the holder's lease ends
	assert.False(t, try(t, small, driver.Request{Key: key, Owner: second, Patience: time.Minute}).Acquired,
		"the first waiter keeps its place")
	refused := try(t, small, driver.Request{Key: key, Owner: late})
	assert.False(t, refused.Acquired)
	assert.Greater(t, refused.Remaining, 50*time.Second, "nobody holds: the first waiter's patience")
	require.True(t, try(t, big, driver.Request{Key: key, Owner: first, Patience: time.Minute}).Acquired)
	require.NoError(t, big.Unlock(ctx, key, first))
	assert.False(t, try(t, small, driver.Request{Key: key, Owner: late}).Acquired, "second is first now")
	require.NoError(t, small.(driver.Dequeuer).Dequeue(ctx, key, second))
	assert.True(t, try(t, small, driver.Request{Key: key, Owner: late}).Acquired, "second left")
	require.NoError(t, small.Unlock(ctx, key, late))

	// A waiter whose patience ends drops out.
	require.True(t, try(t, big, driver.Request{Key: key, Owner: holder}).Acquired)
	assert.False(t, try(t, small, driver.Request{Key: key, Owner: first, Patience: 200 * time.Millisecond}).Acquired)
	require.NoError(t, big.Unlock(ctx, key, holder))
	assert.False(t, try(t, small, driver.Request{Key: key, Owner: late}).Acquired, "first still waits")
	time.Sleep(250 * time.Millisecond)
	assert.True(t, try(t, small, driver.Request{Key: key, Owner: late}).Acquired, "first's patience ended")
}
