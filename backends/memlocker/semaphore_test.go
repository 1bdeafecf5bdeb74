package memlocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

func TestSemaphoreCapacity(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	one, two, three := r.view(permits(5, 1)), r.view(permits(5, 2)), r.view(permits(5, 3))
	steps := []struct {
		name  string
		view  driver.Backend
		owner string
		ttl   time.Duration
		want  driver.Grant
	}{
		{"two of five", two, "a", 2 * time.Minute, driver.Grant{Acquired: true, Holds: 1, Token: 1}},
		{"three more", three, "b", time.Minute, driver.Grant{Acquired: true, Holds: 1, Token: 2}},
		{"none left", one, "c", time.Minute, driver.Grant{Remaining: time.Minute}},
		{"re-entry takes no more permits", two, "a", 2 * time.Minute, driver.Grant{Acquired: true, Holds: 2, Token: 1}},
	}
	for _, s := range steps {
		assert.Equal(t, s.want, r.try(s.view, "k", s.owner, s.ttl, 0), s.name)
	}
	require.NoError(t, three.Unlock(ctx, "k", "b"))
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 1, Token: 3}, r.try(one, "k", "c", time.Minute, 0), "the permits freed")
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 1, Token: 4}, r.try(two, "k", "d", time.Minute, 0))
	assert.False(t, r.try(one, "k", "e", time.Minute, 0).Acquired, "2+1+2 of 5")
	require.NoError(t, two.Unlock(ctx, "k", "a"))
	assert.False(t, r.try(one, "k", "e", time.Minute, 0).Acquired, "one hold of two dropped frees nothing")
	require.NoError(t, two.Unlock(ctx, "k", "a"))
	assert.True(t, r.try(one, "k", "e", time.Minute, 0).Acquired, "the last hold frees the owner's permits")
}

func TestSemaphoreLimitMismatch(t *testing.T) {
	r := newShareRig(t)
	sem, other := r.view(permits(3, 1)), r.view(permits(4, 1))
	r.holds(sem, "k", "a", time.Minute)
	r.try(r.view(permits(3, 3)), "k", "w", time.Minute, 10*time.Second)
	before := r.state(sem, "k")
	require.Equal(t, 3, before.Limit)

	for _, owner := range []string{"b", "a", "w"} {
		_, err := other.TryLock(context.Background(), driver.Request{Key: "k", Owner: owner, TTL: time.Hour, Patience: time.Hour})
		assert.ErrorIs(t, err, driver.ErrInvalid, "%s asks with another limit", owner)
	}
	assert.Equal(t, before, r.state(sem, "k"), "nothing changed")

	// Waiters alone keep the limit too.
	require.NoError(t, sem.Unlock(context.Background(), "k", "a"))
	_, err := other.TryLock(context.Background(), driver.Request{Key: "k", Owner: "b", TTL: time.Minute})
	assert.ErrorIs(t, err, driver.ErrInvalid, "a waiter keeps the semaphore in use")
}

func TestSemaphoreIdleForgetsItsLimit(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	sem := r.view(permits(3, 1))
	g := r.holds(sem, "k", "a", time.Minute)
	require.NoError(t, sem.Unlock(ctx, "k", "a"))
	assert.Equal(t, driver.State{Token: g.Token}, r.state(sem, "k"), "an unused semaphore keeps its counter, not its limit")
	again := r.holds(r.view(permits(7, 7)), "k", "b", time.Minute)
	assert.Equal(t, g.Token+1, again.Token, "the counter goes on under the new limit")
	assert.Equal(t, 7, r.state(sem, "k").Limit)

	// A lease that runs out, or a waiter whose patience does, leaves an
	// unused semaphore too.
	r.clock.Advance(time.Minute)
	r.try(r.view(permits(2, 1)), "k", "c", time.Second, 0)
	assert.Equal(t, 2, r.state(sem, "k").Limit)
	r.clock.Advance(time.Second)
	assert.Zero(t, r.state(sem, "k").Limit)
}

func TestSemaphoreFIFO(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	one, two, three := r.view(permits(3, 1)), r.view(permits(3, 2)), r.view(permits(3, 3))
	heard := r.heard(one, "k")
	r.holds(two, "k", "a", time.Minute)

	assert.Equal(t, driver.Grant{Remaining: time.Minute}, r.try(three, "k", "big", time.Minute, 10*time.Second), "the big request waits")
	assert.Equal(t, driver.Grant{Remaining: time.Minute}, r.try(one, "k", "small", time.Minute, 10*time.Second), "a small one, for which a permit is free, does not overtake it")
	assert.False(t, r.try(one, "k", "plain", time.Minute, 0).Acquired, "nor does one without patience")
	assert.False(t, r.try(one, "k", "small", time.Minute, 10*time.Second).Acquired, "asking again keeps a waiter's place behind the big one")

	require.NoError(t, two.Unlock(ctx, "k", "a"))
	assert.Equal(t, 1, heard())
	assert.False(t, r.try(one, "k", "small", time.Minute, 10*time.Second).Acquired, "the head of the line comes first")
	assert.True(t, r.try(three, "k", "big", time.Minute, 10*time.Second).Acquired)
	assert.Equal(t, 1, heard(), "the waiter that acquired left the list")
	assert.Equal(t, driver.Grant{Remaining: time.Minute}, r.try(one, "k", "small", time.Minute, 10*time.Second))
	require.NoError(t, three.Unlock(ctx, "k", "big"))
	assert.True(t, r.try(one, "k", "small", time.Minute, 0).Acquired, "next in line")
}

