package memlocker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// shareRig is a client of a store on a manual clock, with helpers for its
// views.
type shareRig struct {
	t     *testing.T
	clock *memlocker.ManualClock
	c     *memlocker.Client
}

func newShareRig(t *testing.T, opts ...memlocker.StoreOption) *shareRig {
	clock := memlocker.NewManualClock(time.Unix(1e9, 0))
	return &shareRig{t: t, clock: clock, c: memlocker.New(append([]memlocker.StoreOption{memlocker.WithClock(clock)}, opts...)...)}
}

var (
	readShare  = driver.Share{Mode: driver.Read}
	writeShare = driver.Share{Mode: driver.Write}
)

// permits returns the Share of a semaphore of limit permits whose holds
// take n.
func permits(limit, n int) driver.Share {
	return driver.Share{Mode: driver.Permits, Limit: limit, Permits: n}
}

// view returns the client's view sh.
func (r *shareRig) view(sh driver.Share) driver.Backend {
	r.t.Helper()
	v, err := r.c.Share(sh)
	require.NoError(r.t, err)
	return v
}

// try is owner's attempt on key through v with a lease of ttl and the
// patience given.
func (r *shareRig) try(v driver.Backend, key, owner string, ttl, patience time.Duration) driver.Grant {
	r.t.Helper()
	g, err := v.TryLock(context.Background(), driver.Request{Key: key, Owner: owner, TTL: ttl, Patience: patience})
	require.NoError(r.t, err)
	return g
}

// holds is owner's acquisition of key through v with a lease of ttl, which
// must succeed.
func (r *shareRig) holds(v driver.Backend, key, owner string, ttl time.Duration) driver.Grant {
	r.t.Helper()
	g := r.try(v, key, owner, ttl, 0)
	require.True(r.t, g.Acquired, "%s's attempt on %s", owner, key)
	return g
}

// state returns key's state through v.
func (r *shareRig) state(v driver.Backend, key string) driver.State {
	r.t.Helper()
	st, err := v.(driver.Inspector).Inspect(context.Background(), key)
	require.NoError(r.t, err)
	return st
}

// heard returns a watcher of key through v, and how often it was called
// since the last look.
func (r *shareRig) heard(v driver.Backend, key string) func() int {
	r.t.Helper()
	var log heardLog
	stop, err := v.(driver.Notifier).Watch(context.Background(), key, log.hear(key))
	require.NoError(r.t, err)
	r.t.Cleanup(stop)
	return func() int { return len(log.take()) }
}

func TestShareChecksTheShare(t *testing.T) {
	c := memlocker.New()
	for _, sh := range []driver.Share{
		{},
		{Mode: driver.Read, Limit: 1},
		{Mode: driver.Write, Permits: 1},
		permits(0, 0),
		permits(2, 0),
		permits(2, 3),
		permits(driver.MaxPermits+1, 1),
		{Mode: 9, Limit: 1, Permits: 1},
	} {
		v, err := c.Share(sh)
		assert.Nil(t, v, "%+v", sh)
		if assert.ErrorIs(t, err, driver.ErrInvalid, "%+v", sh) {
			assert.Equal(t, driver.CheckShare(sh).Error(), err.Error(), "%+v: the kit's words", sh)
		}
	}
}

func TestViewsSpeakTheKitsWords(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	for _, sh := range []driver.Share{readShare, writeShare, permits(3, 2)} {
		v, err := c.Share(sh)
		require.NoError(t, err)
		_, err = v.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute, Patience: -time.Second})
		assert.Equal(t, driver.CheckRequest(driver.Request{Key: "k", Owner: "o", TTL: time.Minute, Patience: -time.Second}), err)
		_, err = v.TryLock(ctx, driver.Request{Key: "k", Owner: "", TTL: time.Minute})
		assert.Equal(t, driver.CheckOwner("k", ""), err)
		assert.Equal(t, driver.CheckLease("k", "o", 0), v.Expire(ctx, "k", "o", 0))
		assert.Equal(t, driver.CheckKey(""), v.Unlock(ctx, "", "o"))
		assert.Equal(t, driver.CheckOwner("k", ""), v.(driver.Dequeuer).Dequeue(ctx, "k", ""))
		_, err = v.(driver.Inspector).Inspect(ctx, "")
		assert.Equal(t, driver.CheckKey(""), err)
		_, err = v.(driver.ForceUnlocker).ForceUnlock(ctx, "")
		assert.Equal(t, driver.CheckKey(""), err)
		assert.ErrorIs(t, v.(driver.Fencer).Fence(ctx, "k", "o", 0), driver.ErrInvalid)
		_, err = v.(driver.Notifier).Watch(ctx, "k", nil)
		assert.ErrorIs(t, err, driver.ErrInvalid)
		assert.ErrorIs(t, v.(driver.BatchExpirer).ExpireBatch(ctx, []driver.Renewal{{Key: "k", Owner: "o"}})[0], driver.ErrInvalid)
	}
	assert.Zero(t, c.Calls("trylock")+c.Calls("unlock")+c.Calls("expire"), "bad input is turned away before the call")
}

