package redislocker_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/redlock"
)

func TestEndpointNamesTheServer(t *testing.T) {
	one, two := redistest.Start(t), redistest.Start(t)
	a, b, c := newBackend(t, one.Addr()), newBackend(t, one.Addr()), newBackend(t, two.Addr())
	assert.Equal(t, "redis://"+one.Addr()+"/0", a.Endpoint())
	assert.Equal(t, a.Endpoint(), b.Endpoint(), "two clients of one server")
	assert.NotEqual(t, a.Endpoint(), c.Endpoint(), "clients of two servers")

	_, err := redlock.New([]locker.Backend{a, b, c})
	require.ErrorIs(t, err, locker.ErrInvalid, "a RedLock must refuse one server twice")
	_, err = redlock.New([]locker.Backend{a, c})
	require.NoError(t, err)
}
