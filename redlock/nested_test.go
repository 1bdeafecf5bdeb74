package redlock_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/multilock"
)

// TestUnavailableMemberNeedsNoRelease: a member that reports
// ErrUnavailable (here a MultiLock with a member out of reach) has taken
// nothing: it counts as failed, and the RedLock does not release it (the
// MultiLock released its own members already).
func TestUnavailableMemberNeedsNoRelease(t *testing.T) {
	ctx := context.Background()
	inner := quorumtest.NewMem(2)
	ic := inner.Clients()
	ml, err := multilock.New(quorumtest.Backends(ic))
	require.NoError(t, err)
	_, cs, _ := memRL(t, 2)
	rl := newRL(t, []driver.Backend{ml, cs[0], cs[1]})
	ic[1].Partition()

	g, err := rl.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired, "two of three")
	assert.Equal(t, ic[0].Calls("trylock"), ic[0].Calls("unlock"),
		"the MultiLock's reachable member is released once, if it was taken, by the MultiLock itself")
	require.NoError(t, rl.Unlock(ctx, "k", "o"))
}