func TestNamespacesApart(t *testing.T) {
	r := newShareRig(t)
	read, write, sem := r.view(readShare), r.view(writeShare), r.view(permits(1, 1))
	mutexHeard, rwHeard, semHeard := r.heard(r.c, "k"), r.heard(read, "k"), r.heard(sem, "k")

	r.holds(r.c, "k", "m", time.Minute)
	r.holds(write, "k", "w", time.Minute)
	r.holds(sem, "k", "s", time.Minute)
	assert.False(t, r.try(read, "k", "r", time.Minute, 0).Acquired, "the write hold keeps a reader out")
	assert.False(t, r.try(r.view(permits(1, 1)), "k", "other", time.Minute, 0).Acquired, "the permit is held")

	ctx := context.Background()
	require.NoError(t, write.Unlock(ctx, "k", "w"))
	assert.Equal(t, 1, rwHeard(), "the read-write lock's watcher hears its release")
	assert.Zero(t, mutexHeard()+semHeard(), "the mutex's and the semaphore's watchers hear nothing of it")
	assert.Equal(t, "m", r.state(r.c, "k").Owner, "the mutex is held still")
	assert.True(t, r.state(sem, "k").Held, "the semaphore is held still")
	require.NoError(t, sem.Unlock(ctx, "k", "s"))
	assert.Equal(t, 1, semHeard())
	assert.Zero(t, mutexHeard()+rwHeard())
	assert.ErrorIs(t, read.Unlock(ctx, "k", "m"), driver.ErrNotHeld, "the mutex's owner holds nothing of the read-write lock")
}

func TestViewsOfClientsShareLocks(t *testing.T) {
	store := memlocker.NewStore()
	c1, c2 := store.Client(), store.Client()
	w1, err := c1.Share(writeShare)
	require.NoError(t, err)
	r2, err := c2.Share(readShare)
	require.NoError(t, err)
	ctx := context.Background()
	_, err = w1.TryLock(ctx, driver.Request{Key: "k", Owner: "w", TTL: time.Minute})
	require.NoError(t, err)
	g, err := r2.TryLock(ctx, driver.Request{Key: "k", Owner: "r", TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g.Acquired, "another client's reader is kept out by the writer")
	assert.Equal(t, c1.Endpoint(), r2.(driver.Endpointer).Endpoint(), "a view names its client's store")
	other, err := memlocker.New().Share(readShare)
	require.NoError(t, err)
	g, err = other.TryLock(ctx, driver.Request{Key: "k", Owner: "r", TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, g.Acquired, "another store's lock is another lock")
}

func TestViewCloseClosesTheClient(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	read, err := c.Share(readShare)
	require.NoError(t, err)
	sem, err := c.Share(permits(2, 1))
	require.NoError(t, err)
	heard := 0
	_, err = read.(driver.Notifier).Watch(ctx, "k", func() { heard++ })
	require.NoError(t, err)

	require.NoError(t, read.Close())
	_, err = c.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	assert.ErrorIs(t, err, driver.ErrClosed, "the client, closed with its view")
	_, err = sem.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	assert.ErrorIs(t, err, driver.ErrClosed, "another view of the client")
	assert.ErrorIs(t, sem.Unlock(ctx, "k", "o"), driver.ErrClosed)
	_, err = sem.(driver.Inspector).Inspect(ctx, "k")
	assert.ErrorIs(t, err, driver.ErrClosed)
	_, err = c.Share(writeShare)
	assert.ErrorIs(t, err, driver.ErrClosed, "Share after Close")
	assert.NoError(t, sem.Close(), "closing again returns the first result")

	// The closed client's watchers are stopped: another client's release
	// reaches nobody.
	other, err := c.Store().Client().Share(readShare)
	require.NoError(t, err)
	_, err = other.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)
	require.NoError(t, other.Unlock(ctx, "k", "o"))
	assert.Zero(t, heard)
}

func TestViewFaults(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	sem := r.view(permits(2, 1))
	req := driver.Request{Key: "k", Owner: "o", TTL: time.Minute}

	r.c.FailNext(1, nil)
	_, err := sem.TryLock(ctx, req)
	assert.ErrorIs(t, err, memlocker.ErrInjected)
	assert.False(t, r.state(sem, "k").Held, "a failed call ran nothing")

	r.c.TimeoutNext(1)
	_, err = sem.TryLock(ctx, req)
	assert.ErrorIs(t, err, memlocker.ErrTimeout)
	assert.True(t, driver.IsUnknown(err))
	assert.True(t, r.state(sem, "k").Held, "a call whose reply was lost ran")

	heard := r.heard(sem, "k")
	r.c.Partition()
	assert.ErrorIs(t, sem.Unlock(ctx, "k", "o"), memlocker.ErrPartitioned)
	_, err = sem.(driver.Inspector).Inspect(ctx, "k")
	assert.ErrorIs(t, err, memlocker.ErrPartitioned)
	_, err = r.view(permits(2, 1)).(driver.ForceUnlocker).ForceUnlock(ctx, "k")
	assert.ErrorIs(t, err, memlocker.ErrPartitioned)
	other, err := r.c.Store().Client().Share(permits(2, 1))
	require.NoError(t, err)
	_, err = other.(driver.ForceUnlocker).ForceUnlock(ctx, "k")
	require.NoError(t, err)
	assert.Zero(t, heard(), "a partitioned client's watchers hear nothing")
	r.c.Heal()
	assert.Equal(t, 1, heard(), "healing calls the view's watchers")

	r.c.SetLatency(time.Hour)
	cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
	defer cancel()
	_, err = sem.TryLock(cctx, req)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "a call returns by its context's deadline")
	r.c.SetLatency(0)
	assert.False(t, r.state(sem, "k").Held, "a call that ran out its context during a latency ran nothing")
	assert.Equal(t, 3, r.c.Calls("trylock"), "a view's calls count as its client's")
}

