package quorum

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	_ "github.com/distlock/distlock/backends/redislocker" // redis://
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
)

// margin is how long past its deadline a call may return.
const margin = 100 * time.Millisecond

// withinDeadline runs call with a 200 ms context and checks that it
// returns by the deadline plus the margin, whatever the members do.
func withinDeadline(t *testing.T, what string, call func(ctx context.Context) error) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err := call(ctx)
	assert.Less(t, time.Since(start), 200*time.Millisecond+margin, what)
	return err
}

// everyCall checks every combinator call against a stalled member: a
// TryLock of key "k", and the other calls on another key, so that they do
// not change what the stalled member does with "k" once it resumes.
func everyCall(t *testing.T, b driver.Backend) {
	t.Helper()
	err := withinDeadline(t, "trylock", func(ctx context.Context) error {
		g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: 10 * time.Second})
		assert.False(t, g.Acquired)
		return err
	})
	require.Error(t, err)
	assert.NotErrorIs(t, err, driver.ErrNotAcquired, "nobody else holds the lock")
	assert.ErrorIs(t, err, driver.ErrUnavailable)
	withinDeadline(t, "unlock", func(ctx context.Context) error { return b.Unlock(ctx, "other", "o") })
	withinDeadline(t, "expire", func(ctx context.Context) error { return b.Expire(ctx, "other", "o", 10*time.Second) })
	withinDeadline(t, "inspect", func(ctx context.Context) error { _, err := b.(driver.Inspector).Inspect(ctx, "other"); return err })
	withinDeadline(t, "forceunlock", func(ctx context.Context) error {
		_, err := b.(driver.ForceUnlocker).ForceUnlock(ctx, "other")
		return err
	})
	withinDeadline(t, "fence", func(ctx context.Context) error { return core(b).fenceKey(ctx, "other", "o", 1) })
	withinDeadline(t, "watch", func(ctx context.Context) error {
		stop, err := b.(driver.Notifier).Watch(ctx, "other", func() {})
		if err == nil {
			stop()
		}
		return err
	})
}

// TestStalledMemberInMemory: a member whose calls take 10 s holds no call
// past its caller's deadline; the release of the failed attempt goes on in
// the background and reaches the member once it answers again.
func TestStalledMemberInMemory(t *testing.T) {
	stalled := memlocker.New()
	b, err := New(All, []driver.Backend{memlocker.New(), memlocker.New(), stalled}, DefaultSettings(All))
	require.NoError(t, err)
	defer b.Close()
	stalled.SetLatency(10 * time.Second)
	everyCall(t, b)

	// The release asks the member which hold the attempt left (Inspect),
	// then releases it, if there is one.
	asked := func() int { return stalled.Calls("inspect") + stalled.Calls("unlock") }
	before := asked()
	stalled.SetLatency(0)
	core(b).bg.wg.Wait()
	assert.Greater(t, asked(), before, "the background release reached the member once it answered")
	st, err := stalled.Inspect(context.Background(), "k")
	require.NoError(t, err)
	assert.False(t, st.Held)
}

// TestStalledMemberRedis: the same with a paused (SIGSTOP) Redis server:
// the attempt reaches it, so it holds the lock once it resumes, and the
// background release frees it.
func TestStalledMemberRedis(t *testing.T) {
	ctx := context.Background()
	srv := redistest.Start(t)
	rc, err := driver.Open(ctx, "redis://"+srv.Addr())
	require.NoError(t, err)
	b, err := New(All, []driver.Backend{memlocker.New(), memlocker.New(), rc}, DefaultSettings(All))
	require.NoError(t, err)
	defer b.Close()
	g, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: 10 * time.Second}) // the connection is up
	require.NoError(t, err)
	require.True(t, g.Acquired)
	require.NoError(t, b.Unlock(ctx, "k", "o"))

	srv.Stop()
	everyCall(t, b)
	srv.Cont()
	done := make(chan struct{})
	go func() {
		core(b).bg.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the background release did not end")
	}
	direct, err := driver.Open(ctx, "redis://"+srv.Addr())
	require.NoError(t, err)
	defer direct.Close()
	st, err := direct.(driver.Inspector).Inspect(ctx, "k")
	require.NoError(t, err)
	assert.False(t, st.Held, "the stalled member was released")
}
