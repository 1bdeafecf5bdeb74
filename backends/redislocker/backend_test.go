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
	"github.com/distlock/distlock/locker"
)

func TestNewRejectsBadInput(t *testing.T) {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	defer client.Close()
	ring := redis.NewRing(&redis.RingOptions{Addrs: map[string]string{"a": "127.0.0.1:1"}})
	defer ring.Close()
	cases := []struct {
		name   string
		client redis.UniversalClient
		opts   []redislocker.Option
	}{
		{"nil client", nil, nil},
		{"ring", ring, nil},
		{"prefix with an opening brace", client, []redislocker.Option{redislocker.WithPrefix("a{b")}},
		{"prefix with a closing brace", client, []redislocker.Option{redislocker.WithPrefix("}")}},
		{"no replicas", client, []redislocker.Option{redislocker.WithReplicaAck(0, time.Second)}},
		{"no ack timeout", client, []redislocker.Option{redislocker.WithReplicaAck(1, 0)}},
		{"short fence linger", client, []redislocker.Option{redislocker.WithFenceLinger(time.Millisecond)}},
	}
	for _, c := range cases {
		b, err := redislocker.New(c.client, c.opts...)
		assert.ErrorIs(t, err, locker.ErrInvalid, c.name)
		assert.Nil(t, b, c.name)
	}
}

func TestCloseLeavesTheCallersClientOpen(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer client.Close()
	b, err := redislocker.New(client)
	require.NoError(t, err)
	stop, err := b.Watch(ctx, "k", func() {})
	require.NoError(t, err)
	require.NoError(t, b.Close())
	stop() // stopping a watch after Close is harmless
	assert.NoError(t, client.Ping(ctx).Err(), "the caller's client outlives the backend")

	o := locker.NewOwner()
	_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: o, TTL: time.Minute})
	assert.ErrorIs(t, err, locker.ErrClosed)
	assert.ErrorIs(t, b.Unlock(ctx, "k", o), locker.ErrClosed)
	assert.ErrorIs(t, b.Expire(ctx, "k", o, time.Minute), locker.ErrClosed)
	_, err = b.Inspect(ctx, "k")
	assert.ErrorIs(t, err, locker.ErrClosed)
	_, err = b.ForceUnlock(ctx, "k")
	assert.ErrorIs(t, err, locker.ErrClosed)
	_, err = b.Watch(ctx, "k", func() {})
	assert.ErrorIs(t, err, locker.ErrClosed)
	assert.NoError(t, b.Close(), "closing twice")
}

func TestClosedClientIsErrClosed(t *testing.T) {
	srv := redistest.Start(t)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	b, err := redislocker.New(client)
	require.NoError(t, err)
	defer b.Close()
	require.NoError(t, client.Close())
	_, err = b.TryLock(context.Background(), driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Minute})
	assert.ErrorIs(t, err, locker.ErrClosed, "a closed client sends nothing: no unknown state")
}

func TestPrefixesAreSeparateNamespaces(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	a := newBackend(t, srv.Addr(), redislocker.WithPrefix("app-a"))
	b := newBackend(t, srv.Addr(), redislocker.WithPrefix("app-b"))
	g, err := a.TryLock(ctx, driver.Request{Key: "shared-name", Owner: locker.NewOwner(), TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	g, err = b.TryLock(ctx, driver.Request{Key: "shared-name", Owner: locker.NewOwner(), TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, g.Acquired, "another prefix is another lock")
	n, err := srv.Do("EXISTS", "app-a:{shared-name}", "app-b:{shared-name}")
	require.NoError(t, err)
	assert.EqualValues(t, 2, n)
}

// TestStoredAsOneHash checks the data model: one hash field holds the
// holder, its hold count, the lease's end and the fencing counter, and the
// hash outlives the lease by the counter linger.
func TestStoredAsOneHash(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	b := newBackend(t, srv.Addr())
	o := locker.NewOwner()
	for range 2 {
		_, err := b.TryLock(ctx, driver.Request{Key: "model", Owner: o, TTL: 30 * time.Second})
		require.NoError(t, err)
	}
	st, err := b.Inspect(ctx, "model")
	require.NoError(t, err)
	fields, err := srv.Do("HKEYS", "distlock:{model}")
	require.NoError(t, err)
	assert.Equal(t, []any{"s"}, fields, "one field")
	s, ok := readState(t, srv, "distlock:{model}")
	require.True(t, ok)
	assert.Equal(t, o, s.Owner)
	assert.EqualValues(t, 2, s.Holds)
	assert.EqualValues(t, st.Token, s.Token, "the fencing counter holds the current token")
	assert.Greater(t, s.Expiry-s.End, float64(redislocker.DefaultFenceLinger/time.Millisecond)-1, "the hash's expiry, in its state")
	assert.InDelta(t, 30*time.Second, st.Remaining, float64(time.Second))
	ttl, err := srv.Do("PTTL", "distlock:{model}")
	require.NoError(t, err)
	assert.Greater(t, time.Duration(ttl.(int64))*time.Millisecond, 30*time.Second+redislocker.DefaultFenceLinger-time.Second,
		"the hash lingers past the lease")
}

// TestALockOfTheEarlierLayoutIsRefused writes a lock as distlock kept it
// before the one-field layout (a field per holder): an attempt must fail,
// saying why, and leave it alone rather than take the lock beside its
// holder.
func TestALockOfTheEarlierLayoutIsRefused(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	ctx := context.Background()
	_, err := srv.Do("HSET", "distlock:{old}", "an-old-holder", "1")
	require.NoError(t, err)
	_, err = b.TryLock(ctx, driver.Request{Key: "old", Owner: locker.NewOwner(), TTL: time.Minute})
	require.ErrorIs(t, err, driver.ErrInvalid)
	assert.Contains(t, err.Error(), "older distlock layout")
	fields, err := srv.Do("HGETALL", "distlock:{old}")
	require.NoError(t, err)
	assert.Equal(t, []any{"an-old-holder", "1"}, fields, "the old lock must be left as it was")
}
