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
	"github.com/distlock/distlock/internal/noserver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/tcpproxy"
	"github.com/distlock/distlock/locker"
)

// kindOf names the kind of shared lock of sh's view in its keys.
func kindOf(sh driver.Share) string {
	if sh.Mode == driver.Permits {
		return "sem"
	}
	return "rw"
}

// views are one view of each kind and mode.
var views = []driver.Share{
	{Mode: driver.Read},
	{Mode: driver.Write},
	{Mode: driver.Permits, Limit: 3, Permits: 2},
}

// sharedCalls are a view's calls on key for owner, by name.
func sharedCalls(v driver.Backend, key, owner string) map[string]func(context.Context) error {
	return map[string]func(context.Context) error{
		"TryLock": func(ctx context.Context) error {
			_, err := v.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: time.Minute, Patience: time.Second})
			return err
		},
		"Unlock":  func(ctx context.Context) error { return v.Unlock(ctx, key, owner) },
		"Expire":  func(ctx context.Context) error { return v.Expire(ctx, key, owner, time.Minute) },
		"Dequeue": func(ctx context.Context) error { return v.(driver.Dequeuer).Dequeue(ctx, key, owner) },
		"Fence":   func(ctx context.Context) error { return v.(driver.Fencer).Fence(ctx, key, owner, 1) },
		"Inspect": func(ctx context.Context) error {
			_, err := v.(driver.Inspector).Inspect(ctx, key)
			return err
		},
		"ForceUnlock": func(ctx context.Context) error {
			_, err := v.(driver.ForceUnlocker).ForceUnlock(ctx, key)
			return err
		},
		"ExpireBatch": func(ctx context.Context) error {
			return v.(driver.BatchExpirer).ExpireBatch(ctx, []driver.Renewal{{Key: key, Owner: owner, TTL: time.Minute}})[0]
		},
		"Watch": func(ctx context.Context) error {
			stop, err := v.(driver.Notifier).Watch(ctx, key, func() {})
			if err == nil {
				stop()
			}
			return err
		},
	}
}

// TestSharedViewsClose: a view's Close is its backend's, and closes every
// view of it; calls after Close, and Share, return ErrClosed.
func TestSharedViewsClose(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	b := newBackend(t, srv.Addr())
	first := share(t, b, views[0])
	others := []driver.Backend{share(t, b, views[1]), share(t, b, views[2])}
	require.True(t, try(t, first, driver.Request{Key: "k", Owner: "o"}).Acquired)
	assert.Equal(t, b.Endpoint(), first.(driver.Endpointer).Endpoint(), "the backend's endpoint")

	require.NoError(t, first.Close())
	for i, v := range append(others, first) {
		for name, call := range sharedCalls(v, "k", "o") {
			assert.ErrorIs(t, call(ctx), driver.ErrClosed, "view %d: %s", i, name)
		}
	}
	_, err := b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	assert.ErrorIs(t, err, driver.ErrClosed, "the backend is closed")
	_, err = b.Share(views[0])
	assert.ErrorIs(t, err, driver.ErrClosed)
	assert.NoError(t, others[0].Close(), "closing again")
}

// TestSharedBadInput: a malformed Share, and bad arguments to a view, are
// ErrInvalid before anything is sent.
func TestSharedBadInput(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	b := newBackend(t, srv.Addr())
	for _, sh := range []driver.Share{
		{}, {Mode: driver.Read, Limit: 1}, {Mode: driver.Permits, Limit: 2, Permits: 3}, {Mode: driver.Permits},
	} {
		v, err := b.Share(sh)
		assert.ErrorIs(t, err, driver.ErrInvalid, "%+v", sh)
		assert.Nil(t, v)
	}
	for _, sh := range views {
		v := share(t, b, sh)
		_, err := v.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute, Floor: 1<<53 + 1})
		assert.ErrorIs(t, err, driver.ErrInvalid, "a floor above 2^53")
		for name, call := range sharedCalls(v, "", "o") {
			assert.ErrorIs(t, call(ctx), driver.ErrInvalid, "%v %s with an empty key", sh.Mode, name)
		}
	}
	n, err := srv.Do("DBSIZE")
	require.NoError(t, err)
	assert.EqualValues(t, 0, n, "nothing was written")
}

