package redislocker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
)

// locks checks that b takes and releases a lock on its server.
func locks(t *testing.T, b *redislocker.Backend) {
	t.Helper()
	ctx := context.Background()
	o := locker.NewOwner()
	g, err := b.TryLock(ctx, driver.Request{Key: "opened", Owner: o, TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	require.NoError(t, b.Unlock(ctx, "opened", o))
}

func TestOpen(t *testing.T) {
	srv := redistest.Start(t)
	cluster := redistest.StartCluster(t, 3)
	sentinel := redistest.StartSentinel(t, srv, "mymaster")
	addr, seeds := srv.Addr(), cluster.Addrs()
	const secret = "s3cr3t-pa55"
	ctx := context.Background()

	clientOpts := func(b *redislocker.Backend) *redis.Options {
		c, ok := b.Client().(*redis.Client)
		require.True(t, ok, "a %T, not a *redis.Client", b.Client())
		return c.Options()
	}
	tests := []struct {
		name  string
		url   string
		err   string // part of the expected error; "" for success
		check func(t *testing.T, b *redislocker.Backend)
	}{
		{name: "standalone", url: "redis://" + addr + "/0", check: func(t *testing.T, b *redislocker.Backend) {
			locks(t, b)
			assert.Equal(t, redislocker.DefaultPrefix, b.Prefix())
			assert.True(t, clientOpts(b).ContextTimeoutEnabled, "URL clients honour context deadlines")
		}},
		{name: "prefix", url: "redis://" + addr + "?prefix=myapp", check: func(t *testing.T, b *redislocker.Backend) {
			o := locker.NewOwner()
			_, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: o, TTL: time.Minute})
			require.NoError(t, err)
			n, err := srv.Do("EXISTS", "myapp:{k}")
			require.NoError(t, err)
			assert.EqualValues(t, 1, n, "the lock lives under the prefix")
			require.NoError(t, b.Unlock(ctx, "k", o))
		}},
		{name: "empty prefix", url: "redis://" + addr + "?prefix=", check: func(t *testing.T, b *redislocker.Backend) {
			assert.Equal(t, "", b.Prefix())
			locks(t, b)
		}},
		{name: "database", url: "redis://" + addr + "/3", check: func(t *testing.T, b *redislocker.Backend) {
			assert.Equal(t, 3, clientOpts(b).DB)
			locks(t, b)
		}},
		{name: "go-redis parameters", url: "redis://" + addr + "?dial_timeout=2s&read_timeout=1500ms&pool_size=3",
			check: func(t *testing.T, b *redislocker.Backend) {
				o := clientOpts(b)
				assert.Equal(t, 2*time.Second, o.DialTimeout)
				assert.Equal(t, 1500*time.Millisecond, o.ReadTimeout)
				assert.Equal(t, 3, o.PoolSize)
			}},
		{name: "tls", url: "rediss://" + addr, check: func(t *testing.T, b *redislocker.Backend) {
			assert.NotNil(t, clientOpts(b).TLSConfig)
		}},
		{name: "replica ack", url: "redis://" + addr + "?replica_ack=1&replica_ack_timeout=50ms",
			check: func(t *testing.T, b *redislocker.Backend) {
				_, err := b.TryLock(ctx, driver.Request{Key: "needs-replica", Owner: locker.NewOwner(), TTL: time.Minute})
				assert.ErrorIs(t, err, redislocker.ErrReplicaAck, "the server has no replica")
			}},
		{name: "fence linger", url: "redis://" + addr + "?fence_linger=2h", check: func(t *testing.T, b *redislocker.Backend) {
			o := locker.NewOwner()
			_, err := b.TryLock(ctx, driver.Request{Key: "lingering", Owner: o, TTL: time.Second})
			require.NoError(t, err)
			ttl, err := srv.Do("PTTL", "distlock:{lingering}")
			require.NoError(t, err)
			assert.Greater(t, ttl.(int64), int64(time.Hour/time.Millisecond))
			require.NoError(t, b.Unlock(ctx, "lingering", o))
		}},
		{name: "cluster", url: "redis+cluster://" + strings.Join(seeds, ","), check: func(t *testing.T, b *redislocker.Backend) {
			c, ok := b.Client().(*redis.ClusterClient)
			require.True(t, ok, "a %T", b.Client())
			assert.ElementsMatch(t, seeds, c.Options().Addrs)
			assert.True(t, c.Options().ContextTimeoutEnabled)
			locks(t, b)
		}},
		{name: "cluster one seed", url: "redis+cluster://" + seeds[1] + "/?prefix=c", check: locks},
		{name: "sentinel", url: "redis+sentinel://" + sentinel.Addr() + "/mymaster", check: func(t *testing.T, b *redislocker.Backend) {
			locks(t, b)
			assert.True(t, clientOpts(b).ContextTimeoutEnabled)
		}},
		{name: "sentinel database", url: "redis+sentinel://" + sentinel.Addr() + "/mymaster/2", check: func(t *testing.T, b *redislocker.Backend) {
			assert.Equal(t, 2, clientOpts(b).DB)
			locks(t, b)
		}},

		{name: "unknown parameter", url: "redis://" + addr + "?bogus=1", err: "bogus"},
		{name: "unknown parameter, password in URL", url: "redis://user:" + secret + "@" + addr + "?bogus=1", err: "bogus"},
		{name: "unknown cluster parameter", url: "redis+cluster://:" + secret + "@" + seeds[0] + "?bogus=1", err: "bogus"},
		{name: "unknown sentinel parameter", url: "redis+sentinel://:" + secret + "@" + sentinel.Addr() + "/m?bogus=1", err: "bogus"},
		{name: "password parameter", url: "redis://" + addr + "?password=" + secret, err: "userinfo"},
		{name: "master_name parameter", url: "redis+sentinel://" + addr + "/m?master_name=x", err: "path"},
		{name: "replica_ack not a number", url: "redis://" + addr + "?replica_ack=one", err: "replica_ack"},
		{name: "replica_ack zero", url: "redis://" + addr + "?replica_ack=0", err: "replica"},
		{name: "timeout without replica_ack", url: "redis://" + addr + "?replica_ack_timeout=1s", err: "replica_ack_timeout"},
		{name: "prefix with a brace", url: "redis://" + addr + "?prefix=%7Bx", err: "brace"},
		{name: "fence_linger too short", url: "redis://" + addr + "?fence_linger=1ms", err: "fence"},
		{name: "bad database", url: "redis://:" + secret + "@" + addr + "/x", err: "database"},
		{name: "cluster with a path", url: "redis+cluster://" + seeds[0] + "/0", err: "path"},
		{name: "cluster empty host", url: "redis+cluster://" + seeds[0] + ",," + seeds[1], err: "empty host"},
		{name: "sentinel without master", url: "redis+sentinel://" + sentinel.Addr(), err: "master"},
		{name: "sentinel path too long", url: "redis+sentinel://" + sentinel.Addr() + "/m/1/2", err: "master"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lb, err := driver.Open(ctx, tc.url)
			if tc.err != "" {
				require.Error(t, err)
				assert.ErrorIs(t, err, locker.ErrInvalid)
				assert.Contains(t, err.Error(), tc.err)
				assert.NotContains(t, err.Error(), secret, "the password leaked into the error")
				assert.Nil(t, lb)
				return
			}
			require.NoError(t, err)
			b, ok := lb.(*redislocker.Backend)
			require.True(t, ok, "a %T", lb)
			tc.check(t, b)
			require.NoError(t, b.Close())
			assert.ErrorIs(t, b.Client().Ping(ctx).Err(), redis.ErrClosed, "a URL backend closes its client")
		})
	}
}

func TestSchemesRegistered(t *testing.T) {
	for _, s := range []string{"redis", "rediss", "redis+cluster", "rediss+cluster", "redis+sentinel", "rediss+sentinel"} {
		assert.Contains(t, driver.Schemes(), s)
	}
}
