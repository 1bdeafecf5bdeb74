package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

// passBackend is a backend that can pass its lock to a named waiter.
type passBackend interface {
	driver.Backend
	driver.Passer
}

// passer returns a new client that can pass its lock to a named waiter,
// closed when the subtest ends.
func (s *suite) passer(ctx context.Context, t *testing.T) passBackend {
	t.Helper()
	b := s.backend(ctx, t)
	p, ok := b.(passBackend)
	require.True(t, ok, "a second client of the store cannot pass its lock (driver.Passer): %T", b)
	return p
}

// watchPasses is watchQueue with each owner's whole turns (WatchTurns).
func (s *suite) watchPasses(ctx context.Context, t *testing.T, p passBackend, key string, owners ...string) queueWatchers {
	t.Helper()
	return s.watchTurns(ctx, t, p, key, owners, func(owner string, fn func(driver.Turn)) (func(), error) {
		return p.WatchTurns(ctx, key, owner, fn)
	})
}

// expectTurn waits for a turn of owner's that carries a grant, passing
// over wake-ups, and returns it: what a Passer's turn tells of the grant
// (Floor, Passed, Next) is what a combinator's holder and heir act on,
// which a wake-up cannot carry.
func (ws queueWatchers) expectTurn(t *testing.T, owner, why string) driver.Turn {
	t.Helper()
	return ws.await(t, owner, why, "turn with a grant", func(turn driver.Turn) bool { return turn.Grant.Acquired })
}

// expectNotice waits for a notice to owner (Turn.Behind), passing over
// wake-ups, and returns it.
func (ws queueWatchers) expectNotice(t *testing.T, owner, why string) driver.Turn {
	t.Helper()
	return ws.await(t, owner, why, "notice", func(turn driver.Turn) bool { return turn.Behind != 0 })
}

// await waits for a call of owner's turn watcher that is a what, passing
// over the others, and returns it.
func (ws queueWatchers) await(t *testing.T, owner, why, what string, is func(driver.Turn) bool) driver.Turn {
	t.Helper()
	w := ws[owner]
	require.NotNil(t, w, "owner %q's turns are not watched", owner)
	deadline := time.After(notifyLimit)
	for {
		select {
		case turn := <-w.calls:
			if is(turn) {
				return turn
			}
		case <-deadline:
			t.Fatalf("%s: no %s within %v", why, what, notifyLimit)
		}
	}
}

// floorAbove returns a token floor above every token the store has given,
// as a combinator's floor may be, plus i, so that each waiter of a
// subtest has a floor of its own; it stays below 2^53, the largest token
// every store can keep.
func floorAbove(i int) uint64 {
	return uint64(time.Now().Add(time.Hour).UnixMicro()) + uint64(i)
}

// waitWith makes owner wait for key through q with floor, as a waiter
// that a release may name asks: a lease of ttl, patience from now.
func waitWith(ctx context.Context, t *testing.T, q driver.Backend, key, owner string, ttl, patience time.Duration, floor uint64) driver.Grant {
	t.Helper()
	return queueRequest(ctx, t, q, driver.Request{Key: key, Owner: owner, TTL: ttl, Patience: patience, Floor: floor})
}
