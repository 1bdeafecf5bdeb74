package multilock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/locker"
)

// TestDistantMembers: members 100 ms away are usable with the default
// settings and a 10 s lease: the member timeout follows the round trips it
// sees, not a fixed share of the lease. A member down fails the attempt
// with ErrUnavailable, and a member another owner holds with
// ErrNotAcquired through a Mutex.
func TestDistantMembers(t *testing.T) {
	ctx := context.Background()
	stores, cs, ml := memML(t, 3)
	for _, c := range cs {
		c.SetLatency(100 * time.Millisecond)
	}
	m, err := newMutex(t, ml, "k")
	require.NoError(t, err)
	for i := range 3 {
		l, err := m.TryLock(ctx, locker.WithLease(10*time.Second))
		require.NoError(t, err, "attempt %d", i)
		require.NoError(t, l.Unlock(ctx))
	}

	cs[2].Partition()
	_, err = m.TryLock(ctx, locker.WithLease(10*time.Second))
	assert.ErrorIs(t, err, locker.ErrUnavailable)
	assert.NotErrorIs(t, err, locker.ErrNotAcquired)
	cs[2].Heal()

	stores.Take(t, "k", "x", time.Minute, 2)
	_, err = m.TryLock(ctx, locker.WithLease(10*time.Second))
	assert.ErrorIs(t, err, locker.ErrNotAcquired)
	assert.NotErrorIs(t, err, locker.ErrUnavailable)
}
