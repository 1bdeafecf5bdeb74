package redlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// TestStaleHoldOnAMajorityShows: members that still hold the lock for the
// owner (a hold resurrected by a failover, or left by a lost Unlock) make
// the grant's Holds 2 when a quorum of them has it, so that the owner sees
// it; two Unlocks drain them: the first drops a hold everywhere, the
// second the stale ones; a third finds the lock not held.
func TestStaleHoldOnAMajorityShows(t *testing.T) {
	ctx := context.Background()
	stores, _, rl := memRL(t, 3)
	stores.Take(t, "k", "o", time.Minute, 0, 1)

	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	assert.Equal(t, 2, g.Holds, "the stale hold of members 1 and 2 shows")

	require.NoError(t, rl.Unlock(ctx, "k", "o"))
	assert.Equal(t, []string{"o", "o", ""}, stores.Holders(t, "k"))
	require.NoError(t, rl.Unlock(ctx, "k", "o"), "members 1 and 2 are drained")
	assert.Equal(t, quorumtest.Repeat("", 3), stores.Holders(t, "k"))
	st, err := rl.(driver.Inspector).Inspect(ctx, "k")
	require.NoError(t, err)
	assert.False(t, st.Held)
	assert.ErrorIs(t, rl.Unlock(ctx, "k", "o"), locker.ErrNotHeld)
}

// TestStaleHoldsOnAMinorityStayHidden: holds that fewer than a quorum of
// members still have for the owner do not show in the grant's Holds, which
// is what a quorum has in common. Each Unlock drops one hold on every
// member, so showing them would have the owner's Mutex give them back on
// every member, and with them its own live hold on all the others: a
// re-entry that found two stale holds on one of five members then left
// the outer hold on that member alone, and another owner took the lock
// (quorumtest.ExclusionUnderFaults found it). They stay until their lease
// ends.
func TestStaleHoldsOnAMinorityStayHidden(t *testing.T) {
	ctx := context.Background()
	stores, _, rl := memRL(t, 5)
	s := storetest.Of(t, rl)
	owner := locker.NewOwner()
	outer, err := s.Mutex("k", locker.WithOwner(owner))
	require.NoError(t, err)
	inner, err := s.Mutex("k", locker.WithOwner(owner))
	require.NoError(t, err)

	l, err := outer.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	stores.Take(t, "k", owner, time.Minute, 4)
	stores.Take(t, "k", owner, time.Minute, 4) // member 5: three holds, two of them stale

	nested, err := inner.TryLock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 2, nested.Holds())
	for i := range 5 {
		assert.GreaterOrEqual(t, stores.State(t, i, "k").Holds, 2, "member %d keeps both live holds", i+1)
	}

	require.NoError(t, nested.Unlock(ctx))
	assert.Equal(t, quorumtest.Repeat(owner, 5), stores.Holders(t, "k"), "the outer hold is held everywhere")
	require.NoError(t, l.Unlock(ctx))
	assert.Equal(t, []string{"", "", "", "", owner}, stores.Holders(t, "k"), "member 5's stale holds stay until their lease ends")
}
