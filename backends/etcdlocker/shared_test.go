package etcdlocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/locker"
)

// Views of a backend: a read-write lock's two and semaphores' of a limit.
var (
	readShare  = driver.Share{Mode: driver.Read}
	writeShare = driver.Share{Mode: driver.Write}
)

// permits is the share of a semaphore of limit permits that takes n.
func permits(n, limit int) driver.Share {
	return driver.Share{Mode: driver.Permits, Limit: limit, Permits: n}
}

// view returns b's view of s.
func view(t *testing.T, b *etcdlocker.Backend, s driver.Share) driver.Backend {
	t.Helper()
	v, err := b.Share(s)
	require.NoError(t, err)
	return v
}

// request is an attempt by owner on key with a 30 s lease.
func request(key, owner string) driver.Request {
	return driver.Request{Key: key, Owner: owner, TTL: 30 * time.Second}
}

// mustTry makes the attempt r on v and returns its grant.
func mustTry(ctx context.Context, t *testing.T, v driver.Backend, r driver.Request) driver.Grant {
	t.Helper()
	g, err := v.TryLock(ctx, r)
	require.NoError(t, err)
	return g
}

// held is g without its Validity, which depends on the age of the shared
// lease the hold is bound to.
func held(g driver.Grant) driver.Grant {
	g.Validity = 0
	return g
}

// etcdKeys returns the keys under prefix in the cluster.
func etcdKeys(ctx context.Context, t *testing.T, c *etcdtest.Cluster, prefix string) []string {
	t.Helper()
	resp, err := c.Client(t).Get(ctx, prefix, clientv3.WithPrefix())
	require.NoError(t, err)
	var keys []string
	for _, kv := range resp.Kvs {
		keys = append(keys, string(kv.Key))
	}
	return keys
}

// A mutex, a read-write lock and a semaphore of one name are three locks,
// each in keys of its own under the prefix; names are escaped so that no
// lock's keys are another's.
func TestShareNamespaces(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b := newBackend(t, c)
	w, sem := view(t, b, writeShare), view(t, b, permits(1, 1))
	for _, lock := range []driver.Backend{b, w, sem} {
		g := mustTry(ctx, t, lock, request("k", "o1"))
		assert.True(t, g.Acquired, "the mutex, the read-write lock and the semaphore k are apart")
	}
	for _, name := range []string{"k/h/w/o2", "k%2Fh%2Fw%2Fo2"} {
		g := mustTry(ctx, t, w, request(name, "o2"))
		assert.True(t, g.Acquired, "%q is another lock than k", name)
	}
	assert.Equal(t, []string{
		"distlock/\x00rw/k%252Fh%252Fw%252Fo2/h/w/o2", "distlock/\x00rw/k%252Fh%252Fw%252Fo2/t",
		"distlock/\x00rw/k%2Fh%2Fw%2Fo2/h/w/o2", "distlock/\x00rw/k%2Fh%2Fw%2Fo2/t",
		"distlock/\x00rw/k/h/w/o1", "distlock/\x00rw/k/t",
		"distlock/\x00sem/k/h/p/o1", "distlock/\x00sem/k/t",
		"distlock/k",
	}, etcdKeys(ctx, t, c, "distlock/"))
	for _, lock := range []driver.Backend{b, w, sem} {
		require.NoError(t, lock.Unlock(ctx, "k", "o1"))
	}
}

// A view's Close closes the backend and every view of it; a closed
// backend hands out no views.
func TestShareClose(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b := newBackend(t, c)
	r, w := view(t, b, readShare), view(t, b, writeShare)
	require.NoError(t, r.Close())
	for _, lock := range []driver.Backend{b, r, w} {
		_, err := lock.TryLock(ctx, request("k", "o"))
		assert.ErrorIs(t, err, locker.ErrClosed)
	}
	_, err := b.Share(readShare)
	assert.ErrorIs(t, err, locker.ErrClosed)
	assert.NoError(t, w.Close(), "closing again returns the first result")
}

// A malformed share is refused.
func TestShareInvalid(t *testing.T) {
	c := etcdtest.Start(t)
	b := newBackend(t, c)
	for _, s := range []driver.Share{{}, {Mode: driver.Read, Limit: 1}, permits(0, 1), permits(2, 1), {Mode: driver.Permits}} {
		_, err := b.Share(s)
		assert.ErrorIs(t, err, locker.ErrInvalid, "%+v", s)
	}
}

// A key under a shared lock's keys that distlock did not write is no hold:
// calls that read it fail, and say so, rather than guess.
func TestShareForeignKey(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b := newBackend(t, c)
	_, err := c.Client(t).Put(ctx, "distlock/\x00rw/k/h/w/x", "not a lock")
	require.NoError(t, err)
	w := view(t, b, writeShare)
	_, err = w.TryLock(ctx, request("k", "o"))
	assert.ErrorContains(t, err, "does not hold a distlock lock")
	_, err = w.(driver.Inspector).Inspect(ctx, "k")
	assert.ErrorContains(t, err, "does not hold a distlock lock")
}
