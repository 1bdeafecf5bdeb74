package redlock_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
)

func TestUnlockOutcomes(t *testing.T) {
	ctx := context.Background()
	clock := memlocker.NewManualClock(epoch)
	stores := quorumtest.NewMem(5, memlocker.WithClock(clock))
	cs := stores.Clients()
	rl := newRL(t, quorumtest.Backends(cs), combine.WithClock(clock))
	lock := func(key string) {
		g, err := rl.TryLock(ctx, driver.Request{Key: key, Owner: "o", TTL: 10 * time.Second})
		require.NoError(t, err)
		require.True(t, g.Acquired)
	}

	// Held everywhere: released everywhere.
	lock("all")
	require.NoError(t, rl.Unlock(ctx, "all", "o"))
	assert.Equal(t, quorumtest.Repeat("", 5), stores.Holders(t, "all"))
	assert.ErrorIs(t, rl.Unlock(ctx, "all", "o"), locker.ErrNotHeld, "unlocking twice")

	// The lease ran out.
	lock("expired")
	clock.Advance(11 * time.Second)
	assert.ErrorIs(t, rl.Unlock(ctx, "expired", "o"), locker.ErrNotHeld)

	// Only two members still hold it: not held, but those two are released.
	lock("minority")
	stores.Force(t, "minority", 0, 1, 2)
	assert.ErrorIs(t, rl.Unlock(ctx, "minority", "o"), locker.ErrNotHeld)
	assert.Equal(t, quorumtest.Repeat("", 5), stores.Holders(t, "minority"))

	// Three members out of reach: the outcome is unknown. Once they are
	// back, the release completes by itself, in the background.
	lock("cut")
	for _, c := range cs[:3] {
		c.Partition()
	}
	err := rl.Unlock(ctx, "cut", "o")
	require.Error(t, err)
	assert.False(t, isSentinel(err), "%v", err)
	assert.Equal(t, []string{"o", "o", "o", "", ""}, stores.Holders(t, "cut"))
	for _, c := range cs[:3] {
		c.Heal()
	}
	require.Eventually(t, func() bool {
		return slices.Equal(quorumtest.Repeat("", 5), stores.Holders(t, "cut"))
	}, 10*time.Second, 10*time.Millisecond, "the members whose Unlock got no answer are released once they answer")
	assert.ErrorIs(t, rl.Unlock(ctx, "cut", "o"), locker.ErrNotHeld, "nothing is left to unlock")

	// Two members out of reach: three releases are a quorum, and the two
	// are released once they are back.
	lock("two cut")
	cs[0].Partition()
	cs[4].Partition()
	require.NoError(t, rl.Unlock(ctx, "two cut", "o"))
	cs[0].Heal()
	cs[4].Heal()
	require.Eventually(t, func() bool {
		return slices.Equal(quorumtest.Repeat("", 5), stores.Holders(t, "two cut"))
	}, 10*time.Second, 10*time.Millisecond, "the two cut members are released once they answer")
}

func TestRenewalOutcomes(t *testing.T) {
	ctx := context.Background()
	stores, cs, rl := memRL(t, 5)
	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: 10 * time.Second})
	require.NoError(t, err)
	require.True(t, g.Acquired)

	require.NoError(t, rl.Expire(ctx, "k", "o", time.Minute))
	assert.Greater(t, stores.State(t, 2, "k").Remaining, 50*time.Second)
	assert.ErrorIs(t, rl.Expire(ctx, "k", "other", time.Minute), locker.ErrNotHeld)

	cs[0].Partition()
	cs[1].Partition()
	require.NoError(t, rl.Expire(ctx, "k", "o", time.Minute), "three renewals are a quorum")
	cs[2].Partition()
	err = rl.Expire(ctx, "k", "o", time.Minute)
	require.Error(t, err)
	assert.False(t, isSentinel(err), "three members out of reach: unknown, %v", err)
	for _, c := range cs[:3] {
		c.Heal()
	}
	stores.Force(t, "k", 0, 1, 2)
	assert.ErrorIs(t, rl.Expire(ctx, "k", "o", time.Minute), locker.ErrNotHeld, "the quorum is gone")
}

// TestWatchdogNoticesLostQuorum: when a majority of the members lose the
// lock, the Mutex's next renewal gets ErrNotHeld and the lease ends.
func TestWatchdogNoticesLostQuorum(t *testing.T) {
	ctx := context.Background()
	stores, _, rl := memRL(t, 5)
	m, err := newMutex(t, rl, "k", locker.WithWatchdogLease(300*time.Millisecond))
	require.NoError(t, err)
	l, err := m.Lock(ctx)
	require.NoError(t, err)

	time.Sleep(400 * time.Millisecond)
	stores.Force(t, "k", 0, 1)
	select {
	case <-l.Done():
		t.Fatalf("two lost members must not end the lease: %v", l.Err())
	case <-time.After(300 * time.Millisecond):
	}
	stores.Force(t, "k", 2)
	select {
	case <-l.Done():
		assert.ErrorIs(t, l.Err(), locker.ErrLost)
	case <-time.After(5 * time.Second):
		t.Fatal("the lease did not end when the quorum was lost")
	}
	assert.ErrorIs(t, l.Unlock(ctx), locker.ErrLost)
	assert.Equal(t, quorumtest.Repeat("", 5), stores.Holders(t, "k"))
}

// TestExpireBatch sends each member one batch, or one Expire per renewal
// to a member that cannot batch, and judges each renewal by the quorum.
func TestExpireBatch(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(5)
	cs := stores.Clients()
	members := quorumtest.Backends(cs)
	members[4] = quorumtest.Bare{Backend: cs[4]}
	rl := newRL(t, members)
	for _, key := range []string{"a", "b"} {
		g, err := rl.TryLock(ctx, driver.Request{Key: key, Owner: "o", TTL: 10 * time.Second})
		require.NoError(t, err)
		require.True(t, g.Acquired)
	}
	stores.Force(t, "b", 0, 1, 2)
	errs := rl.(driver.BatchExpirer).ExpireBatch(ctx, []driver.Renewal{
		{Key: "a", Owner: "o", TTL: time.Minute},
		{Key: "a", Owner: "other", TTL: time.Minute},
		{Key: "b", Owner: "o", TTL: time.Minute},
		{Key: "free", Owner: "o", TTL: time.Minute},
		{Key: "", Owner: "o", TTL: time.Minute},
		{Key: "a", Owner: "o", TTL: 0},
	})
	require.Len(t, errs, 6)
	assert.NoError(t, errs[0])
	assert.ErrorIs(t, errs[1], locker.ErrNotHeld)
	assert.ErrorIs(t, errs[2], locker.ErrNotHeld, "a renewal the quorum lost")
	assert.ErrorIs(t, errs[3], locker.ErrNotHeld)
	assert.ErrorIs(t, errs[4], locker.ErrInvalid)
	assert.ErrorIs(t, errs[5], locker.ErrInvalid)
	for i, c := range cs[:4] {
		assert.Equal(t, 1, c.Calls("expirebatch"), "member %d gets one batch", i)
		assert.Zero(t, c.Calls("expire"), "member %d", i)
	}
	assert.Equal(t, 4, cs[4].Calls("expire"), "a member that cannot batch gets one call per valid renewal")
	assert.Greater(t, stores.State(t, 0, "a").Remaining, 50*time.Second)
	assert.Empty(t, rl.(driver.BatchExpirer).ExpireBatch(ctx, nil))
}
