package redislocker_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// TestSharedInspect: the state of a read-write lock and of a semaphore,
// every holder and mode, the writer as Owner, the longest lease, the
// counter, the limit while in use.
func TestSharedInspect(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	read, write := rwViews(t, b)
	ctx := context.Background()
	const key = "inspect"
	w, r := "owner-a", "owner-b"

	st, err := read.(driver.Inspector).Inspect(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, driver.State{}, st, "a lock never used")

	wg := try(t, write, driver.Request{Key: key, Owner: w, TTL: 30 * time.Second})
	try(t, write, driver.Request{Key: key, Owner: w, TTL: 30 * time.Second})
	try(t, read, driver.Request{Key: key, Owner: w, TTL: time.Minute})
	st, err = write.(driver.Inspector).Inspect(ctx, key)
	require.NoError(t, err)
	require.Len(t, st.Holders, 2)
	assert.Equal(t, driver.Holder{Owner: w, Mode: driver.Read, Holds: 1, Remaining: st.Holders[0].Remaining, Token: wg.Token}, st.Holders[0])
	assert.Equal(t, driver.Holder{Owner: w, Mode: driver.Write, Holds: 2, Remaining: st.Holders[1].Remaining, Token: wg.Token}, st.Holders[1])
	assert.Greater(t, st.Holders[0].Remaining, 50*time.Second)
	assert.LessOrEqual(t, st.Holders[1].Remaining, 30*time.Second)
	assert.True(t, st.Held)
	assert.Equal(t, w, st.Owner, "the writer")
	assert.Equal(t, 2, st.Holds, "the writer's holds")
	assert.Equal(t, st.Holders[0].Remaining, st.Remaining, "the longest lease")
	assert.Equal(t, wg.Token, st.Token)
	assert.Zero(t, st.Limit)

	require.NoError(t, write.Unlock(ctx, key, w))
	require.NoError(t, write.Unlock(ctx, key, w))
	try(t, read, driver.Request{Key: key, Owner: r})
	st, err = read.(driver.Inspector).Inspect(ctx, key)
	require.NoError(t, err)
	assert.Empty(t, st.Owner, "no writer")
	assert.Zero(t, st.Holds)
	require.Len(t, st.Holders, 2)
	assert.Equal(t, []string{w, r}, []string{st.Holders[0].Owner, st.Holders[1].Owner}, "sorted by owner")

	held, err := read.(driver.ForceUnlocker).ForceUnlock(ctx, key)
	require.NoError(t, err)
	assert.True(t, held)
	st, err = read.(driver.Inspector).Inspect(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, driver.State{Token: wg.Token}, st, "free, the counter kept")
	held, err = read.(driver.ForceUnlocker).ForceUnlock(ctx, key)
	require.NoError(t, err)
	assert.False(t, held)

	sem := share(t, b, driver.Share{Mode: driver.Permits, Limit: 4, Permits: 3})
	sg := try(t, sem, driver.Request{Key: key, Owner: r})
	assert.False(t, try(t, sem, driver.Request{Key: key, Owner: w, Patience: time.Minute}).Acquired)
	st, err = sem.(driver.Inspector).Inspect(ctx, key)
	require.NoError(t, err)
	require.Len(t, st.Holders, 1, "a waiter holds nothing")
	assert.Equal(t, driver.Holder{Owner: r, Mode: driver.Permits, Holds: 1, Permits: 3, Remaining: st.Remaining, Token: sg.Token}, st.Holders[0])
	assert.Equal(t, 4, st.Limit)
	assert.Equal(t, sg.Token, st.Token)
	assert.Empty(t, st.Owner)

	// Force unlock keeps the waiter, and the limit with it.
	held, err = sem.(driver.ForceUnlocker).ForceUnlock(ctx, key)
	require.NoError(t, err)
	assert.True(t, held)
	st, err = sem.(driver.Inspector).Inspect(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, driver.State{Token: sg.Token, Limit: 4}, st)
	assert.False(t, try(t, sem, driver.Request{Key: key, Owner: r}).Acquired, "the waiter is first")
	assert.True(t, try(t, sem, driver.Request{Key: key, Owner: w}).Acquired)
}

