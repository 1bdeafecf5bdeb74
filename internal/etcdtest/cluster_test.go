package etcdtest_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/internal/etcdtest"
)

func TestStart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := etcdtest.Start(t)
	require.Equal(t, 1, c.Size())
	for _, ep := range c.Endpoints() {
		assert.Regexp(t, `^http://127\.0\.0\.1:\d+$`, ep, "loopback only")
	}
	cli := c.Client(t)
	_, err := cli.Put(ctx, "k", "v")
	require.NoError(t, err)
	resp, err := cli.Get(ctx, "k")
	require.NoError(t, err)
	require.Len(t, resp.Kvs, 1)
	assert.Equal(t, "v", string(resp.Kvs[0].Value))
}

// The lease floor the backends' granularity relies on.
func TestMinLeaseTTL(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cli := etcdtest.Start(t).Client(t)
	for _, ttl := range []int64{1, 2, 7} {
		g, err := cli.Grant(ctx, ttl)
		require.NoError(t, err)
		assert.Equal(t, max(ttl, int64(etcdtest.MinLeaseTTL/time.Second)), g.TTL, "granted TTL for %d s", ttl)
	}
}

func TestClusterSurvivesLeaderStop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c := etcdtest.StartCluster(t, 3)
	cli := c.Client(t)
	_, err := cli.Put(ctx, "before", "1")
	require.NoError(t, err)

	leader, err := c.Leader(10 * time.Second)
	require.NoError(t, err)
	c.Stop(leader)
	assert.False(t, c.Member(leader).Running())
	next, err := c.Leader(10 * time.Second)
	require.NoError(t, err, "the two members left must elect a leader")
	assert.NotEqual(t, leader, next)

	putEventually(ctx, t, cli, "during", "2")
	resp, err := cli.Get(ctx, "before")
	require.NoError(t, err)
	require.Len(t, resp.Kvs, 1, "data written before the stop survives")

	require.NoError(t, c.Restart(leader))
	assert.True(t, c.Member(leader).Running())
	// The restarted member catches up: a client of it alone reads the
	// write made while it was down.
	solo, err := clientv3.New(etcdtest.ClientConfig(c.Member(leader).Endpoint()))
	require.NoError(t, err)
	defer solo.Close()
	require.Eventually(t, func() bool {
		resp, err := solo.Get(ctx, "during")
		return err == nil && len(resp.Kvs) == 1
	}, 20*time.Second, 50*time.Millisecond, "the restarted member must catch up")
}

func TestCompact(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := etcdtest.Start(t)
	cli := c.Client(t)
	first, err := cli.Put(ctx, "k", "1")
	require.NoError(t, err)
	_, err = cli.Put(ctx, "k", "2")
	require.NoError(t, err)
	require.NoError(t, c.Compact(ctx))
	_, err = cli.Get(ctx, "k", clientv3.WithRev(first.Header.Revision))
	assert.Error(t, err, "reading a compacted revision")
}

// putEventually retries a put across the election that follows a stop.
func putEventually(ctx context.Context, t *testing.T, cli *clientv3.Client, k, v string) {
	t.Helper()
	var err error
	for range 50 {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err = cli.Put(cctx, k, v)
		cancel()
		if err == nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("put %s after the stop: %v", k, err)
}
