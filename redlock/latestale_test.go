package redlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
)

// TestALateMemberReleaseDropsNoLaterHold: the Unlocks a RedLock sent its
// members are held up in the network, and reach them after the same Mutex
// has locked again. They must not release that later hold: another owner
// must still be refused.
func TestALateMemberReleaseDropsNoLaterHold(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.StartRedis(t, 3)
	cs := stores.Clients(t)
	m, err := newMutex(t, newRL(t, cs, combine.WithRestartGuard(0)), "late-release")
	require.NoError(t, err)
	rival, err := newMutex(t, newRL(t, stores.Clients(t), combine.WithRestartGuard(0)), "late-release")
	require.NoError(t, err)

	l, err := m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	for _, c := range cs {
		require.NoError(t, stores.HoldRequests(c))
	}
	uctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	err = l.Unlock(uctx)
	cancel()
	require.Error(t, err, "the releases' requests are held")

	l2, err := m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	defer func() { _ = l2.Unlock(ctx) }()
	for _, c := range cs {
		require.NoError(t, stores.Heal(c))
	}
	time.Sleep(200 * time.Millisecond) // the held releases run

	_, err = rival.TryLock(ctx, locker.WithLease(time.Minute))
	assert.ErrorIs(t, err, locker.ErrNotAcquired, "the late releases dropped the later hold")
}
