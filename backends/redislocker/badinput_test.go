package redislocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
)

// Redis's own bound comes after the kit's checks (which the conformance
// suite's InvalidInput covers), in its package's name. An answer of the
// store's is the bare sentinel: the Store names the call.
func TestBadInputBeyondTheKit(t *testing.T) {
	b := newBackend(t, redistest.Start(t).Addr())
	ctx := context.Background()
	_, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Second, Floor: 1 << 60})
	assert.ErrorIs(t, err, driver.ErrInvalid)
	assert.Regexp(t, `^redislocker: invalid argument: floor`, err.Error())
	assert.Equal(t, driver.ErrNotHeld, b.Unlock(ctx, "k", "nobody"))
}