// TestSharedFence raises tokens: a write hold's and the counter, which a
// read hold carries; a semaphore hold's; only for the holder, in the
// view's mode.
func TestSharedFence(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	read, write := rwViews(t, b)
	sem := share(t, b, driver.Share{Mode: driver.Permits, Limit: 2, Permits: 1})
	ctx := context.Background()
	const key = "fence"
	o, other := locker.NewOwner(), locker.NewOwner()

	wg := try(t, write, driver.Request{Key: key, Owner: o})
	raised := wg.Token + 1_000_000
	assert.ErrorIs(t, write.(driver.Fencer).Fence(ctx, key, other, raised), driver.ErrNotHeld)
	assert.ErrorIs(t, read.(driver.Fencer).Fence(ctx, key, o, raised), driver.ErrNotHeld, "no read hold")
	assert.ErrorIs(t, write.(driver.Fencer).Fence(ctx, key, o, 0), driver.ErrInvalid)
	require.NoError(t, write.(driver.Fencer).Fence(ctx, key, o, raised))
	require.NoError(t, write.(driver.Fencer).Fence(ctx, key, o, wg.Token), "a lower token changes nothing")
	assert.Equal(t, raised, try(t, write, driver.Request{Key: key, Owner: o}).Token, "the re-entry's token is raised")
	rg := try(t, read, driver.Request{Key: key, Owner: o})
	assert.Equal(t, raised, rg.Token, "so is the counter")
	require.NoError(t, read.(driver.Fencer).Fence(ctx, key, o, raised+1))
	assert.Equal(t, raised+1, try(t, read, driver.Request{Key: key, Owner: o}).Token, "a read hold raises the counter")
	assert.Equal(t, raised, try(t, write, driver.Request{Key: key, Owner: o}).Token, "but not the write hold's token")
	_, err := read.(driver.ForceUnlocker).ForceUnlock(ctx, key)
	require.NoError(t, err)
	assert.Greater(t, try(t, write, driver.Request{Key: key, Owner: other}).Token, raised+1)

	sg := try(t, sem, driver.Request{Key: key, Owner: o})
	require.NoError(t, sem.(driver.Fencer).Fence(ctx, key, o, sg.Token+500))
	assert.Equal(t, sg.Token+500, try(t, sem, driver.Request{Key: key, Owner: o}).Token)
	assert.Greater(t, try(t, sem, driver.Request{Key: key, Owner: other}).Token, sg.Token+500)
}

// TestSharedBatchRenewal renews holds of many locks in one call; holds of
// another mode or owner, and ended ones, are not renewed.
func TestSharedBatchRenewal(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	read, write := rwViews(t, b)
	ctx := context.Background()
	o := locker.NewOwner()
	var renewals []driver.Renewal
	for i := range 10 {
		key := fmt.Sprint("batch/", i)
		require.True(t, try(t, read, driver.Request{Key: key, Owner: o, TTL: time.Second}).Acquired)
		renewals = append(renewals, driver.Renewal{Key: key, Owner: o, TTL: time.Minute})
	}
	renewals = append(renewals,
		driver.Renewal{Key: "batch/0", Owner: "stranger", TTL: time.Minute},
		driver.Renewal{Key: "batch/none", Owner: o, TTL: time.Minute},
		driver.Renewal{Key: "", Owner: o, TTL: time.Minute})
	errs := read.(driver.BatchExpirer).ExpireBatch(ctx, renewals)
	require.Len(t, errs, len(renewals))
	for i := range 10 {
		assert.NoError(t, errs[i])
	}
	assert.ErrorIs(t, errs[10], driver.ErrNotHeld)
	assert.ErrorIs(t, errs[11], driver.ErrNotHeld)
	assert.ErrorIs(t, errs[12], driver.ErrInvalid)
	for _, err := range write.(driver.BatchExpirer).ExpireBatch(ctx, renewals[:10]) {
		assert.ErrorIs(t, err, driver.ErrNotHeld, "no write holds")
	}
	st, err := read.(driver.Inspector).Inspect(ctx, "batch/9")
	require.NoError(t, err)
	assert.Greater(t, st.Remaining, 50*time.Second, "renewed")
}

// scriptCalls returns the scripts srv has run since its last CONFIG
// RESETSTAT (INFO commandstats).
func scriptCalls(t *testing.T, srv *redistest.Server) int {
	t.Helper()
	info, err := srv.Info("commandstats")
	require.NoError(t, err)
	n := 0
	for _, name := range []string{"cmdstat_evalsha", "cmdstat_eval"} {
		calls, _, _ := strings.Cut(strings.TrimPrefix(info[name], "calls="), ",")
		if calls != "" {
			c, err := strconv.Atoi(calls)
			require.NoError(t, err)
			n += c
		}
	}
	return n
}

// TestReadHoldIsOneRoundTrip: an uncontended RLock through a Store, and
// its Unlock, are one script call each, as a Mutex's Lock and Unlock.
func TestReadHoldIsOneRoundTrip(t *testing.T) {
	srv := redistest.Start(t)
	st := storetest.Of(t, newBackend(t, srv.Addr()))
	ctx := context.Background()
	rw, err := st.RWMutex("trip")
	require.NoError(t, err)
	l, err := rw.RLock(ctx, locker.WithLease(time.Minute)) // loads the scripts
	require.NoError(t, err)
	require.NoError(t, l.Unlock(ctx))
	for range 3 {
		_, err := srv.Do("CONFIG", "RESETSTAT")
		require.NoError(t, err)
		l, err := rw.RLock(ctx, locker.WithLease(time.Minute))
		require.NoError(t, err)
		assert.Equal(t, 1, scriptCalls(t, srv), "RLock")
		require.NoError(t, l.Unlock(ctx))
		assert.Equal(t, 2, scriptCalls(t, srv), "RLock and Unlock")
	}
}
