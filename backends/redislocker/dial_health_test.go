package redislocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
)

// A backend opened from a URL replaces pooled connections that a restarted
// server closed, as go-redis does with its own dialer, instead of failing
// its next calls with EOF (an unknown outcome).
func TestURLClientReplacesConnectionsAfterARestart(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	b, err := driver.Open(ctx, "redis://"+srv.Addr())
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	owner := locker.NewOwner()
	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	srv.Restart()
	for i := range 3 {
		_, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute})
		require.NoError(t, err, "call %d after the restart", i)
	}
}
