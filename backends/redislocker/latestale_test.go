package redislocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/tcpproxy"
	"github.com/distlock/distlock/locker"
)

// TestALateReleaseDropsNoLaterHold: an Unlock whose request is held up in
// the network (the client gave up on it and released again on a new
// connection) reaches the server after the same Mutex has locked again.
// It must not release that later hold: another owner must still be
// refused.
func TestALateReleaseDropsNoLaterHold(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	proxy, err := tcpproxy.Start(srv.Addr())
	require.NoError(t, err)
	defer proxy.Close()
	client := redis.NewClient(&redis.Options{Addr: proxy.Addr(), ContextTimeoutEnabled: true})
	b, err := redislocker.New(client, redislocker.WithOwnedClient())
	require.NoError(t, err)
	store := locker.NewStore(b)
	defer store.Close()
	m, err := store.Mutex("late-release")
	require.NoError(t, err)
	other := locker.NewStore(newBackend(t, srv.Addr()))
	defer other.Close()
	rival, err := other.Mutex("late-release")
	require.NoError(t, err)

	l, err := m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	proxy.StallOpenRequests()
	uctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	err = l.Unlock(uctx)
	cancel()
	require.True(t, locker.IsUnknown(err), "the release's request is held: %v", err)

	// The Mutex releases again in the background, on a new connection,
	// before it locks again.
	l2, err := m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	defer func() { _ = l2.Unlock(ctx) }()
	proxy.Heal()
	// The held release reaches the server now; wait until its connection
	// is gone, so that it has run.
	time.Sleep(200 * time.Millisecond)

	_, err = rival.TryLock(ctx, locker.WithLease(time.Minute))
	assert.ErrorIs(t, err, locker.ErrNotAcquired, "the late release dropped the later hold")
	held, err := m.HoldCount(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1, held)
}
