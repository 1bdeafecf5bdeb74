package quorumtest_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/redlock"
)

// twoClients returns a harness of RedLocks over three in-memory stores and
// two of its combinators.
func twoClients(t *testing.T) (*quorumtest.Harness, driver.Backend, driver.Backend) {
	t.Helper()
	ctx := context.Background()
	h := quorumtest.NewHarness(quorumtest.NewMem(3), func(members []driver.Backend) (driver.Backend, error) {
		return redlock.New(members)
	})
	t.Cleanup(h.Close)
	b1, err := h.NewBackend(ctx)
	require.NoError(t, err)
	b2, err := h.NewBackend(ctx)
	require.NoError(t, err)
	return h, b1, b2
}

// TestHarnessPartitionsEveryMember: partitioning a combinator the harness
// made partitions each of its member clients, and only those.
func TestHarnessPartitionsEveryMember(t *testing.T) {
	ctx := context.Background()
	h, b1, b2 := twoClients(t)
	require.NoError(t, h.Partition(b1))
	_, err := b1.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	assert.ErrorContains(t, err, "partitioned")
	g, err := b2.TryLock(ctx, driver.Request{Key: "k", Owner: "o2", TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, g.Acquired, "other clients are not partitioned")
	require.NoError(t, h.Heal(b1))
	assert.NoError(t, b2.Unlock(ctx, "k", "o2"))
	g, err = b1.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, g.Acquired)
	assert.Error(t, h.Partition(memlocker.New()), "not a backend of the harness")
}

// TestHarnessStallsEveryMember: stalling a combinator the harness made
// stalls each of its member clients until their context ends, and only
// those, until Resume.
func TestHarnessStallsEveryMember(t *testing.T) {
	ctx := context.Background()
	h, b1, b2 := twoClients(t)
	require.NoError(t, h.Stall(b1))
	sctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	g, err := b1.TryLock(sctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	assert.Error(t, err, "a stalled combinator answers nothing")
	assert.False(t, g.Acquired)
	g, err = b2.TryLock(ctx, driver.Request{Key: "k", Owner: "o2", TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, g.Acquired, "other clients are not stalled")
	require.NoError(t, b2.Unlock(ctx, "k", "o2"))
	require.NoError(t, h.Resume(b1))
	g, err = b1.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, g.Acquired)
	assert.Error(t, h.Stall(memlocker.New()), "not a backend of the harness")
}

// TestHooked fails the hooked operation only.
func TestHooked(t *testing.T) {
	ctx := context.Background()
	h := quorumtest.NewHooked(memlocker.NewStore())
	injected := errors.New("injected")
	h.SetHook(func(op string) error {
		if op == "expire" {
			return injected
		}
		return nil
	})
	_, err := h.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	assert.ErrorIs(t, h.Expire(ctx, "k", "o", time.Minute), injected)
	assert.NoError(t, h.Fence(ctx, "k", "o", 9))
	assert.NoError(t, h.Unlock(ctx, "k", "o"))
	_, isInspector := driver.Backend(quorumtest.Bare{Backend: h}).(driver.Inspector)
	assert.False(t, isInspector, "Bare hides capabilities")
}
