package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

var (
	readShare  = driver.Share{Mode: driver.Read}
	writeShare = driver.Share{Mode: driver.Write}
)

// permits is the Share of a semaphore of limit permits whose holds take n.
func permits(limit, n int) driver.Share {
	return driver.Share{Mode: driver.Permits, Limit: limit, Permits: n}
}

// sharer returns a new client of the store as a driver.Sharer, closed when
// the subtest ends.
func (s *suite) sharer(ctx context.Context, t *testing.T) driver.Sharer {
	t.Helper()
	b := s.backend(ctx, t)
	sr, ok := b.(driver.Sharer)
	require.True(t, ok, "a second client of the store is no driver.Sharer: %T", b)
	return sr
}

// view returns sr's view sh.
func view(t *testing.T, sr driver.Sharer, sh driver.Share) driver.Backend {
	t.Helper()
	v, err := sr.Share(sh)
	require.NoError(t, err, "Share(%+v)", sh)
	return v
}

// rwViews returns the Read and Write views of a new client.
func (s *suite) rwViews(ctx context.Context, t *testing.T) (read, write driver.Backend) {
	t.Helper()
	sr := s.sharer(ctx, t)
	return view(t, sr, readShare), view(t, sr, writeShare)
}

// attempt is owner's TryLock of key through v, which must not fail.
func attempt(ctx context.Context, t *testing.T, v driver.Backend, r driver.Request) driver.Grant {
	t.Helper()
	g, err := v.TryLock(ctx, r)
	require.NoError(t, err, "TryLock by %.12s", r.Owner)
	if g.Acquired {
		assert.Positive(t, g.Holds, "an acquired Grant's hold count")
	} else {
		assert.Zero(t, g.Holds, "a refused Grant's hold count")
		assert.Zero(t, g.Token, "a refused Grant's token")
	}
	return g
}

// takes checks that owner's attempt on key through v, with a lease of ttl,
// acquires, and returns its Grant.
func takes(ctx context.Context, t *testing.T, v driver.Backend, key, owner string, ttl time.Duration, why string) driver.Grant {
	t.Helper()
	g := attempt(ctx, t, v, driver.Request{Key: key, Owner: owner, TTL: ttl})
	require.True(t, g.Acquired, why)
	return g
}

// keptOut checks that owner's attempt on key through v, with the patience
// given, is refused, and returns its Grant, whose Remaining must be
// positive and at most limit when the store reports one.
func keptOut(ctx context.Context, t *testing.T, s *suite, v driver.Backend, key, owner string, patience, limit time.Duration, why string) driver.Grant {
	t.Helper()
	g := attempt(ctx, t, v, driver.Request{Key: key, Owner: owner, TTL: s.long, Patience: patience})
	assert.False(t, g.Acquired, why)
	if g.Remaining != 0 {
		assert.Positive(t, g.Remaining, "%s: Remaining", why)
		assert.LessOrEqual(t, g.Remaining, limit+s.h.Granularity(), "%s: Remaining beyond what is in the way", why)
	}
	return g
}

// unlocks drops one of owner's holds of key through v.
func unlocks(ctx context.Context, t *testing.T, v driver.Backend, key, owner string) {
	t.Helper()
	require.NoError(t, v.Unlock(ctx, key, owner), "Unlock by %.12s", owner)
}

// dequeue takes owner off key's wait list through v, a view with a wait
// list, which must be a driver.Dequeuer.
func dequeue(ctx context.Context, t *testing.T, v driver.Backend, key, owner string) {
	t.Helper()
	d, ok := v.(driver.Dequeuer)
	require.True(t, ok, "a view with a wait list must be a driver.Dequeuer: %T", v)
	require.NoError(t, d.Dequeue(ctx, key, owner), "Dequeue of %.12s", owner)
}

// owners returns n new owners, named so that they sort in the order
// given.
func owners(n int) []string {
	os := make([]string, n)
	for i := range os {
		os[i] = string(rune('a'+i)) + "-" + locker.NewOwner()
	}
	return os
}

// sharedState returns key's state through v, or skips the subtest when v
// cannot say.
func sharedState(ctx context.Context, t *testing.T, v driver.Backend, key string) driver.State {
	t.Helper()
	in, ok := v.(driver.Inspector)
	if !ok {
		t.Skip("the view has no inspection (driver.Inspector)")
	}
	st, err := in.Inspect(ctx, key)
	require.NoError(t, err, "Inspect")
	return st
}

// watchShared counts what a watcher of key through v hears, or returns
// nil when v has no release notification.
func watchShared(ctx context.Context, t *testing.T, v driver.Backend, key string) chan struct{} {
	t.Helper()
	n, ok := v.(driver.Notifier)
	if !ok {
		return nil
	}
	heard := make(chan struct{}, 64)
	stop, err := n.Watch(ctx, key, func() {
		select {
		case heard <- struct{}{}:
		default:
		}
	})
	require.NoError(t, err, "Watch")
	t.Cleanup(stop)
	return heard
}

// hears checks that a watcher made by watchShared hears something within
// notifyLimit; nil, the watcher of a view without notification, hears
// nothing and is not checked.
func hears(t *testing.T, heard chan struct{}, why string) {
	t.Helper()
	if heard == nil {
		return
	}
	select {
	case <-heard:
	case <-time.After(notifyLimit):
		t.Fatalf("%s: the watcher heard nothing within %v", why, notifyLimit)
	}
}

// keepsToken checks the token holder h keeps against the token of its
// grant: a view that releases by token (driver.HoldUnlocker) must report
// it, another may report 0 instead.
func keepsToken(t *testing.T, v driver.Backend, h driver.Holder, token uint64) {
	t.Helper()
	if _, ok := v.(driver.HoldUnlocker); ok || h.Token != 0 {
		assert.Equal(t, token, h.Token, "the token %.12s keeps in mode %v", h.Owner, h.Mode)
	}
}
