package etcdlocker_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/redlock"
)

func TestEndpointNamesTheCluster(t *testing.T) {
	c := etcdtest.Start(t)
	a, err := etcdlocker.New(c.Client(t))
	require.NoError(t, err)
	b, err := etcdlocker.New(c.Client(t))
	require.NoError(t, err)
	assert.Equal(t, a.Endpoint(), b.Endpoint(), "two clients of one cluster")
	assert.Contains(t, a.Endpoint(), c.Endpoints()[0])

	_, err = redlock.New([]driver.Backend{a, b, memlocker.New()})
	require.ErrorIs(t, err, locker.ErrInvalid, "a RedLock must refuse one etcd cluster twice")
	require.NoError(t, a.Close())
	require.NoError(t, b.Close())
}
