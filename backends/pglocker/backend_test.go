package pglocker_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/pglocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/pgtest"
	"github.com/distlock/distlock/internal/tcpproxy"
)

func TestTokensRiseAfterTheRowIsDeleted(t *testing.T) {
	srv := pgtest.Start(t)
	b := newBackend(t, srv)
	ctx := context.Background()
	var last uint64
	for i := range 3 {
		g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
		require.NoError(t, err)
		require.True(t, g.Acquired)
		assert.Greater(t, g.Token, last, "acquisition %d", i)
		last = g.Token
		require.NoError(t, b.Unlock(ctx, "k", "o"))
		st, err := b.Inspect(ctx, "k")
		require.NoError(t, err)
		assert.False(t, st.Held)
		assert.GreaterOrEqual(t, st.Token, last, "a free lock reports at least its last token")
	}
}

func TestExpireBatchRenewsEachOnce(t *testing.T) {
	srv := pgtest.Start(t)
	b := newBackend(t, srv)
	ctx := context.Background()
	for _, k := range []string{"a", "b"} {
		g, err := b.TryLock(ctx, driver.Request{Key: k, Owner: "o", TTL: time.Second})
		require.NoError(t, err)
		require.True(t, g.Acquired)
	}
	errs := b.ExpireBatch(ctx, []driver.Renewal{
		{Key: "a", Owner: "o", TTL: time.Hour},
		{Key: "b", Owner: "other", TTL: time.Hour},
		{Key: "a", Owner: "o", TTL: time.Hour},
		{Key: "", Owner: "o", TTL: time.Hour},
		{Key: "b", Owner: "o", TTL: time.Hour},
	})
	require.Len(t, errs, 5)
	assert.NoError(t, errs[0])
	assert.ErrorIs(t, errs[1], driver.ErrNotHeld)
	assert.NoError(t, errs[2], "a renewal repeated in the batch shares the first's result")
	assert.ErrorIs(t, errs[3], driver.ErrInvalid)
	assert.NoError(t, errs[4])
	for _, k := range []string{"a", "b"} {
		st, err := b.Inspect(ctx, k)
		require.NoError(t, err)
		assert.Greater(t, st.Remaining, time.Minute, "%s renewed", k)
	}
}

func TestAHoldSurvivesAServerCrash(t *testing.T) {
	srv := pgtest.Start(t, pgtest.WithFsync())
	ctx := context.Background()
	b := newBackend(t, srv)
	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)

	srv.Restart() // kill -9 of every server process
	other := newBackend(t, srv)
	g2, err := other.TryLock(ctx, driver.Request{Key: "k", Owner: "p", TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g2.Acquired, "the committed lease survived the crash")
	assert.Greater(t, g2.Remaining, 50*time.Second)
	g3, err := other.TryLock(ctx, driver.Request{Key: "fresh", Owner: "p", TTL: time.Minute})
	require.NoError(t, err)
	assert.Greater(t, g3.Token, g.Token, "the sequence survived the crash")
}

func TestWatchIsCalledAfterTheListenerReconnects(t *testing.T) {
	srv := pgtest.Start(t)
	h := newHarness(srv)
	t.Cleanup(h.Close)
	ctx := context.Background()
	b, err := h.NewBackend(ctx)
	require.NoError(t, err)
	called := make(chan struct{}, 1)
	stop, err := b.(driver.Notifier).Watch(ctx, "k", func() {
		select {
		case called <- struct{}{}:
		default:
		}
	})
	require.NoError(t, err)
	defer stop()

	require.NoError(t, h.Partition(b))
	time.Sleep(200 * time.Millisecond) // the listener sees its connection fail
	require.NoError(t, h.Heal(b))
	select {
	case <-called:
	case <-time.After(10 * time.Second):
		t.Fatal("a watcher was not called after the listening connection was made again: a release in the gap would be missed")
	}

	// And releases are heard again on the new connection.
	other := newBackend(t, srv)
	g, err := other.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	drain(called)
	require.NoError(t, other.Unlock(ctx, "k", "o"))
	select {
	case <-called:
	case <-time.After(5 * time.Second):
		t.Fatal("a release after the reconnection was not notified")
	}
}

func drain(c chan struct{}) {
	select {
	case <-c:
	default:
	}
}

func TestANameTooLongForTheIndexIsInvalid(t *testing.T) {
	srv := pgtest.Start(t)
	b := newBackend(t, srv)
	// Random bytes, which the index cannot compress below its limit.
	key := make([]byte, 8000)
	_, _ = rand.NewChaCha8([32]byte{1}).Read(key)
	_, err := b.TryLock(context.Background(), driver.Request{Key: string(key), Owner: "o", TTL: time.Minute})
	require.ErrorIs(t, err, driver.ErrInvalid)
	assert.Contains(t, err.Error(), "lock name")
}

// Over a caller's pool, Close cannot cut the connections (they are the
// caller's), and ends a call on a server that stopped answering through
// the call's context.
func TestCloseOverACallersPoolEndsAStalledCall(t *testing.T) {
	srv := pgtest.Start(t)
	p, err := tcpproxy.Start(srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })
	b, err := pglocker.New(newPool(t, srv.URL(p.Addr())))
	require.NoError(t, err)
	ctx := context.Background()
	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)

	p.Stall()
	errc := make(chan error, 1)
	go func() { errc <- b.Unlock(context.Background(), "k", "o") }()
	time.Sleep(100 * time.Millisecond) // the Unlock is in flight
	start := time.Now()
	require.NoError(t, b.Close())
	assert.Less(t, time.Since(start), 3*time.Second, "Close waited for a stalled server")
	select {
	case err := <-errc:
		assert.True(t, driver.IsUnknown(err), "a call cut short has an unknown outcome: %v", err)
	case <-time.After(3 * time.Second):
		t.Fatal("the call outlived Close")
	}
	p.Heal()
}

// A call that gets no connection from the pool before its context ends sent
// nothing: ErrUnavailable, so that a Store tries a release again.
func TestAFullPoolIsUnavailable(t *testing.T) {
	srv := pgtest.Start(t)
	pool := newPool(t, srv.URL("")+"&pool_max_conns=1")
	b, err := pglocker.New(pool)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	busy, err := pool.Acquire(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	assert.ErrorIs(t, err, driver.ErrUnavailable)
	busy.Release()
	g, err := b.TryLock(context.Background(), driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, g.Acquired)
}
