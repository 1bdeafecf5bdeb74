package redislocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// hardenedACL is the common hardening: every command but the dangerous
// ones, on the backend's keys and channels only.
var hardenedACL = []string{"ACL", "SETUSER", "locks", "on", ">pw", "~distlock:*", "&distlock:*", "+@all", "-@dangerous"}

// TestHardenedACLUser takes, renews and releases a lock, and a shared
// hold of every kind, as a user without @dangerous (no INFO): it works,
// with an unknown uptime.
func TestHardenedACLUser(t *testing.T) {
	srv := redistest.Start(t)
	_, err := srv.Do(hardenedACL...)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := driver.Open(ctx, "redis://locks:pw@"+srv.Addr())
	require.NoError(t, err)
	defer b.Close()

	locks := []driver.Backend{b}
	for _, sh := range views {
		v, err := b.(driver.Sharer).Share(sh)
		require.NoError(t, err)
		locks = append(locks, v)
	}
	for _, l := range locks {
		for range 2 { // the second acquisition finds the marker the first left
			o := locker.NewOwner()
			g, err := l.TryLock(ctx, driver.Request{Key: "acl", Owner: o, TTL: time.Minute})
			require.NoError(t, err)
			require.True(t, g.Acquired)
			assert.Zero(t, g.Uptime, "INFO is refused: the uptime is unknown")
			require.NoError(t, l.Expire(ctx, "acl", o, time.Minute))
			require.NoError(t, l.Unlock(ctx, "acl", o))
		}
	}
	m, err := storetest.Of(t, b).Mutex("acl-mutex")
	require.NoError(t, err)
	l, err := m.Lock(ctx)
	require.NoError(t, err)
	require.NoError(t, l.Unlock(ctx))
}
