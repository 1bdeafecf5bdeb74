package redislocker_test

import (
	"fmt"
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/redlock"
)

func TestEndpointNamesTheServer(t *testing.T) {
	one, two := redistest.Start(t), redistest.Start(t)
	a, b, c := newBackend(t, one.Addr()), newBackend(t, one.Addr()), newBackend(t, two.Addr())
	assert.Equal(t, "redis://"+one.Addr(), a.Endpoint())
	assert.Equal(t, a.Endpoint(), b.Endpoint(), "two clients of one server")
	assert.NotEqual(t, a.Endpoint(), c.Endpoint(), "clients of two servers")

	otherDB, err := redislocker.New(redis.NewClient(&redis.Options{Addr: fmt.Sprintf("localhost:%d", one.Port()), DB: 1}), redislocker.WithOwnedClient())
	require.NoError(t, err)
	defer otherDB.Close()
	assert.Equal(t, a.Endpoint(), otherDB.Endpoint(), "another database of one server, named as localhost")

	_, err = redlock.New([]driver.Backend{a, b, c})
	require.ErrorIs(t, err, locker.ErrInvalid, "a RedLock must refuse one server twice")
	_, err = redlock.New([]driver.Backend{a, c})
	require.NoError(t, err)
}
