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

// A refused attempt in the holder's last millisecond (PTTL 0) must report a
// remaining lease, not 0, which means unknown and sends a waiter to sleep
// long past the expiry.
func TestRefusalInTheLastMillisecondReportsARemainingLease(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	holder, other := locker.NewOwner(), locker.NewOwner()
	refusals := 0
	for i := 0; i < 300 && refusals < 100; i++ {
		g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: holder, TTL: 2 * time.Millisecond})
		require.NoError(t, err)
		require.True(t, g.Acquired)
		start := time.Now()
		for time.Since(start) < 1500*time.Microsecond {
			g, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: other, TTL: time.Minute})
			require.NoError(t, err)
			if g.Acquired {
				require.NoError(t, b.Unlock(ctx, "k", other))
				break
			}
			refusals++
			require.Positive(t, g.Remaining, "a held lock's remaining lease is known")
		}
		_ = b.Unlock(ctx, "k", holder)
	}
	require.Positive(t, refusals)
}
