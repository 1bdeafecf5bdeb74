package redlock_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/multilock"
	"github.com/distlock/distlock/redlock"
)

// TestRedLockOfMultiLocks composes combinators: three MultiLocks of two
// stores each, any two of which make the lock.
func TestRedLockOfMultiLocks(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(6)
	var cs []*memlocker.Client
	newMember := func(i int) driver.Backend {
		a, b := stores.Store(2*i).Client(), stores.Store(2*i+1).Client()
		cs = append(cs, a, b)
		ml, err := multilock.New([]driver.Backend{a, b})
		require.NoError(t, err)
		return ml
	}
	rl := newRL(t, []driver.Backend{newMember(0), newMember(1), newMember(2)})
	assert.Equal(t, 3, strings.Count(fmt.Sprint(rl), "multilock("), "three members (any two make the lock: see TestQuorumSize)")

	var last uint64
	for round := range 3 {
		m, err := newMutex(t, rl, "k")
		require.NoError(t, err)
		l, err := m.Lock(ctx, locker.WithLease(time.Minute))
		require.NoError(t, err, "round %d", round)
		assert.Greater(t, l.Token(), last)
		last = l.Token()
		assert.Equal(t, quorumtest.Repeat(m.Owner(), 6), stores.Holders(t, "k"))
		st, err := m.Inspect(ctx)
		require.NoError(t, err)
		assert.Equal(t, m.Owner(), st.Owner)
		assert.Equal(t, l.Token(), st.Token)
		require.NoError(t, l.Unlock(ctx))
		assert.Equal(t, quorumtest.Repeat("", 6), stores.Holders(t, "k"))
	}

	// One store of the first MultiLock is cut off: that MultiLock fails,
	// the other two make the quorum.
	cs[0].Partition()
	m, err := newMutex(t, rl, "k")
	require.NoError(t, err)
	l, err := m.TryLock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	assert.Greater(t, l.Token(), last)
	assert.Equal(t, []string{"", "", m.Owner(), m.Owner(), m.Owner(), m.Owner()}, stores.Holders(t, "k"))
	require.NoError(t, l.Unlock(ctx))
}

// TestMixedGranularity: leases are rounded up to the coarsest member's
// granularity, so every member holds the same lease.
func TestMixedGranularity(t *testing.T) {
	ctx := context.Background()
	coarse := memlocker.NewStore(memlocker.WithGranularity(time.Second))
	fine := quorumtest.NewMem(2)
	rl := newRL(t, []driver.Backend{coarse.Client(), fine.Store(0).Client(), fine.Store(1).Client()})
	assert.Equal(t, time.Second, driver.Granularity(rl))
	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: 1500 * time.Millisecond})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	for i := range 2 {
		assert.Greater(t, fine.State(t, i, "k").Remaining, 1500*time.Millisecond, "fine store %d", i)
	}
	assert.LessOrEqual(t, g.Validity, 1500*time.Millisecond, "the validity counts from the lease asked for")
	assert.Greater(t, g.Validity, time.Second)
}

// TestComposedExclusionUnderFaults: RedLocks of three MultiLocks of two
// members each, whose member calls fail at random and whose holders
// re-enter, never let two owners' live leases overlap (see
// quorumtest.ExclusionUnderFaults).
func TestComposedExclusionUnderFaults(t *testing.T) {
	quorumtest.ExclusionUnderFaults(t, quorumtest.NewMem(6), func(members []driver.Backend) (driver.Backend, error) {
		pairs := make([]driver.Backend, 0, 3)
		for i := 0; i < len(members); i += 2 {
			ml, err := multilock.New(members[i : i+2])
			if err != nil {
				for _, p := range pairs {
					_ = p.Close()
				}
				return nil, err
			}
			pairs = append(pairs, ml)
		}
		return redlock.New(pairs)
	}, 4, 3*time.Second)
}
