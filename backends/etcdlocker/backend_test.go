package etcdlocker_test

import (
	"context"
	"errors"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/internal/tcpproxy"
	"github.com/distlock/distlock/locker"
)

func assertUnknown(t *testing.T, err error, what string) {
	t.Helper()
	require.Error(t, err, "%s must fail", what)
	assert.True(t, locker.IsUnknown(err), "%s: an unknown outcome is no sentinel: %v", what, err)
}

func testContext(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// proxied starts a TCP proxy to c's first member, closed when the test
// ends.
func proxied(t *testing.T, c *etcdtest.Cluster) *tcpproxy.Proxy {
	t.Helper()
	u, err := url.Parse(c.Endpoints()[0])
	require.NoError(t, err)
	p, err := tcpproxy.Start(u.Host)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func newBackend(t *testing.T, c *etcdtest.Cluster, opts ...etcdlocker.Option) *etcdlocker.Backend {
	t.Helper()
	return newClientBackend(t, c.Client(t), opts...)
}

// newClientBackend returns a backend over cli, closed when the test ends.
func newClientBackend(t *testing.T, cli *clientv3.Client, opts ...etcdlocker.Option) *etcdlocker.Backend {
	t.Helper()
	b, err := etcdlocker.New(cli, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func TestNewNilClient(t *testing.T) {
	_, err := etcdlocker.New(nil)
	assert.ErrorIs(t, err, locker.ErrInvalid)
}

func TestCloseLeavesCallersClient(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	cli := c.Client(t)
	b, err := etcdlocker.New(cli)
	require.NoError(t, err)
	stop, err := b.Watch(ctx, "k", func() {})
	require.NoError(t, err)
	require.NoError(t, b.Close())
	stop() // after Close: harmless
	_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	assert.ErrorIs(t, err, locker.ErrClosed)
	_, err = b.Watch(ctx, "k", func() {})
	assert.ErrorIs(t, err, locker.ErrClosed)
	_, err = cli.Put(ctx, "still", "open")
	assert.NoError(t, err, "Close must leave the caller's client open")
}

func TestOpenedBackendOwnsClient(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	u, err := url.Parse(c.Endpoints()[0])
	require.NoError(t, err)
	lb, err := driver.Open(ctx, "etcd://"+u.Host+"/?prefix=owned/")
	require.NoError(t, err)
	b := lb.(*etcdlocker.Backend)
	assert.Equal(t, "owned/", b.Prefix())
	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, g.Acquired)
	resp, err := c.Client(t).Get(ctx, "owned/k")
	require.NoError(t, err)
	assert.Len(t, resp.Kvs, 1, "the lock lives under the URL's prefix")
	require.NoError(t, b.Unlock(ctx, "k", "o"))
	require.NoError(t, b.Close())
	assert.Error(t, b.Client().Ctx().Err(), "Close must close a client opened from a URL")
}

// The token is the revision of the write that created the key.
func TestTokenIsCreateRevision(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b := newBackend(t, c, etcdlocker.WithPrefix("p/"))
	cli := c.Client(t)
	var last uint64
	for _, key := range []string{"a", "b", "a"} {
		g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: "o", TTL: time.Minute})
		require.NoError(t, err)
		resp, err := cli.Get(ctx, "p/"+key)
		require.NoError(t, err)
		require.Len(t, resp.Kvs, 1)
		assert.Equal(t, uint64(resp.Kvs[0].CreateRevision), g.Token)
		assert.Greater(t, g.Token, last, "tokens rise across keys of one cluster too")
		last = g.Token
		require.NoError(t, b.Unlock(ctx, key, "o"))
	}
	st, err := b.Inspect(ctx, "a")
	require.NoError(t, err)
	assert.False(t, st.Held)
	assert.Greater(t, st.Token, last, "a free key's token is the current revision, past the delete")
}

func TestExpireWithAnotherLength(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b, other := newBackend(t, c), newBackend(t, c)

	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Second})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	require.NoError(t, b.Expire(ctx, "k", "o", 30*time.Second))
	st, err := b.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.Greater(t, st.Remaining, 20*time.Second, "the key moved to a 30 s lease")
	assert.Equal(t, g.Token, st.Token, "moving to a new lease keeps the token")
	assert.Equal(t, 1, st.Holds)

	time.Sleep(2500 * time.Millisecond)
	g2, err := other.TryLock(ctx, driver.Request{Key: "k", Owner: "p", TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g2.Acquired, "the old 1 s lease no longer bounds the lock")

	// And back to a short lease, which then runs out.
	require.NoError(t, b.Expire(ctx, "k", "o", time.Second))
	st, err = b.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.LessOrEqual(t, st.Remaining, time.Second)
	require.Eventually(t, func() bool {
		g, err := other.TryLock(ctx, driver.Request{Key: "k", Owner: "p", TTL: time.Minute})
		return err == nil && g.Acquired
	}, 10*time.Second, 50*time.Millisecond, "the 1 s lease must run out")
	assert.ErrorIs(t, b.Expire(ctx, "k", "o", time.Minute), locker.ErrNotHeld)
}

