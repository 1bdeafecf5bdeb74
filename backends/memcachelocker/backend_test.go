package memcachelocker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/bradfitz/gomemcache/memcache"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memcachelocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/memcachedtest"
	"github.com/distlock/distlock/internal/storetest"
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

func newBackend(t *testing.T, s *memcachedtest.Server) *memcachelocker.Backend {
	t.Helper()
	b, err := memcachelocker.New(s.Client(t))
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func TestNewInvalid(t *testing.T) {
	_, err := memcachelocker.New(nil)
	assert.ErrorIs(t, err, locker.ErrInvalid)
	mc := memcache.New("127.0.0.1:1")
	for _, p := range []string{"with space", "tab\t", "nl\n", "del\x7f", strings.Repeat("p", 185)} {
		_, err = memcachelocker.New(mc, memcachelocker.WithPrefix(p))
		assert.ErrorIs(t, err, locker.ErrInvalid, "prefix %q", p)
	}
	b, err := memcachelocker.New(mc, memcachelocker.WithPrefix(strings.Repeat("p", 184)))
	require.NoError(t, err)
	assert.Len(t, b.LockKey("x"), 250, "the longest prefix still makes valid keys")
}

// Lock names of any bytes map to distinct valid memcached keys.
func TestKeysAreValid(t *testing.T) {
	b, err := memcachelocker.New(memcache.New("127.0.0.1:1"))
	require.NoError(t, err)
	names := []string{"a", "b", "with space", "nl\n", "nul\x00", "ключ🔒", strings.Repeat("k", 1024), "\xff\xfe"}
	seen := make(map[string]string)
	for _, n := range names {
		for _, k := range []string{b.LockKey(n), b.CounterKey(n)} {
			assert.LessOrEqual(t, len(k), 250, "key of %q", n)
			assert.True(t, strings.HasPrefix(k, memcachelocker.DefaultPrefix))
			for i := 0; i < len(k); i++ {
				assert.Greater(t, k[i], byte(' '), "key of %q has a space or control character", n)
				assert.NotEqual(t, byte(0x7f), k[i])
			}
			prev, dup := seen[k]
			assert.False(t, dup, "%q and %q share key %s", n, prev, k)
			seen[k] = n
		}
	}
}

func TestCloseLeavesCallersClient(t *testing.T) {
	ctx := testContext(t, time.Minute)
	s := memcachedtest.Start(t)
	mc := s.Client(t)
	b, err := memcachelocker.New(mc)
	require.NoError(t, err)
	require.NoError(t, b.Close())
	require.NoError(t, b.Close(), "closing twice")
	_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	assert.ErrorIs(t, err, locker.ErrClosed)
	_, err = b.Inspect(ctx, "k")
	assert.ErrorIs(t, err, locker.ErrClosed)
	assert.ErrorIs(t, driver.ExpireAll(ctx, b, []driver.Renewal{{Key: "k", Owner: "o", TTL: time.Second}})[0], locker.ErrClosed)
	assert.NoError(t, mc.Set(&memcache.Item{Key: "still", Value: []byte("open")}), "the caller's client still works")
}

func TestLeaseLimits(t *testing.T) {
	ctx := testContext(t, time.Minute)
	s := memcachedtest.Start(t)
	b := newBackend(t, s)
	_, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: 31 * 24 * time.Hour})
	assert.ErrorIs(t, err, locker.ErrInvalid, "over 30 days memcached reads expiry as absolute time")
	assert.ErrorIs(t, b.Expire(ctx, "k", "o", memcachelocker.MaxLease+time.Second), locker.ErrInvalid)

	// The longest lease is still relative: the lock is there and long.
	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: memcachelocker.MaxLease})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	st, err := b.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.True(t, st.Held)
	assert.Greater(t, st.Remaining, 29*24*time.Hour)
	require.NoError(t, b.Unlock(ctx, "k", "o"))
}

// memcached restarts empty while a lock is held: the holder learns of the
// loss at its next renewal, and tokens still rise afterwards.
func TestRestartDuringHold(t *testing.T) {
	ctx := testContext(t, time.Minute)
	s := memcachedtest.Start(t)
	b, other := newBackend(t, s), newBackend(t, s)
	bs, others := storetest.Of(t, b), storetest.Of(t, other)
	const key = "restart"
	lease := 3 * time.Second

	var last uint64
	for range 3 {
		l, err := others.Mutex(key)
		require.NoError(t, err)
		h, err := l.Lock(ctx, locker.WithLease(time.Minute))
		require.NoError(t, err)
		last = h.Token()
		require.NoError(t, h.Unlock(ctx))
	}
	m, err := bs.Mutex(key, locker.WithWatchdogLease(lease))
	require.NoError(t, err)
	held, err := m.Lock(ctx)
	require.NoError(t, err)
	assert.Greater(t, held.Token(), last)

	require.NoError(t, s.Restart())
	select {
	case <-held.Done():
		assert.ErrorIs(t, held.Err(), locker.ErrLost)
	case <-time.After(2 * lease):
		t.Fatal("Done did not close after memcached forgot the lock")
	}
	assert.ErrorIs(t, held.Unlock(ctx), locker.ErrLost)

	next, err := others.Mutex(key)
	require.NoError(t, err)
	// other's pooled connection died with the old server: its first call
	// fails with an unknown outcome (EOF), the next one reconnects.
	var l *locker.Lease
	for range 3 {
		if l, err = next.Lock(ctx, locker.WithLease(time.Minute)); err == nil {
			break
		}
		require.True(t, locker.IsUnknown(err), "an unknown outcome is no sentinel: %v", err)
	}
	require.NoError(t, err, "the lock is free after the restart")
	assert.Greater(t, l.Token(), held.Token(), "tokens must rise across a restart")
	require.NoError(t, l.Unlock(ctx))
}

