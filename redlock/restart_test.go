package redlock_test

import (
	"context"
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

// TestRestartGuard: three of five stores restart without persistence while
// X holds the lock, forgetting X's hold there. Another owner could then win
// those three and hold the lock with X; the restart guard keeps restarted
// stores out of any quorum for one maximum lease.
func TestRestartGuard(t *testing.T) {
	ctx := context.Background()
	clock := memlocker.NewManualClock(epoch)
	stores := quorumtest.NewMem(5, memlocker.WithClock(clock))
	x := newRL(t, quorumtest.Backends(stores.Clients()), combine.WithClock(clock))
	gx, err := x.TryLock(ctx, driver.Request{Key: "k", Owner: "X", TTL: 10 * time.Second})
	require.NoError(t, err)
	require.True(t, gx.Acquired)

	for i := range 3 {
		stores.Store(i).Restart()
	}
	clock.Advance(time.Second) // X's lease has 9 s left on stores 3 and 4

	y := newRL(t, quorumtest.Backends(stores.Clients()), combine.WithClock(clock))
	gy, err := y.TryLock(ctx, driver.Request{Key: "k", Owner: "Y", TTL: 10 * time.Second})
	require.ErrorIs(t, err, locker.ErrUnavailable, "the stores could not decide")
	assert.NotErrorIs(t, err, locker.ErrNotAcquired)
	assert.ErrorContains(t, err, "restart guard")
	assert.False(t, gy.Acquired, "restarted stores must not vote within the guard")
	assert.Equal(t, []string{"", "", "", "X", "X"}, stores.Holders(t, "k"), "Y's holds on the restarted stores are released")

	// This is the hazard the guard closes.
	unguarded := newRL(t, quorumtest.Backends(stores.Clients()), combine.WithClock(clock), combine.WithRestartGuard(0))
	gu, err := unguarded.TryLock(ctx, driver.Request{Key: "k", Owner: "Z", TTL: 10 * time.Second})
	require.NoError(t, err)
	require.True(t, gu.Acquired, "without the guard a second owner wins while X holds the lock")
	require.NoError(t, unguarded.Unlock(ctx, "k", "Z"))

	// After the guard (30 s by default), the stores vote again.
	clock.Advance(combine.DefaultRestartGuard)
	gy, err = y.TryLock(ctx, driver.Request{Key: "k", Owner: "Y", TTL: 10 * time.Second})
	require.NoError(t, err)
	assert.True(t, gy.Acquired)
	assert.Equal(t, []string{"Y", "Y", "Y", "Y", "Y"}, stores.Holders(t, "k"))
}

// TestRestartGuardCoversTheLease: the guard lasts at least the attempt's
// lease, even when set shorter.
func TestRestartGuardCoversTheLease(t *testing.T) {
	ctx := context.Background()
	clock := memlocker.NewManualClock(epoch)
	stores := quorumtest.NewMem(5, memlocker.WithClock(clock))
	rl := newRL(t, quorumtest.Backends(stores.Clients()), combine.WithClock(clock), combine.WithRestartGuard(time.Second))
	for i := range 3 {
		stores.Store(i).Restart()
	}
	stores.Take(t, "k", "X", time.Hour, 3, 4)

	clock.Advance(5 * time.Second)
	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: "Y", TTL: 10 * time.Second})
	require.ErrorIs(t, err, locker.ErrUnavailable)
	assert.False(t, g.Acquired, "5 s after a restart is within a 10 s lease")

	clock.Advance(6 * time.Second)
	g, err = rl.TryLock(ctx, driver.Request{Key: "k", Owner: "Y", TTL: 10 * time.Second})
	require.NoError(t, err)
	assert.True(t, g.Acquired)
	assert.Equal(t, 11*time.Second, g.Uptime, "the grant reports the youngest voting store's uptime")
}

// TestRestartedMemberStillReleased: a member left out by the guard is
// taken and released like any other, and does not block a quorum of the
// others.
func TestRestartedMemberStillReleased(t *testing.T) {
	ctx := context.Background()
	clock := memlocker.NewManualClock(epoch)
	stores := quorumtest.NewMem(5, memlocker.WithClock(clock))
	rl := newRL(t, quorumtest.Backends(stores.Clients()), combine.WithClock(clock))
	stores.Store(0).Restart()
	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: "Y", TTL: 10 * time.Second})
	require.NoError(t, err)
	require.True(t, g.Acquired, "four voting stores are enough")
	assert.Equal(t, []string{"Y", "Y", "Y", "Y", "Y"}, stores.Holders(t, "k"))
	require.NoError(t, rl.Unlock(ctx, "k", "Y"))
	assert.Equal(t, quorumtest.Repeat("", 5), stores.Holders(t, "k"))
}
