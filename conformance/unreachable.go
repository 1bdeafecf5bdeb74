package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/noserver"
	"github.com/distlock/distlock/locker"
)

// Unreachable is an optional Harness capability: making a backend of the
// store's kind that points at an address where no store listens. The suite
// uses it to check that a store that cannot be reached is reported as
// driver.ErrUnavailable (nothing was sent, nothing needs releasing), not
// as an unknown outcome.
type Unreachable interface {
	// NewUnreachableBackend returns a backend whose only store address is
	// addr, "127.0.0.1:port", which refuses connections for as long as the
	// test runs, and so does every other loopback address at that port (a
	// combinator's members may use 127.0.0.2, 127.0.0.3, … to stay distinct
	// stores). The suite closes the backend.
	NewUnreachableBackend(ctx context.Context, addr string) (driver.Backend, error)
}

// unreachableLimit is the context of each call to an unreachable store:
// the call must fail well within it, not run it out.
const unreachableLimit = 2 * time.Second

func testUnreachable(ctx context.Context, t *testing.T, s *suite) {
	u, ok := s.h.(Unreachable)
	if !ok {
		t.Skip("harness cannot make a backend of an unreachable store (conformance.Unreachable)")
	}
	addr := noserver.Addr(t)
	b, err := u.NewUnreachableBackend(ctx, addr)
	require.NoError(t, err, "making a backend of %s", addr)
	t.Cleanup(func() { _ = b.Close() })
	key, owner := s.key(t, ""), locker.NewOwner()

	calls := []struct {
		name string
		call func(ctx context.Context) error
	}{
		{"TryLock", func(ctx context.Context) error {
			_, err := b.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: s.long})
			return err
		}},
		{"Unlock", func(ctx context.Context) error { return b.Unlock(ctx, key, owner) }},
		{"Expire", func(ctx context.Context) error { return b.Expire(ctx, key, owner, s.long) }},
	}
	for _, c := range calls {
		cctx, cancel := context.WithTimeout(ctx, unreachableLimit)
		start := time.Now()
		err := c.call(cctx)
		took := time.Since(start)
		cancel()
		require.ErrorIs(t, err, driver.ErrUnavailable, "%s on an unreachable store", c.name)
		assert.False(t, locker.IsUnknown(err), "%s on an unreachable store: nothing was sent, the outcome is known: %v", c.name, err)
		assert.Less(t, took, unreachableLimit, "%s ran out its context instead of failing", c.name)
	}
}
