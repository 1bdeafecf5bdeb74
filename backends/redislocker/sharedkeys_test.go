package redislocker_test

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
)

// serverKeys lists the keys under prefix on srv, sorted.
func serverKeys(t *testing.T, srv *redistest.Server, prefix string) []string {
	t.Helper()
	reply, err := srv.Do("KEYS", prefix+"*")
	require.NoError(t, err)
	var keys []string
	for _, k := range reply.([]any) {
		keys = append(keys, k.(string))
	}
	sort.Strings(keys)
	return keys
}

// pttl returns key's remaining time to live on srv.
func pttl(t *testing.T, srv *redistest.Server, key string) time.Duration {
	t.Helper()
	reply, err := srv.Do("PTTL", key)
	require.NoError(t, err)
	return time.Duration(reply.(int64)) * time.Millisecond
}

// TestMutexRWLockAndSemaphoreOfOneName: the mutex "k", the read-write lock
// "k" and the semaphore "k" are three locks, held at once by different
// owners, each in keys of its own.
func TestMutexRWLockAndSemaphoreOfOneName(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr(), redislocker.WithPrefix("ns"))
	_, write := rwViews(t, b)
	sem := share(t, b, driver.Share{Mode: driver.Permits, Limit: 1, Permits: 1})
	ctx := context.Background()
	owners := []string{locker.NewOwner(), locker.NewOwner(), locker.NewOwner()}
	for i, v := range []driver.Backend{b, write, sem} {
		g := try(t, v, driver.Request{Key: "k", Owner: owners[i]})
		require.True(t, g.Acquired, "lock %d", i)
		other := try(t, v, driver.Request{Key: "k", Owner: locker.NewOwner()})
		assert.False(t, other.Acquired, "lock %d is held", i)
	}
	assert.Equal(t, []string{
		"ns:booted", "ns:{k}",
		"ns:{k}:rw", "ns:{k}:rw:leases",
		"ns:{k}:sem", "ns:{k}:sem:leases",
	}, serverKeys(t, srv, "ns:"))
	for i, v := range []driver.Backend{b, write, sem} {
		st, err := v.(driver.Inspector).Inspect(ctx, "k")
		require.NoError(t, err)
		require.True(t, st.Held)
		if i < 2 {
			assert.Equal(t, owners[i], st.Owner, "lock %d", i)
		}
		require.NoError(t, v.Unlock(ctx, "k", owners[i]))
	}
}

// TestIdleSharedLocksLeaveOnlyTheirCounter: the leases of a shared lock go
// with its last hold or waiter, or expire by themselves with the furthest
// lease or patience when nobody releases them; the lock hash keeps only
// the counter then, and lingers the fence linger after the last lease.
func TestIdleSharedLocksLeaveOnlyTheirCounter(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr(), redislocker.WithPrefix("idle"), redislocker.WithFenceLinger(5*time.Second))
	read, write := rwViews(t, b)
	sem := share(t, b, driver.Share{Mode: driver.Permits, Limit: 2, Permits: 2})
	ctx := context.Background()
	o, w := locker.NewOwner(), locker.NewOwner()
	fields := func(key string) []string {
		t.Helper()
		reply, err := srv.Do("HKEYS", key)
		require.NoError(t, err)
		var names []string
		for _, f := range reply.([]any) {
			names = append(names, f.(string))
		}
		sort.Strings(names)
		return names
	}
	counterOnly := []string{"b", "e", "t"}

	g := try(t, write, driver.Request{Key: "rw", Owner: o, TTL: 2 * time.Second})
	assert.Greater(t, pttl(t, srv, "idle:{rw}:rw:leases"), time.Second, "the leases expire with the lease")
	assert.LessOrEqual(t, pttl(t, srv, "idle:{rw}:rw:leases"), 2*time.Second)
	assert.Greater(t, pttl(t, srv, "idle:{rw}:rw"), 6*time.Second, "the counter outlives the lease by the linger")
	require.NoError(t, write.Unlock(ctx, "rw", o))
	try(t, sem, driver.Request{Key: "sem", Owner: o})
	try(t, sem, driver.Request{Key: "sem", Owner: w, Patience: time.Second})
	assert.Contains(t, serverKeys(t, srv, "idle:"), "idle:{sem}:sem:queue")
	require.NoError(t, sem.Unlock(ctx, "sem", o))
	require.NoError(t, sem.(driver.Dequeuer).Dequeue(ctx, "sem", w))
	assert.Equal(t, []string{"idle:booted", "idle:{rw}:rw", "idle:{sem}:sem"}, serverKeys(t, srv, "idle:"),
		"released: only the counters are left")
	assert.Equal(t, counterOnly, fields("idle:{rw}:rw"))
	assert.Equal(t, counterOnly, fields("idle:{sem}:sem"))

	// Holds and waits that nobody ends expire by themselves.
	try(t, read, driver.Request{Key: "rw", Owner: o, TTL: 300 * time.Millisecond})
	try(t, write, driver.Request{Key: "rw", Owner: w, TTL: time.Minute, Patience: 600 * time.Millisecond})
	try(t, sem, driver.Request{Key: "sem", Owner: o, TTL: 300 * time.Millisecond})
	try(t, sem, driver.Request{Key: "sem", Owner: w, Patience: 600 * time.Millisecond})
	assert.Greater(t, pttl(t, srv, "idle:{rw}:rw:leases"), 400*time.Millisecond, "the patience is furthest")
	assert.Greater(t, pttl(t, srv, "idle:{sem}:sem:queue"), 400*time.Millisecond)
	require.Eventually(t, func() bool { return len(serverKeys(t, srv, "idle:")) == 3 }, 2*time.Second, 50*time.Millisecond,
		"the idle keys expire: %q", serverKeys(t, srv, "idle:"))
	next := try(t, write, driver.Request{Key: "rw", Owner: o})
	assert.Greater(t, next.Token, g.Token, "the counter kept the tokens rising")
	left := pttl(t, srv, "idle:{rw}:rw")
	assert.Greater(t, left, time.Minute+5*time.Second, "a new lease moves the counter's expiry")
	assert.LessOrEqual(t, left, time.Minute+5*time.Second+5*time.Second/8, "by at most an eighth of the linger more")
	require.NoError(t, write.Unlock(ctx, "rw", o))
	assert.Equal(t, counterOnly, fields("idle:{rw}:rw"), "the stale fields are gone")
	sg := try(t, sem, driver.Request{Key: "sem", Owner: o})
	require.True(t, sg.Acquired, "the stale holds and waiters are gone")
	require.NoError(t, sem.Unlock(ctx, "sem", o))
	assert.Equal(t, counterOnly, fields("idle:{sem}:sem"))
}
