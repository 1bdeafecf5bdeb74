package etcdlocker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/locker"
)

// Refused credentials and missing permissions are configuration errors a
// user must fix (ErrInvalid), never an unknown outcome, and never show the
// password.
func TestAuthenticationAndPermissionErrors(t *testing.T) {
	ctx := context.Background()
	c := etcdtest.Start(t)
	admin := c.Client(t)
	for _, step := range []func() error{
		func() error { _, err := admin.UserAdd(ctx, "root", "r00t-pw"); return err },
		func() error { _, err := admin.UserGrantRole(ctx, "root", "root"); return err },
		func() error { _, err := admin.UserAdd(ctx, "reader", "reader-pw"); return err },
		func() error { _, err := admin.AuthEnable(ctx); return err },
	} {
		require.NoError(t, step())
	}
	host := strings.TrimPrefix(c.Endpoints()[0], "http://")

	const wrong = "wr0ng-Guess-pw"
	b, err := driver.Open(ctx, "etcd://root:"+wrong+"@"+host)
	if err == nil {
		t.Cleanup(func() { _ = b.Close() })
		_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Second})
	}
	require.Error(t, err)
	assert.ErrorIs(t, err, locker.ErrInvalid, "a wrong password: %v", err)
	assert.NotContains(t, err.Error(), wrong)

	b, err = driver.Open(ctx, "etcd://reader:reader-pw@"+host)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Second})
	require.Error(t, err)
	assert.ErrorIs(t, err, locker.ErrInvalid, "a user without permission on the keys: %v", err)
	assert.False(t, locker.IsUnknown(err))
}