func TestSemaphoreLapsedWaiter(t *testing.T) {
	r := newShareRig(t)
	one, three := r.view(permits(3, 1)), r.view(permits(3, 3))
	heard := r.heard(one, "k")
	r.holds(one, "k", "a", time.Minute)
	r.try(three, "k", "big", time.Minute, 10*time.Second)
	assert.False(t, r.try(one, "k", "small", time.Minute, 0).Acquired)
	r.clock.Advance(10 * time.Second)
	assert.True(t, r.try(one, "k", "small", time.Minute, 0).Acquired, "a waiter whose patience lapsed blocks nobody")
	assert.Equal(t, 1, heard(), "the store, finding the lapse, tells the watchers")
}

func TestSemaphoreRemaining(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	one, three := r.view(permits(3, 1)), r.view(permits(3, 3))
	r.holds(one, "k", "a", 2*time.Minute)
	r.holds(one, "k", "b", time.Minute)
	assert.Equal(t, driver.Grant{Remaining: time.Minute}, r.try(three, "k", "big", time.Minute, 10*time.Second), "the shortest lease of the holders")
	require.NoError(t, one.Unlock(ctx, "k", "a"))
	require.NoError(t, one.Unlock(ctx, "k", "b"))
	r.clock.Advance(time.Second)
	assert.Equal(t, driver.Grant{Remaining: 9 * time.Second}, r.try(one, "k", "c", time.Minute, 0), "the first waiter's patience when nobody holds")
}

func TestSemaphoreDequeue(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	one, three := r.view(permits(3, 1)), r.view(permits(3, 3))
	r.holds(one, "k", "a", time.Minute)
	r.try(three, "k", "big", time.Minute, 10*time.Second)
	heard := r.heard(one, "k")
	require.NoError(t, one.(driver.Dequeuer).Dequeue(ctx, "k", "a"))
	assert.Zero(t, heard(), "a holder does not wait: nothing changes")
	assert.True(t, r.state(one, "k").Held, "Dequeue never drops a hold")
	require.NoError(t, three.(driver.Dequeuer).Dequeue(ctx, "k", "big"))
	assert.Equal(t, 1, heard())
	assert.True(t, r.try(one, "k", "small", time.Minute, 0).Acquired, "the waiter left")
}

func TestSemaphoreTokens(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	sem := r.view(permits(2, 1))
	var last uint64
	for i, floor := range []uint64{0, 0, 30, 5, 0} {
		g, err := sem.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute, Floor: floor})
		require.NoError(t, err)
		assert.Greater(t, g.Token, last, "acquisition %d: tokens rise strictly", i)
		assert.GreaterOrEqual(t, g.Token, floor, "acquisition %d: at least the floor", i)
		again := r.holds(sem, "k", "o", time.Minute)
		assert.Equal(t, g.Token, again.Token, "re-entry keeps the token")
		other := r.holds(sem, "k", "other", time.Minute)
		assert.Greater(t, other.Token, g.Token, "a second holder at once gets a token of its own")
		last = other.Token
		require.NoError(t, sem.Unlock(ctx, "k", "o"))
		require.NoError(t, sem.Unlock(ctx, "k", "o"))
		require.NoError(t, sem.Unlock(ctx, "k", "other"))
	}
	assert.Equal(t, uint64(35), last)

	assert.Equal(t, uint64(36), r.holds(sem, "k", "o", time.Minute).Token)
	require.NoError(t, sem.(driver.Fencer).Fence(ctx, "k", "o", 100))
	assert.ErrorIs(t, sem.(driver.Fencer).Fence(ctx, "k", "x", 100), driver.ErrNotHeld)
	assert.Equal(t, uint64(100), r.holds(sem, "k", "o", time.Minute).Token, "Fence raises the hold's token")
	assert.Equal(t, uint64(101), r.holds(sem, "k", "p", time.Minute).Token, "and the counter")
}

func TestSemaphoreReentryWithOtherPermits(t *testing.T) {
	r := newShareRig(t)
	r.holds(r.view(permits(3, 1)), "k", "a", time.Minute)
	before := r.state(r.view(permits(3, 1)), "k")
	_, err := r.view(permits(3, 2)).TryLock(context.Background(), driver.Request{Key: "k", Owner: "a", TTL: time.Hour})
	assert.ErrorIs(t, err, driver.ErrInvalid)
	assert.Equal(t, before, r.state(r.view(permits(3, 1)), "k"), "nothing changed")
}

func TestSemaphoreInspect(t *testing.T) {
	r := newShareRig(t)
	one, two := r.view(permits(4, 1)), r.view(permits(4, 2))
	r.holds(two, "k", "b", time.Minute)
	r.holds(one, "k", "a", 2*time.Minute)
	r.holds(one, "k", "a", 3*time.Minute)
	assert.Equal(t, driver.State{
		Held: true, Remaining: 3 * time.Minute, Token: 2, Limit: 4,
		Holders: []driver.Holder{
			{Owner: "a", Mode: driver.Permits, Holds: 2, Permits: 1, Remaining: 3 * time.Minute, Token: 2},
			{Owner: "b", Mode: driver.Permits, Holds: 1, Permits: 2, Remaining: time.Minute, Token: 1},
		},
	}, r.state(one, "k"), "no writer: no Owner")

	force := one.(driver.ForceUnlocker)
	r.try(r.view(permits(4, 4)), "k", "w", time.Minute, 10*time.Second)
	held, err := force.ForceUnlock(context.Background(), "k")
	require.NoError(t, err)
	assert.True(t, held)
	assert.Equal(t, driver.State{Token: 2, Limit: 4}, r.state(one, "k"), "the waiter keeps the semaphore, and its limit")
	assert.True(t, r.try(r.view(permits(4, 4)), "k", "w", time.Minute, 0).Acquired, "the waiter comes first")
}
