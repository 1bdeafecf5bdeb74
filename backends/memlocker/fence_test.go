package memlocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

func TestFence(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	g, err := c.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	assert.ErrorIs(t, c.Fence(ctx, "k", "other", 50), locker.ErrNotHeld)
	assert.ErrorIs(t, c.Fence(ctx, "free", "o", 50), locker.ErrNotHeld)
	assert.ErrorIs(t, c.Fence(ctx, "k", "o", 0), locker.ErrInvalid)
	require.NoError(t, c.Fence(ctx, "k", "o", 50))
	require.NoError(t, c.Fence(ctx, "k", "o", g.Token), "a lower token changes nothing")

	again, err := c.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, uint64(50), again.Token, "re-entry returns the raised token")
	st, err := c.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, uint64(50), st.Token)
	require.NoError(t, c.Unlock(ctx, "k", "o"))
	require.NoError(t, c.Unlock(ctx, "k", "o"))

	next, err := c.TryLock(ctx, driver.Request{Key: "k", Owner: "n", TTL: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, uint64(51), next.Token, "the counter was raised with the hold")
}

func TestRestart(t *testing.T) {
	ctx := context.Background()
	clock := memlocker.NewManualClock(time.Unix(1_000_000, 0))
	s := memlocker.NewStore(memlocker.WithClock(clock))
	c := s.Client()
	g, err := c.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	assert.Zero(t, g.Uptime, "a store that never restarted reports no uptime")

	released := make(chan struct{}, 1)
	stop, err := c.Watch(ctx, "k", func() {
		select {
		case released <- struct{}{}:
		default:
		}
	})
	require.NoError(t, err)
	defer stop()
	s.Restart()
	select {
	case <-released:
	default:
		t.Fatal("a restart releases every lock, and watchers hear of it")
	}
	st, err := c.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.False(t, st.Held, "the restart dropped the lock")
	assert.Zero(t, st.Token, "and the counter")

	g, err = c.TryLock(ctx, driver.Request{Key: "k", Owner: "n", TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, g.Acquired)
	assert.Equal(t, uint64(1), g.Token)
	assert.Equal(t, time.Nanosecond, g.Uptime, "at least a nanosecond once known")
	clock.Advance(3 * time.Second)
	g, err = c.TryLock(ctx, driver.Request{Key: "other", Owner: "n", TTL: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, 3*time.Second, g.Uptime)
	g, err = c.TryLock(ctx, driver.Request{Key: "other", Owner: "x", TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g.Acquired)
	assert.Equal(t, 3*time.Second, g.Uptime, "a refusal reports the uptime too")
}

func TestEndpoint(t *testing.T) {
	s := memlocker.NewStore()
	assert.Equal(t, s.Client().Endpoint(), s.Client().Endpoint(), "clients of one store")
	assert.NotEqual(t, s.Client().Endpoint(), memlocker.New().Endpoint(), "different stores")
}
