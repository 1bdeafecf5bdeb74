package etcdlocker_test

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
)

// etcd's own limit comes after the kit's checks (which the conformance
// suite's InvalidInput covers), in its package's name.
func TestBadInputBeyondTheKit(t *testing.T) {
	b := newBackend(t, etcdtest.Start(t))
	_, err := b.TryLock(context.Background(), driver.Request{Key: "k", Owner: "o", TTL: math.MaxInt64})
	assert.ErrorIs(t, err, driver.ErrInvalid)
	assert.Regexp(t, `^etcdlocker: invalid argument: lease .* longer`, err.Error())
}