// TestSharedLostReplyIsUnknownAndRunsOnce loses the replies of attempts
// and releases of each view: an error that is no sentinel, and the script
// ran exactly once although the client retries plain commands.
func TestSharedLostReplyIsUnknownAndRunsOnce(t *testing.T) {
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
	for _, sh := range views {
		key, o := "lost-"+sh.Mode.String(), locker.NewOwner()
		v, check := share(t, b, sh), share(t, direct, sh).(driver.Inspector)
		// Load the scripts first: a NOSCRIPT reply lost would hide
		// whether the script ran.
		require.True(t, try(t, v, driver.Request{Key: key, Owner: o}).Acquired)
		require.ErrorIs(t, v.Unlock(ctx, "other", o), driver.ErrNotHeld)
		proxy.StallOpenReplies()
		_, err := v.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: time.Minute})
		require.Error(t, err, "a lost reply is an error")
		assertNoSentinel(t, err)
		st, err := check.Inspect(ctx, key)
		require.NoError(t, err)
		require.Len(t, st.Holders, 1)
		assert.Equal(t, 2, st.Holders[0].Holds, "%v: the re-entry ran once", sh.Mode)

		proxy.Heal()
		require.NoError(t, v.Expire(ctx, key, o, time.Minute))
		proxy.StallOpenReplies()
		err = v.Unlock(ctx, key, o)
		require.Error(t, err)
		assertNoSentinel(t, err)
		st, err = check.Inspect(ctx, key)
		require.NoError(t, err)
		require.Len(t, st.Holders, 1)
		assert.Equal(t, 1, st.Holders[0].Holds, "%v: the unlock ran once", sh.Mode)
		proxy.Heal()
	}
}

// TestSharedUnreachable: a view of a server that cannot be reached fails
// with ErrUnavailable, within the call's context: nothing was sent.
func TestSharedUnreachable(t *testing.T) {
	addr := noserver.Addr(t)
	ctx := context.Background()
	b, err := driver.Open(ctx, "redis://"+addr)
	require.NoError(t, err)
	defer b.Close()
	// Each call costs go-redis's dial attempts: every view's TryLock, and
	// the other calls on one view.
	for i, sh := range views {
		v, err := b.(driver.Sharer).Share(sh)
		require.NoError(t, err)
		names := []string{"TryLock"}
		if i == len(views)-1 {
			names = append(names, "Unlock", "Expire", "Dequeue", "Inspect", "ExpireBatch")
		}
		for _, name := range names {
			cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			err := sharedCalls(v, "k", "o")[name](cctx)
			cancel()
			assert.ErrorIs(t, err, driver.ErrUnavailable, "%v %s", sh.Mode, name)
		}
	}
}

// TestSharedAuthentication: without the password every view's attempt is
// ErrInvalid saying so, however many arguments its script takes.
func TestSharedAuthentication(t *testing.T) {
	srv := redistest.Start(t)
	_, err := srv.Do("CONFIG", "SET", "requirepass", "s3cret-pw")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, sh := range views {
		// A backend per view: after a protocol error the server closes the
		// connection.
		b, err := driver.Open(ctx, "redis://"+srv.Addr())
		require.NoError(t, err)
		t.Cleanup(func() { _ = b.Close() })
		v, err := b.(driver.Sharer).Share(sh)
		require.NoError(t, err)
		_, err = v.TryLock(ctx, driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Minute})
		require.ErrorIs(t, err, driver.ErrInvalid, "%v", sh.Mode)
		assert.Contains(t, err.Error(), "authentication failed")
	}
}

// TestSharedReplicaAck: with WithReplicaAck a view's acquisition waits for
// the replicas, and one they do not acknowledge is given back.
func TestSharedReplicaAck(t *testing.T) {
	master := redistest.Start(t)
	replica := redistest.StartReplica(t, master)
	ctx := context.Background()
	b := newBackend(t, master.Addr(), redislocker.WithReplicaAck(1, 300*time.Millisecond))
	for _, sh := range views {
		v := share(t, b, sh)
		g := try(t, v, driver.Request{Key: "acked", Owner: locker.NewOwner()})
		require.True(t, g.Acquired, "%v: the replica acknowledges", sh.Mode)
		held, err := replica.Do("EXISTS", "distlock:{acked}:"+kindOf(sh))
		require.NoError(t, err)
		assert.EqualValues(t, 1, held, "%v: the hold is on the replica", sh.Mode)
		_, err = v.(driver.ForceUnlocker).ForceUnlock(ctx, "acked")
		require.NoError(t, err)
	}
	replica.Stop()
	defer replica.Cont()
	for _, sh := range views {
		v, check := share(t, b, sh), share(t, newBackend(t, master.Addr()), sh).(driver.Inspector)
		_, err := v.TryLock(ctx, driver.Request{Key: "unacked", Owner: locker.NewOwner(), TTL: time.Minute})
		require.ErrorIs(t, err, redislocker.ErrReplicaAck, "%v", sh.Mode)
		assertNoSentinel(t, err)
		st, err := check.Inspect(ctx, "unacked")
		require.NoError(t, err)
		assert.False(t, st.Held, "%v: an unacknowledged hold is released", sh.Mode)
	}
}