// Re-entry moves the key to a lease of the new length.
func TestReentryResetsLease(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b := newBackend(t, c)
	_, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: 30 * time.Second})
	require.NoError(t, err)
	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: 2 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, 2, g.Holds)
	st, err := b.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.LessOrEqual(t, st.Remaining, 2*time.Second, "re-entry resets the lease to its own length")
}

func TestWatchShared(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b, holder := newBackend(t, c), newBackend(t, c)
	first, second := make(chan struct{}, 8), make(chan struct{}, 8)
	stop1, err := b.Watch(ctx, "k", func() { first <- struct{}{} })
	require.NoError(t, err)
	stop2, err := b.Watch(ctx, "k", func() { second <- struct{}{} })
	require.NoError(t, err)
	defer stop2()

	_, err = holder.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	_, err = holder.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.NoError(t, holder.Unlock(ctx, "k", "o"))
	require.NoError(t, holder.Unlock(ctx, "k", "o"))
	for _, ch := range []chan struct{}{first, second} {
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatal("a watcher heard of no release")
		}
	}
	assert.Empty(t, first, "acquiring and re-entering are no releases")
	assert.Empty(t, second, "acquiring and re-entering are no releases")

	stop1()
	stop1() // twice is harmless
	_, err = holder.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	ok, err := holder.ForceUnlock(ctx, "k")
	require.NoError(t, err)
	require.True(t, ok)
	select {
	case <-second:
	case <-time.After(5 * time.Second):
		t.Fatal("the remaining watcher heard of no force unlock")
	}
	assert.Empty(t, first, "a stopped watcher was called")

	// An expiry is a release too.
	_, err = holder.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Second})
	require.NoError(t, err)
	select {
	case <-second:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher heard of no expiry")
	}
}

