package memcachelocker

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

func TestParseURL(t *testing.T) {
	cases := []struct {
		name    string
		url     string
		servers []string
		prefix  string
		timeout time.Duration
		idle    int
		err     string // substring of the error; "" for success
	}{
		{name: "one host", url: "memcache://127.0.0.1:11311",
			servers: []string{"127.0.0.1:11311"}, prefix: DefaultPrefix},
		{name: "default port and slash", url: "memcache://cache/",
			servers: []string{"cache:11211"}, prefix: DefaultPrefix},
		{name: "hosts", url: "memcache://a,b:2",
			servers: []string{"a:11211", "b:2"}, prefix: DefaultPrefix},
		{name: "IPv6", url: "memcache://[::1]:5",
			servers: []string{"[::1]:5"}, prefix: DefaultPrefix},
		{name: "parameters", url: "memcache://h:1/?prefix=locks:&timeout=250ms&max_idle_conns=8",
			servers: []string{"h:1"}, prefix: "locks:", timeout: 250 * time.Millisecond, idle: 8},
		{name: "empty prefix", url: "memcache://h:1/?prefix=",
			servers: []string{"h:1"}, prefix: ""},

		{name: "unknown parameter", url: "memcache://h:1/?bogus=1", err: `unknown parameter "bogus"`},
		{name: "repeated parameter", url: "memcache://h:1/?prefix=a&prefix=b", err: "given 2 times"},
		{name: "bad prefix", url: "memcache://h:1/?prefix=a%20b", err: "prefix"},
		{name: "bad timeout", url: "memcache://h:1/?timeout=soon", err: "timeout"},
		{name: "negative timeout", url: "memcache://h:1/?timeout=-1s", err: "timeout"},
		{name: "bad idle conns", url: "memcache://h:1/?max_idle_conns=0", err: "max_idle_conns"},
		{name: "user", url: "memcache://u:s3cret@h:1", err: "no users"},
		{name: "path", url: "memcache://h:1/db", err: "no path"},
		{name: "no host", url: "memcache:///", err: "no host"},
		{name: "empty host in list", url: "memcache://a,,b:2", err: "empty host"},
		{name: "port without host", url: "memcache://:11211", err: "needs a name"},
		{name: "wrong scheme", url: "etcd://h:1", err: "scheme"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, err := url.Parse(c.url)
			require.NoError(t, err)
			cfg, err := parseURL(u)
			if c.err != "" {
				require.Error(t, err)
				assert.ErrorIs(t, err, locker.ErrInvalid)
				assert.Contains(t, err.Error(), c.err)
				assert.NotContains(t, err.Error(), "s3cret", "errors must not show a password")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.servers, cfg.servers)
			assert.Equal(t, c.prefix, cfg.prefix)
			assert.Equal(t, c.timeout, cfg.timeout)
			assert.Equal(t, c.idle, cfg.maxIdleConns)
		})
	}
}

func TestOpenRegistered(t *testing.T) {
	assert.Contains(t, driver.Schemes(), Scheme)
	_, err := locker.Open(context.Background(), "memcache://u:s3cret@127.0.0.1:1/")
	require.Error(t, err)
	assert.ErrorIs(t, err, locker.ErrInvalid)
	assert.NotContains(t, err.Error(), "s3cret")
}

func TestItemRoundTrip(t *testing.T) {
	for _, v := range []lockItem{
		{owner: "o", holds: 1, token: 7, expiry: 123, nonce: "n"},
		{owner: "with\nnewlines\x00and nul", holds: 3, token: 0, expiry: -5, nonce: "abc"},
		{free: true, token: 42},
	} {
		got, err := decodeItem(v.encode())
		require.NoError(t, err)
		assert.Equal(t, v, got)
	}
	for _, bad := range []string{"", "x", "distlock1\nF\nx", "distlock1\nH\n0\n1\n1\nn\no", "distlock1\nH\n1\n1\n1\nn", "distlock1\nQ\n1"} {
		_, err := decodeItem([]byte(bad))
		assert.Error(t, err, "item %q", bad)
	}
}

// An item can expire up to a second early on memcached's coarse clock: the
// expiry asked for is the lease rounded up, plus one second.
func TestExpiration(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want int32
	}{
		{time.Nanosecond, 2}, {time.Second, 2}, {1500 * time.Millisecond, 3}, {time.Minute, 61}, {MaxLease, 2591999},
	} {
		assert.Equal(t, c.want, expiration(c.d), "expiry for %v", c.d)
	}
	now := time.Now()
	assert.Equal(t, int32(1), expirationUntil(lockItem{expiry: now.Add(-time.Second).UnixNano()}, now), "a passed lease")
	assert.Equal(t, int32(11), expirationUntil(lockItem{expiry: now.Add(10 * time.Second).UnixNano()}, now))
}
