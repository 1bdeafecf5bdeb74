package locker_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

func init() {
	driver.Register("locker-test", func(_ context.Context, u *url.URL) (driver.Backend, error) {
		if u.Query().Has("fail") {
			return nil, errors.New("refused")
		}
		return memlocker.New(), nil
	})
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	b, err := locker.Open(ctx, "locker-test://host/")
	require.NoError(t, err)
	require.NoError(t, b.Close())

	_, err = locker.Open(ctx, "nosuch://user:hunter2@host/")
	require.ErrorIs(t, err, locker.ErrInvalid)
	assert.Contains(t, err.Error(), `"nosuch"`)
	assert.Contains(t, err.Error(), "locker-test", "an unknown scheme lists the known ones")
	assert.NotContains(t, err.Error(), "hunter2")

	_, err = locker.Open(ctx, "locker-test://user:hunter2@host/?fail=1")
	require.ErrorContains(t, err, "refused")
	assert.NotContains(t, err.Error(), "hunter2")

	_, err = locker.Open(ctx, "locker-test://host/?fail=1&sentinel_password=hunter2")
	require.ErrorContains(t, err, "refused")
	assert.NotContains(t, err.Error(), "hunter2", "a password put in a query parameter")

	_, err = locker.Open(ctx, "locker-test://user:hunter2@host:badport/")
	require.ErrorIs(t, err, locker.ErrInvalid)
	assert.NotContains(t, err.Error(), "hunter2")

	assert.Contains(t, driver.Schemes(), "locker-test")
	assert.Panics(t, func() { driver.Register("locker-test", nil) })
}

func TestOpErrorNamesTheLock(t *testing.T) {
	ctx := context.Background()
	m := newMutex(t, memlocker.New(), "orders/42")
	_, err := m.TryLock(ctx, locker.WithLease(-1))
	var oe *locker.OpError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "trylock", oe.Op)
	assert.Equal(t, "orders/42", oe.Lock)
	assert.Contains(t, err.Error(), `"orders/42"`)
}

func TestNewOwnerIsUnguessable(t *testing.T) {
	seen := make(map[string]bool)
	for range 1000 {
		o := locker.NewOwner()
		require.GreaterOrEqual(t, len(o)*5, 128, "an owner carries at least 128 random bits")
		require.False(t, seen[o], "owner identities repeat")
		seen[o] = true
	}
}

func TestOpenRejectsAMalformedQuery(t *testing.T) {
	for _, raw := range []string{"locker-test://host/?a;b=1", "locker-test://host/?%zz=1"} {
		_, err := locker.Open(context.Background(), raw)
		require.ErrorIs(t, err, locker.ErrInvalid, raw)
		assert.Contains(t, err.Error(), "malformed query")
	}
}

func TestOpErrorCutsALongName(t *testing.T) {
	name := strings.Repeat("n", 1<<20)
	_, err := storetest.Of(t, memlocker.New()).Mutex(name, locker.WithOwner(""))
	require.ErrorIs(t, err, locker.ErrInvalid)
	assert.Less(t, len(err.Error()), 1000)
	assert.Contains(t, err.Error(), "(1048576 bytes)")
}

func TestIsUnknown(t *testing.T) {
	assert.False(t, locker.IsUnknown(nil))
	assert.True(t, locker.IsUnknown(errors.New("reply lost")))
	assert.True(t, locker.IsUnknown(context.DeadlineExceeded))
	for _, s := range []error{locker.ErrNotAcquired, locker.ErrNotHeld, locker.ErrLost, locker.ErrReleased, locker.ErrClosed, locker.ErrInvalid} {
		assert.False(t, locker.IsUnknown(&locker.OpError{Op: "lock", Lock: "k", Err: s}), "%v", s)
	}
}
