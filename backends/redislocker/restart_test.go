package redislocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// TestTokensRiseAcrossRestart restarts a server without persistence: the
// fencing counter is gone, and the next token still exceeds every earlier
// one.
func TestTokensRiseAcrossRestart(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	ctx := context.Background()
	const key = "fenced"

	var last uint64
	var before driver.Grant
	for range 3 {
		o := locker.NewOwner()
		g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: time.Minute})
		require.NoError(t, err)
		require.Greater(t, g.Token, last)
		last = g.Token
		require.NoError(t, b.Unlock(ctx, key, o))
		before = g
	}
	// Grants carry the server's uptime, for RedLock's restart guard.
	assert.Positive(t, before.Uptime)
	time.Sleep(1100 * time.Millisecond)
	g, err := b.TryLock(ctx, driver.Request{Key: "uptime", Owner: locker.NewOwner(), TTL: time.Minute})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, g.Uptime, time.Second, "uptime is counted in seconds")
	before = g

	srv.Restart()
	require.Eventually(t, func() bool {
		st, err := b.Inspect(ctx, key)
		return err == nil && !st.Held && st.Token == 0
	}, 10*time.Second, 10*time.Millisecond, "the restarted server must have lost the counter")

	o := locker.NewOwner()
	g, err = b.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	assert.Greater(t, g.Token, last, "the first token after the restart must exceed the last one before it")
	assert.Positive(t, g.Uptime)
	assert.Less(t, g.Uptime, before.Uptime, "the restart resets the uptime")
	again, err := b.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, g.Token, again.Token, "re-entry keeps the token")
}

// TestRestartDuringHoldClosesDone restarts the server under a watchdog
// lease: the renewal finds the lock gone and the lease reports the loss;
// the next holder gets a higher token.
func TestRestartDuringHoldClosesDone(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	ctx := context.Background()
	store := storetest.Of(t, b)
	m, err := store.Mutex("restarted", locker.WithWatchdogLease(900*time.Millisecond))
	require.NoError(t, err)
	lease, err := m.Lock(ctx)
	require.NoError(t, err)

	srv.Restart()
	select {
	case <-lease.Done():
		assert.ErrorIs(t, lease.Err(), locker.ErrLost)
	case <-time.After(10 * time.Second):
		t.Fatal("Done did not close after the server lost the lock")
	}
	assert.ErrorIs(t, lease.Unlock(ctx), locker.ErrLost)

	next, err := store.Mutex("restarted")
	require.NoError(t, err)
	l2, err := next.TryLock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	assert.Greater(t, l2.Token(), lease.Token(), "tokens rise across the restart")
	require.NoError(t, l2.Unlock(ctx))
}

// TestPersistentRestartKeepsLocksAndUptime restarts a server that fsyncs
// every write: the lock survives, and the uptime the grants report counts
// from before the restart, since no lock data was lost.
func TestPersistentRestartKeepsLocksAndUptime(t *testing.T) {
	srv := redistest.Start(t, redistest.WithAppendOnly())
	b := newBackend(t, srv.Addr())
	ctx := context.Background()
	o := locker.NewOwner()
	first, err := b.TryLock(ctx, driver.Request{Key: "durable", Owner: o, TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, first.Acquired)
	time.Sleep(300 * time.Millisecond)

	srv.Restart()
	require.Eventually(t, func() bool {
		_, err := b.Inspect(ctx, "durable")
		return err == nil
	}, 10*time.Second, 10*time.Millisecond)
	st, err := b.Inspect(ctx, "durable")
	require.NoError(t, err)
	assert.True(t, st.Held, "an fsynced lock survives the restart")
	assert.Equal(t, first.Token, st.Token)
	g, err := b.TryLock(ctx, driver.Request{Key: "other", Owner: locker.NewOwner(), TTL: time.Minute})
	require.NoError(t, err)
	assert.GreaterOrEqual(t, g.Uptime, first.Uptime+300*time.Millisecond,
		"the lock data is older than the restarted process")
}