// Replies lost in the network leave every call's outcome unknown: the
// calls end with the context and report none of the sentinels.
func TestLostRepliesAreUnknown(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	p := proxied(t, c)
	lb, err := driver.Open(ctx, "etcd://"+p.Addr())
	require.NoError(t, err)
	defer lb.Close()
	b := lb.(*etcdlocker.Backend)
	direct := newBackend(t, c)

	g, err := b.TryLock(ctx, driver.Request{Key: "held", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)

	p.StallReplies()
	short := func() context.Context { return testContext(t, 700*time.Millisecond) }
	g, err = b.TryLock(short(), driver.Request{Key: "free", Owner: "o", TTL: time.Minute})
	assertUnknown(t, err, "TryLock")
	assert.False(t, g.Acquired)
	_, err = b.TryLock(short(), driver.Request{Key: "held", Owner: "other", TTL: time.Minute})
	assertUnknown(t, err, "a TryLock that would be refused")
	assertUnknown(t, b.Unlock(short(), "held", "o"), "Unlock")
	assertUnknown(t, b.Expire(short(), "held", "o", time.Minute), "Expire")
	_, err = b.Inspect(short(), "held")
	assertUnknown(t, err, "Inspect")
	p.Heal()

	// The stalled Unlock ran on the server or not; either way the backend
	// works again and tells the truth.
	st, err := direct.Inspect(ctx, "held")
	require.NoError(t, err)
	if st.Held {
		require.NoError(t, b.Unlock(ctx, "held", "o"))
	}
	require.Eventually(t, func() bool {
		g, err := b.TryLock(ctx, driver.Request{Key: "after", Owner: "o", TTL: time.Minute})
		return err == nil && g.Acquired
	}, 20*time.Second, 100*time.Millisecond, "the backend must recover after the heal")
}

// An etcd cluster that lost its quorum can neither grant nor refuse: calls
// fail with unknown outcomes, never with "not acquired".
func TestQuorumLossIsUnknown(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	c := etcdtest.StartCluster(t, 3)
	b := newBackend(t, c)
	g, err := b.TryLock(ctx, driver.Request{Key: "held", Owner: "o", TTL: 30 * time.Second})
	require.NoError(t, err)
	require.True(t, g.Acquired)

	c.Stop(1)
	c.Stop(2)
	short := func() context.Context { return testContext(t, 2*time.Second) }
	g, err = b.TryLock(short(), driver.Request{Key: "free", Owner: "o", TTL: time.Minute})
	assertUnknown(t, err, "TryLock without quorum")
	assert.False(t, g.Acquired)
	_, err = b.TryLock(short(), driver.Request{Key: "held", Owner: "other", TTL: time.Minute})
	assertUnknown(t, err, "a refusal without quorum")
	assertUnknown(t, b.Expire(short(), "held", "o", 30*time.Second), "Expire without quorum")

	require.NoError(t, c.Restart(1))
	require.Eventually(t, func() bool {
		st, err := b.Inspect(short(), "held")
		return err == nil && st.Held && st.Owner == "o"
	}, 30*time.Second, 100*time.Millisecond, "the lock survives the loss of quorum")
	require.NoError(t, b.Unlock(ctx, "held", "o"))
}

// One member of three stops while a lock is held, the leader itself: the
// two left keep quorum, and the lock stays held and renewable.
func TestMemberStopsDuringHold(t *testing.T) {
	ctx := testContext(t, 2*time.Minute)
	c := etcdtest.StartCluster(t, 3)
	b, other := newBackend(t, c), newBackend(t, c)
	key := "held"
	lease := 3 * time.Second

	store := locker.NewStore(b)
	defer store.Close()
	m, err := store.Mutex(key, locker.WithWatchdogLease(lease))
	require.NoError(t, err)
	l, err := m.Lock(ctx)
	require.NoError(t, err)
	leader, err := c.Leader(10 * time.Second)
	require.NoError(t, err)
	c.Stop(leader)

	time.Sleep(2 * lease)
	select {
	case <-l.Done():
		t.Fatalf("the lock was lost although quorum survived: %v", l.Err())
	default:
	}
	require.NoError(t, retry(ctx, func(ctx context.Context) error { return l.Extend(ctx, lease) }),
		"the lock must stay renewable")
	st, err := other.Inspect(ctx, key)
	require.NoError(t, err)
	assert.True(t, st.Held)
	assert.Equal(t, m.Owner(), st.Owner)
	assert.Equal(t, l.Token(), st.Token)
	g, err := other.TryLock(ctx, driver.Request{Key: key, Owner: locker.NewOwner(), TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g.Acquired, "another owner must still be refused")
	require.NoError(t, l.Unlock(ctx))
	assert.ErrorIs(t, l.Err(), locker.ErrReleased)
}

// retry calls f until it succeeds, for calls that may meet the election
// after a member stopped.
func retry(ctx context.Context, f func(context.Context) error) error {
	var err error
	for range 20 {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err = f(cctx)
		cancel()
		if err == nil || errors.Is(err, locker.ErrNotHeld) || errors.Is(err, locker.ErrLost) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
	return err
}

// A watch survives a restart of the server: releases after it are heard.
func TestWatchSurvivesRestart(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b, holder := newBackend(t, c), newBackend(t, c)
	released := make(chan struct{}, 8)
	stop, err := b.Watch(ctx, "k", func() {
		select {
		case released <- struct{}{}:
		default:
		}
	})
	require.NoError(t, err)
	defer stop()
	_, err = holder.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)

	c.Stop(0)
	require.NoError(t, c.Restart(0))
	require.NoError(t, retry(ctx, func(ctx context.Context) error { return holder.Unlock(ctx, "k", "o") }))
	select {
	case <-released:
	case <-time.After(10 * time.Second):
		t.Fatal("the watcher heard of no release after the restart")
	}
}
