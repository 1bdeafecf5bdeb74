package memcachelocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/memcachedtest"
)

// memcached's own limit comes after the kit's checks (which the
// conformance suite's InvalidInput covers), in its package's name.
func TestBadInputBeyondTheKit(t *testing.T) {
	s := memcachedtest.Start(t)
	b := newBackend(t, s)
	_, err := b.TryLock(context.Background(), driver.Request{Key: "k", Owner: "o", TTL: 31 * 24 * time.Hour})
	assert.ErrorIs(t, err, driver.ErrInvalid)
	assert.Regexp(t, `^memcachelocker: invalid argument: lease .* longer`, err.Error())
}
