package redislocker

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
)

// lingering returns a server and a backend of it whose counter lingers 2 s.
func lingering(t *testing.T) (*redistest.Server, *Backend) {
	t.Helper()
	srv := redistest.Start(t)
	b, err := New(redis.NewClient(&redis.Options{Addr: srv.Addr()}), WithOwnedClient(), WithFenceLinger(2*time.Second))
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	return srv, b
}

// TestCounterOutlivesTheLockByTheLinger: the lock hash, which keeps the
// fencing counter, expires at least the linger after every lease, so a
// release or a lapsed lease leaves the counter at least the linger.
func TestCounterOutlivesTheLockByTheLinger(t *testing.T) {
	ctx := context.Background()
	srv, b := lingering(t)
	k := b.keys("k")
	counterTTL := func() time.Duration {
		reply, err := srv.Do("PTTL", k.lock)
		require.NoError(t, err)
		return time.Duration(reply.(int64)) * time.Millisecond
	}

	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: 5 * time.Second})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	assert.Greater(t, counterTTL(), 6*time.Second, "while held: the lease plus the linger")
	require.NoError(t, b.Unlock(ctx, "k", "o"))
	assert.Greater(t, counterTTL(), 5*time.Second, "the release leaves the counter alone")

	// A short lease that runs out still leaves the counter its linger.
	_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: 300 * time.Millisecond})
	require.NoError(t, err)
	require.NoError(t, b.Expire(ctx, "k", "o", 200*time.Millisecond))
	time.Sleep(400 * time.Millisecond)
	st, err := b.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.False(t, st.Held, "the lease ran out")
	assert.Greater(t, counterTTL(), time.Second, "the counter lingers after a lapsed lease")
	g2, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Second})
	require.NoError(t, err)
	assert.Greater(t, g2.Token, g.Token, "tokens keep rising")
}

// TestPersistedLockKeepsItsLease: the scripts read the clock from the lock
// hash's expiry; a hash someone made persistent has none, and its lease
// must still hold (by TIME), and the next acquisition sets the expiry again.
func TestPersistedLockKeepsItsLease(t *testing.T) {
	ctx := context.Background()
	srv, b := lingering(t)
	k := b.keys("k")
	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	_, err = srv.Do("PERSIST", k.lock)
	require.NoError(t, err)

	other, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "p", TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, other.Acquired, "the lease still holds")
	assert.Greater(t, other.Remaining, 50*time.Second)
	st, err := b.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.True(t, st.Held)
	assert.Equal(t, "o", st.Owner)
	require.NoError(t, b.Unlock(ctx, "k", "o"))

	again, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "p", TTL: time.Second})
	require.NoError(t, err)
	require.True(t, again.Acquired)
	assert.Greater(t, again.Token, g.Token)
	reply, err := srv.Do("PTTL", k.lock)
	require.NoError(t, err)
	assert.Greater(t, reply.(int64), int64(2000), "the acquisition set the expiry again: the lease and the linger")
}
