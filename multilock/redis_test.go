package multilock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/multilock"
)

// TestConformanceRedis runs the backend contract on a MultiLock of five
// real Redis servers. The suite takes leases of a few hundred milliseconds
// on clients whose first call dials a connection (through a proxy, under
// the race detector): the default member timeout, a tenth of such a lease
// before any round trip was seen (50 ms at least), could time such calls
// out, and a MultiLock tolerates no member failing, so it is set higher.
func TestConformanceRedis(t *testing.T) {
	conformance.Run(t, func(_ context.Context, t *testing.T) (conformance.Harness, error) {
		return quorumtest.NewHarness(quorumtest.StartRedis(t, 5), func(members []driver.Backend) (driver.Backend, error) {
			return multilock.New(members, combine.WithMemberTimeout(memberTimeout))
		}), nil
	})
}

// TestRedisKilledServer: with one server of three killed, a MultiLock
// cannot be taken; the attempt fails cleanly, with ErrUnavailable: nobody
// holds the lock, the stores could not decide.
func TestRedisKilledServer(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.StartRedis(t, 3)
	ml := newML(t, stores.Clients(t), combine.WithMemberTimeout(memberTimeout))
	m, err := newMutex(t, ml, "k")
	require.NoError(t, err)
	l, err := m.TryLock(ctx, locker.WithLease(10*time.Second))
	require.NoError(t, err)
	require.NoError(t, l.Unlock(ctx))

	stores.Server(1).KillAndHold()
	_, err = m.TryLock(ctx, locker.WithWait(500*time.Millisecond), locker.WithLease(10*time.Second))
	assert.ErrorIs(t, err, locker.ErrUnavailable)
	assert.NotErrorIs(t, err, locker.ErrNotAcquired)
	for _, i := range []int{0, 2} {
		assert.False(t, stores.State(t, i, "k").Held, "server %d: the failed attempts left nothing behind", i)
	}
}
