package redislocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/tcpproxy"
	"github.com/distlock/distlock/locker"
)

// TestLostReplyIsUnknownAndRunsOnce loses the replies of a TryLock and an
// Unlock: each returns an error that is no sentinel, and each ran exactly
// once on the server, although the client retries a plain command on a new
// connection (MaxRetries 3, short ReadTimeout), which the proxy would serve.
func TestLostReplyIsUnknownAndRunsOnce(t *testing.T) {
	srv := redistest.Start(t)
	proxy, err := tcpproxy.Start(srv.Addr())
	require.NoError(t, err)
	defer proxy.Close()
	client := redis.NewClient(&redis.Options{Addr: proxy.Addr(), MaxRetries: 3, ReadTimeout: 300 * time.Millisecond})
	b, err := redislocker.New(client, redislocker.WithOwnedClient())
	require.NoError(t, err)
	defer b.Close()
	direct := newBackend(t, srv.Addr())
	ctx := context.Background()
	const key = "lost-reply"
	o := locker.NewOwner()

	// Warm the connection and load the scripts: a NOSCRIPT reply lost
	// would hide whether the script ran.
	_, err = b.Inspect(ctx, key)
	require.NoError(t, err)
	_, err = b.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: time.Minute})
	require.NoError(t, err)
	require.ErrorIs(t, b.Unlock(ctx, "other", o), locker.ErrNotHeld)
	proxy.StallOpenReplies()

	g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: time.Minute})
	require.Error(t, err, "a lost reply is an error")
	assert.False(t, g.Acquired)
	assertNoSentinel(t, err)
	st, err := direct.Inspect(ctx, key)
	require.NoError(t, err)
	require.Equal(t, 2, st.Holds, "the re-entry ran once, not once per retry")

	proxy.Heal()
	_, err = b.Inspect(ctx, key)
	require.NoError(t, err)
	proxy.StallOpenReplies()
	err = b.Unlock(ctx, key, o)
	require.Error(t, err)
	assertNoSentinel(t, err)
	st, err = direct.Inspect(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, 1, st.Holds, "the unlock ran once, not once per retry")

	proxy.Heal()
	require.NoError(t, direct.Unlock(ctx, key, o))
}

// TestContextBoundsStalledCall pauses the server: a call returns when its
// context ends, with an unknown-state error.
func TestContextBoundsStalledCall(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	_, err := b.Inspect(context.Background(), "warm")
	require.NoError(t, err)
	srv.Stop()
	defer srv.Cont()
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = b.TryLock(ctx, driver.Request{Key: "stalled", Owner: locker.NewOwner(), TTL: time.Minute})
	require.Error(t, err)
	assertNoSentinel(t, err)
	assert.Less(t, time.Since(start), 2*time.Second, "the context's deadline bounds the call")
}