func TestViewCapabilitiesAreTheClients(t *testing.T) {
	r := newShareRig(t, memlocker.WithGranularity(time.Second))
	for _, sh := range []driver.Share{readShare, writeShare, permits(3, 1)} {
		v := r.view(sh)
		assert.Equal(t, time.Second, driver.Granularity(v))
		assert.Equal(t, r.c.Endpoint(), v.(driver.Endpointer).Endpoint())
		assert.Equal(t, driver.Clock(r.clock), v.(driver.Clocked).Clock())
		_, queuer := v.(driver.Queuer)
		assert.False(t, queuer, "a view is never a Queuer")
		_, batch := v.(driver.BatchExpirer)
		assert.True(t, batch, "the client renews in batches, and so does its view")
	}
	g := r.holds(r.view(readShare), "k", "o", 1500*time.Millisecond)
	assert.True(t, g.Acquired)
	assert.Equal(t, 2*time.Second, r.state(r.view(readShare), "k").Remaining, "leases are rounded up to the granularity")
}

func TestViewBatchRenewal(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	read, write := r.view(readShare), r.view(writeShare)
	r.holds(read, "a", "o", time.Second)
	r.holds(write, "b", "o", time.Second)
	errs := read.(driver.BatchExpirer).ExpireBatch(ctx, []driver.Renewal{
		{Key: "a", Owner: "o", TTL: time.Minute},
		{Key: "b", Owner: "o", TTL: time.Minute},
		{Key: "a", Owner: "other", TTL: time.Minute},
	})
	require.Len(t, errs, 3)
	assert.NoError(t, errs[0])
	assert.ErrorIs(t, errs[1], driver.ErrNotHeld, "a read view renews read holds, not the write hold")
	assert.ErrorIs(t, errs[2], driver.ErrNotHeld)
	r.clock.Advance(2 * time.Second)
	assert.True(t, r.state(read, "a").Held, "the renewed read hold")
	assert.False(t, r.state(read, "b").Held, "the write hold ran out")

	r.c.FailNext(1, nil)
	errs = read.(driver.BatchExpirer).ExpireBatch(ctx, []driver.Renewal{{Key: "a", Owner: "o", TTL: time.Minute}})
	assert.ErrorIs(t, errs[0], memlocker.ErrInjected, "the batch shares one call, and its fault")
}

func TestRestartForgetsSharedLocks(t *testing.T) {
	r := newShareRig(t)
	write, sem := r.view(writeShare), r.view(permits(3, 1))
	r.holds(write, "k", "w", time.Minute)
	r.holds(sem, "k", "s", time.Minute)
	rwHeard, semHeard := r.heard(write, "k"), r.heard(sem, "k")

	r.c.Store().Restart()
	assert.Equal(t, 1, rwHeard())
	assert.Equal(t, 1, semHeard())
	assert.Equal(t, driver.State{}, r.state(write, "k"), "a restart forgets the holds and the counter")
	g := r.holds(write, "k", "other", time.Minute)
	assert.Equal(t, uint64(1), g.Token, "the counter starts again")
	assert.Positive(t, g.Uptime, "a restarted store reports its uptime")
	assert.Equal(t, uint64(1), r.holds(r.view(permits(5, 5)), "k", "s", time.Minute).Token, "the limit is forgotten too")
}

func TestShareErrorsAreNotUnknown(t *testing.T) {
	// A limit mismatch is the store's answer, not an unknown outcome.
	r := newShareRig(t)
	r.holds(r.view(permits(3, 1)), "k", "a", time.Minute)
	_, err := r.view(permits(4, 1)).TryLock(context.Background(), driver.Request{Key: "k", Owner: "b", TTL: time.Minute})
	assert.ErrorIs(t, err, driver.ErrInvalid)
	assert.False(t, driver.IsUnknown(err))
	assert.False(t, errors.Is(err, driver.ErrNotAcquired))
}
