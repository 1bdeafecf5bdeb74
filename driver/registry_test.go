package driver_test

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

func TestHosts(t *testing.T) {
	hosts := func(raw string) ([]string, error) {
		u, err := url.Parse(raw)
		require.NoError(t, err)
		return driver.Hosts(u, "2379")
	}
	got, err := hosts("etcd://a,b:1")
	require.NoError(t, err)
	assert.Equal(t, []string{"a:2379", "b:1"}, got)
	for _, raw := range []string{"etcd:///", "etcd://a,,b", "etcd://:5"} {
		_, err := hosts(raw)
		assert.ErrorIs(t, err, driver.ErrInvalid, raw)
	}
}
