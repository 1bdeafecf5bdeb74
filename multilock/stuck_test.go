package multilock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// TestAWaiterHeldOffBehindTheGateDoesNotSpin: a waiter that takes the gate
// and is refused by another member, whose holder holds no hold at the gate
// (here another owner's, taken on that member alone), is in line nowhere,
// and no turn will come. It neither asks again at once, again and again,
// nor sleeps through the release: it backs off from a millisecond, and
// asks again as soon as that member releases.
func TestAWaiterHeldOffBehindTheGateDoesNotSpin(t *testing.T) {
	ctx := context.Background()
	stores, cs, ml := memML(t, 3)
	gate := 0
	for i, c := range cs {
		if c.Endpoint() < cs[gate].Endpoint() {
			gate = i
		}
	}
	other := stores.Clients()[(gate+1)%len(cs)]
	m, err := newMutex(t, ml, "k")
	require.NoError(t, err)

	// A hold that runs out: no release is published, so only the
	// back-off brings the waiter back.
	g, err := other.TryLock(ctx, driver.Request{Key: "k", Owner: "other", TTL: 400 * time.Millisecond})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	before := cs[gate].Calls("trylockqueued")
	l, err := m.Lock(ctx, locker.WithLease(time.Minute), locker.WithWait(5*time.Second))
	require.NoError(t, err)
	attempts := cs[gate].Calls("trylockqueued") - before
	t.Logf("%d attempts at the gate", attempts)
	assert.LessOrEqual(t, attempts, 20, "attempts at the gate while another member was held for 400 ms")
	require.NoError(t, l.Unlock(ctx))

	// A hold that is released: the waiter hears the release.
	g, err = other.TryLock(ctx, driver.Request{Key: "k", Owner: "other", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	released := make(chan time.Time, 1)
	go func() {
		time.Sleep(400 * time.Millisecond)
		released <- time.Now()
		assert.NoError(t, other.Unlock(ctx, "k", "other"))
	}()
	l, err = m.Lock(ctx, locker.WithLease(time.Minute), locker.WithWait(5*time.Second))
	require.NoError(t, err)
	took := time.Since(<-released)
	assert.Less(t, took, 150*time.Millisecond, "the waiter took the lock %v after the release (its back-off alone could wait a few hundred ms more)", took)
	require.NoError(t, l.Unlock(ctx))
}
