package etcdlocker

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

func TestParseURL(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))

	cases := []struct {
		name      string
		url       string
		endpoints []string
		prefix    string
		dial      time.Duration
		user      string
		password  string
		tls       bool
		err       string // substring of the error; "" for success
	}{
		{name: "one host", url: "etcd://127.0.0.1:2379",
			endpoints: []string{"http://127.0.0.1:2379"}, prefix: DefaultPrefix, dial: DefaultDialTimeout},
		{name: "trailing slash", url: "etcd://127.0.0.1:2379/",
			endpoints: []string{"http://127.0.0.1:2379"}, prefix: DefaultPrefix, dial: DefaultDialTimeout},
		{name: "hosts and default port", url: "etcd://a,b:3",
			endpoints: []string{"http://a:2379", "http://b:3"}, prefix: DefaultPrefix, dial: DefaultDialTimeout},
		{name: "IPv6 without port", url: "etcd://[::1]",
			endpoints: []string{"http://[::1]:2379"}, prefix: DefaultPrefix, dial: DefaultDialTimeout},
		{name: "parameters", url: "etcd://h:1/?prefix=locks%2F&dial_timeout=250ms",
			endpoints: []string{"http://h:1"}, prefix: "locks/", dial: 250 * time.Millisecond},
		{name: "empty prefix", url: "etcd://h:1/?prefix=",
			endpoints: []string{"http://h:1"}, prefix: "", dial: DefaultDialTimeout},
		{name: "credentials", url: "etcd://root:s3cret@h:1",
			endpoints: []string{"http://h:1"}, prefix: DefaultPrefix, dial: DefaultDialTimeout, user: "root", password: "s3cret"},
		{name: "TLS", url: "etcds://h:1",
			endpoints: []string{"https://h:1"}, prefix: DefaultPrefix, dial: DefaultDialTimeout, tls: true},

		{name: "unknown parameter", url: "etcd://u:s3cret@h:1/?bogus=1", err: `unknown parameter "bogus"`},
		{name: "TLS parameter without TLS", url: "etcd://h:1/?ca_file=x", err: `needs the "etcds" scheme`},
		{name: "repeated parameter", url: "etcd://h:1/?prefix=a&prefix=b", err: "given 2 times"},
		{name: "bad dial timeout", url: "etcd://h:1/?dial_timeout=soon", err: "dial_timeout"},
		{name: "zero dial timeout", url: "etcd://h:1/?dial_timeout=0s", err: "dial_timeout"},
		{name: "path", url: "etcd://h:1/db", err: "no path"},
		{name: "no host", url: "etcd:///", err: "no host"},
		{name: "empty host in list", url: "etcd://a:1,,b:2", err: "empty host"},
		{name: "port without host", url: "etcd://:2379", err: "needs a name"},
		{name: "wrong scheme", url: "redis://h:1", err: "scheme"},
		{name: "missing CA file", url: "etcds://h:1/?ca_file=" + url.QueryEscape(filepath.Join(dir, "none.pem")), err: "ca_file"},
		{name: "CA file without PEM", url: "etcds://h:1/?ca_file=" + url.QueryEscape(notPEM), err: "no PEM certificate"},
		{name: "cert without key", url: "etcds://h:1/?cert_file=c.pem", err: "go together"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u, err := url.Parse(c.url)
			require.NoError(t, err)
			cfg, prefix, err := parseURL(u)
			if c.err != "" {
				require.Error(t, err)
				assert.ErrorIs(t, err, locker.ErrInvalid)
				assert.Contains(t, err.Error(), c.err)
				assert.NotContains(t, err.Error(), "s3cret", "errors must not show the password")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, c.endpoints, cfg.Endpoints)
			assert.Equal(t, c.prefix, prefix)
			assert.Equal(t, c.dial, cfg.DialTimeout)
			assert.Equal(t, c.user, cfg.Username)
			assert.Equal(t, c.password, cfg.Password)
			assert.Equal(t, c.tls, cfg.TLS != nil)
		})
	}
}

// Through locker.Open: the schemes are registered, and errors hide the
// password.
func TestOpenRegistered(t *testing.T) {
	assert.Contains(t, driver.Schemes(), Scheme)
	assert.Contains(t, driver.Schemes(), SchemeTLS)
	_, err := locker.Open(context.Background(), "etcd://user:s3cret@127.0.0.1:1/?bogus=1")
	require.Error(t, err)
	assert.ErrorIs(t, err, locker.ErrInvalid)
	assert.NotContains(t, err.Error(), "s3cret")
	assert.Contains(t, err.Error(), "bogus")
}

func TestLeaseSeconds(t *testing.T) {
	b := &Backend{}
	b.minTTL.Store(1)
	for _, c := range []struct {
		ttl  time.Duration
		want int64
	}{
		{time.Nanosecond, 1}, {time.Second, 1}, {time.Second + time.Nanosecond, 2},
		{2500 * time.Millisecond, 3}, {time.Minute, 60},
	} {
		assert.Equal(t, c.want, b.leaseSeconds(c.ttl), "lease for %v", c.ttl)
	}
	// A server that raised a 1 s request to 2 s has a 2 s minimum.
	b.noteGranted(1, 2)
	assert.Equal(t, int64(2), b.leaseSeconds(time.Second))
	assert.Equal(t, int64(3), b.leaseSeconds(3*time.Second))
	b.noteGranted(5, 5)
	assert.Equal(t, int64(2), b.leaseSeconds(time.Second), "a grant as asked says nothing of the minimum")
}

func TestValueRoundTrip(t *testing.T) {
	for _, v := range []lockValue{
		{owner: "o", holds: 1, ttl: 1},
		{owner: "with\nnewlines\x00and nul", holds: 12, ttl: 30},
		{owner: "o", holds: 2, ttl: 30, shared: true, permits: 2, limit: 5, token: 77},
		{owner: "o", ttl: 3, shared: true, waiting: true, permits: 1, limit: 1},
		{owner: "o", ttl: 3, waiting: true},
		{owner: "o", holds: 1, ttl: 3, token: 1},
	} {
		got, err := decodeValue([]byte(v.encode()))
		require.NoError(t, err)
		assert.Equal(t, v, got)
	}
	for _, bad := range []string{"", "x", "distlock1\n0\n1\no", "distlock1\n1\n0\no", "distlock1\n1\n1", "other\n1\n1\no",
		"distlock1 waiting\n1\n1\no", "distlock1 shared permits=3/2\n1\n1\no", "distlock1 permits=0/2\n1\n1\no",
		"distlock1 token=0\n1\n1\no", "distlock1 shared shared\n1\n1\no", "distlock1 waiting shared\n0\n1\no",
		"distlock1 other\n1\n1\no", "distlock1 \n1\n1\no"} {
		_, err := decodeValue([]byte(bad))
		assert.Error(t, err, "value %q", bad)
	}
}
