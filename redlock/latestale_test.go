package redlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// TestALateMemberReleaseDropsNoLaterHold: the Unlocks a RedLock sent its
// members are held up in the network, and reach them after the same Mutex
// has locked again. They must not release that later hold: another owner
// must still be refused.
// The holds are a Mutex's, and an RWMutex's write holds, which are the
// same owner's every time too.
func TestALateMemberReleaseDropsNoLaterHold(t *testing.T) {
	stores := quorumtest.StartRedis(t, 3)
	t.Run("mutex", func(t *testing.T) {
		cs := stores.Clients(t)
		m, err := newMutex(t, newRL(t, cs, combine.WithRestartGuard(0)), "late-release")
		require.NoError(t, err)
		rival, err := newMutex(t, newRL(t, stores.Clients(t), combine.WithRestartGuard(0)), "late-release")
		require.NoError(t, err)
		lateMemberRelease(t, stores, cs, m.Lock, rival.TryLock)
	})
	t.Run("write", func(t *testing.T) {
		cs := stores.Clients(t)
		rw, err := storetest.Of(t, newRL(t, cs, combine.WithRestartGuard(0))).RWMutex("late-release")
		require.NoError(t, err)
		rival, err := storetest.Of(t, newRL(t, stores.Clients(t), combine.WithRestartGuard(0))).RWMutex("late-release")
		require.NoError(t, err)
		lateMemberRelease(t, stores, cs, rw.Lock, rival.TryLock)
	})
}

// lateMemberRelease takes a hold with take, releases it while every
// member's requests are held, takes it again, and lets the held releases
// through: rival must still be refused.
func lateMemberRelease(t *testing.T, stores *quorumtest.Redis, cs []driver.Backend, take, rival func(context.Context, ...locker.LockOption) (*locker.Lease, error)) {
	ctx := context.Background()
	l, err := take(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	for _, c := range cs {
		require.NoError(t, stores.HoldRequests(c))
	}
	uctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	err = l.Unlock(uctx)
	cancel()
	require.Error(t, err, "the releases' requests are held")

	l2, err := take(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	defer func() { _ = l2.Unlock(ctx) }()
	for _, c := range cs {
		require.NoError(t, stores.Heal(c))
	}
	time.Sleep(200 * time.Millisecond) // the held releases run

	_, err = rival(ctx, locker.WithLease(time.Minute))
	assert.ErrorIs(t, err, locker.ErrNotAcquired, "the late releases dropped the later hold")
}
