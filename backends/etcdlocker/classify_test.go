package etcdlocker_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/locker"
)

// TestHugeNameIsInvalidAndShort: a lock name too long for etcd is
// ErrInvalid, whether the client's message limit or the server's request
// limit refuses it, and the error quotes only a short prefix of it.
func TestHugeNameIsInvalidAndShort(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b := newBackend(t, c)
	for _, n := range []int{600 << 10, 2 << 20} {
		name := strings.Repeat("x", n)
		_, err := b.TryLock(ctx, driver.Request{Key: name, Owner: "o", TTL: time.Minute})
		require.ErrorIs(t, err, locker.ErrInvalid, "a %d-byte name", n)
		assert.Less(t, len(err.Error()), 1000, "the error of a %d-byte name", n)
		assert.Contains(t, err.Error(), "larger than etcd accepts")
		err = b.Unlock(ctx, name, "o")
		require.Error(t, err)
		assert.Less(t, len(err.Error()), 1000, "the Unlock error of a %d-byte name", n)
	}
}
