package redislocker_test

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
)

// TestACLWithoutKeysFailsBeforeWriting: a user denied the backend's keys
// gets ErrInvalid naming the permission, and nothing was written.
func TestACLWithoutKeysFailsBeforeWriting(t *testing.T) {
	srv := redistest.Start(t)
	_, err := srv.Do("ACL", "SETUSER", "other", "on", ">pw", "~other:*", "&other:*", "+@all", "-@dangerous")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	b, err := driver.Open(ctx, "redis://other:pw@"+srv.Addr())
	require.NoError(t, err)
	defer b.Close()
	_, err = b.TryLock(ctx, driver.Request{Key: "acl", Owner: locker.NewOwner(), TTL: time.Minute})
	require.ErrorIs(t, err, locker.ErrInvalid)
	assert.Contains(t, err.Error(), "permission")
	n, err := srv.Do("DBSIZE")
	require.NoError(t, err)
	assert.EqualValues(t, 0, n, "nothing may be written")
}

// TestAuthenticationErrors: a wrong or missing password is ErrInvalid
// saying so, for short and long commands, and never shows the password.
func TestAuthenticationErrors(t *testing.T) {
	srv := redistest.Start(t)
	_, err := srv.Do("CONFIG", "SET", "requirepass", "s3cret-pw")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	long := strings.Repeat("x", 1000)
	for _, u := range []string{
		"redis://:wrong-pw@" + srv.Addr(),
		"redis://" + srv.Addr(),
	} {
		for _, key := range []string{"k", "k" + long} {
			// A backend per key: after its protocol error the server
			// closes the connection, and the next call on it would see
			// only that.
			b, err := driver.Open(ctx, u)
			require.NoError(t, err)
			t.Cleanup(func() { _ = b.Close() })
			_, err = b.TryLock(ctx, driver.Request{Key: key, Owner: locker.NewOwner(), TTL: time.Minute})
			require.ErrorIs(t, err, locker.ErrInvalid, u)
			assert.Contains(t, err.Error(), "authentication failed")
			assert.Contains(t, err.Error(), "userinfo")
			assert.NotContains(t, err.Error(), "wrong-pw")
			assert.Less(t, len(err.Error()), 800, "the error quotes a long name in full")
			fresh, err := driver.Open(ctx, u)
			require.NoError(t, err)
			t.Cleanup(func() { _ = fresh.Close() })
			err = fresh.Unlock(ctx, key, locker.NewOwner())
			require.ErrorIs(t, err, locker.ErrInvalid, u)
		}
	}
	good, err := driver.Open(ctx, "redis://:"+url.QueryEscape("s3cret-pw")+"@"+srv.Addr())
	require.NoError(t, err)
	defer good.Close()
	_, err = good.TryLock(ctx, driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Minute})
	require.NoError(t, err)
}

// TestClusterNodeAsStandalone: a Cluster node behind redis:// is
// ErrInvalid pointing at redis+cluster://.
func TestClusterNodeAsStandalone(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, addr := range cluster.Addrs() {
		b, err := driver.Open(ctx, "redis://"+addr)
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Minute})
		require.ErrorIs(t, err, locker.ErrInvalid)
		assert.Contains(t, err.Error(), "redis+cluster://")
		err = b.Unlock(ctx, "k", locker.NewOwner())
		if err != nil { // the node that serves the slot answers: not held
			assert.False(t, locker.IsUnknown(err), "%v", err)
		}
	}
}