// An evicted lock is gone for its holder too: renewals say so, and the next
// holder's token is higher.
func TestEvictedLock(t *testing.T) {
	ctx := testContext(t, time.Minute)
	s := memcachedtest.Start(t)
	b, other := newBackend(t, s), newBackend(t, s)
	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.NoError(t, s.Client(t).Delete(b.LockKey("k")))
	assert.ErrorIs(t, b.Expire(ctx, "k", "o", time.Minute), locker.ErrNotHeld)
	assert.ErrorIs(t, b.Unlock(ctx, "k", "o"), locker.ErrNotHeld)
	g2, err := other.TryLock(ctx, driver.Request{Key: "k", Owner: "p", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g2.Acquired)
	assert.Greater(t, g2.Token, g.Token)
}

// A counter that was lost and seeded too low (by a client whose clock
// lags) is lifted past the last token a tombstone remembers.
func TestTokenFloorFromTombstone(t *testing.T) {
	ctx := testContext(t, time.Minute)
	s := memcachedtest.Start(t)
	b := newBackend(t, s)
	mc := s.Client(t)
	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.NoError(t, b.Unlock(ctx, "k", "o"))
	require.NoError(t, mc.Set(&memcache.Item{Key: b.CounterKey("k"), Value: []byte("5")}))
	g2, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g2.Acquired)
	assert.Greater(t, g2.Token, g.Token)

	// And a counter lost altogether is seeded from the clock, past both.
	require.NoError(t, b.Unlock(ctx, "k", "o"))
	require.NoError(t, mc.Delete(b.CounterKey("k")))
	require.NoError(t, mc.Delete(b.LockKey("k")))
	g3, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	assert.Greater(t, g3.Token, g2.Token)
	assert.GreaterOrEqual(t, g3.Token, uint64(time.Now().Add(-time.Minute).UnixMicro()), "seeded from the clock")
}

// Replies lost in the network leave a call's outcome unknown: every call
// fails with an error that is none of the sentinels, and the backend works
// again once the network heals.
func TestLostRepliesAreUnknown(t *testing.T) {
	ctx := testContext(t, time.Minute)
	s := memcachedtest.Start(t)
	p, err := tcpproxy.Start(s.Addr())
	require.NoError(t, err)
	defer p.Close()
	lb, err := driver.Open(ctx, "memcache://"+p.Addr()+"/?timeout=300ms")
	require.NoError(t, err)
	defer lb.Close()
	b := lb.(*memcachelocker.Backend)
	direct := newBackend(t, s)

	_, err = b.TryLock(ctx, driver.Request{Key: "held", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	p.StallReplies()
	g, err := b.TryLock(ctx, driver.Request{Key: "free", Owner: "o", TTL: time.Minute})
	assertUnknown(t, err, "TryLock")
	assert.False(t, g.Acquired)
	assertUnknown(t, b.Unlock(ctx, "held", "o"), "Unlock")
	assertUnknown(t, b.Expire(ctx, "held", "o", time.Minute), "Expire")
	_, err = b.Inspect(ctx, "held")
	assertUnknown(t, err, "Inspect")
	_, err = b.ForceUnlock(ctx, "held")
	assertUnknown(t, err, "ForceUnlock")
	assertUnknown(t, driver.ExpireAll(ctx, b, []driver.Renewal{{Key: "held", Owner: "o", TTL: time.Minute}})[0], "ExpireBatch")
	p.Heal()

	// Each call above stalled on its first read, so none of them wrote.
	st, err := direct.Inspect(ctx, "held")
	require.NoError(t, err)
	assert.True(t, st.Held)
	assert.Equal(t, "o", st.Owner)
	require.Eventually(t, func() bool { return b.Unlock(ctx, "held", "o") == nil }, 10*time.Second, 50*time.Millisecond,
		"the backend must work again after the heal")
}

func TestOpenedBackendUsesPrefix(t *testing.T) {
	ctx := testContext(t, time.Minute)
	s := memcachedtest.Start(t)
	lb, err := driver.Open(ctx, "memcache://"+s.Addr()+"/?prefix=owned:&max_idle_conns=4")
	require.NoError(t, err)
	b := lb.(*memcachelocker.Backend)
	assert.Equal(t, "owned:", b.Prefix())
	assert.Equal(t, 4, b.Client().MaxIdleConns)
	_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(b.LockKey("k"), "owned:l:"))
	_, err = s.Client(t).Get(b.LockKey("k"))
	assert.NoError(t, err, "the lock item lives under the URL's prefix")
	require.NoError(t, b.Close())
	_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	assert.ErrorIs(t, err, locker.ErrClosed)
}
