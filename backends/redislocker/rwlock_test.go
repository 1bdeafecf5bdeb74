package redislocker_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
)

// share returns b's view sh.
func share(t testing.TB, b *redislocker.Backend, sh driver.Share) driver.Backend {
	t.Helper()
	v, err := b.Share(sh)
	require.NoError(t, err)
	return v
}

// rwViews returns b's read and write views.
func rwViews(t testing.TB, b *redislocker.Backend) (read, write driver.Backend) {
	return share(t, b, driver.Share{Mode: driver.Read}), share(t, b, driver.Share{Mode: driver.Write})
}

// try makes an attempt on v that must get an answer.
func try(t *testing.T, v driver.Backend, r driver.Request) driver.Grant {
	t.Helper()
	if r.TTL == 0 {
		r.TTL = time.Minute
	}
	g, err := v.TryLock(context.Background(), r)
	require.NoError(t, err, "TryLock(%+v)", r)
	return g
}

// TestReadersShareWriterExcludes: readers share; a writer waits for them
// all, then excludes readers and other writers; tokens rise with each
// write hold, and a read hold carries the last one.
func TestReadersShareWriterExcludes(t *testing.T) {
	srv := redistest.Start(t)
	read, write := rwViews(t, newBackend(t, srv.Addr()))
	ctx := context.Background()
	const key = "rw"
	r1, r2, w := locker.NewOwner(), locker.NewOwner(), locker.NewOwner()

	g1 := try(t, read, driver.Request{Key: key, Owner: r1})
	require.True(t, g1.Acquired)
	assert.Zero(t, g1.Token, "no write yet: the counter is 0")
	assert.Positive(t, g1.Uptime, "a new hold reports the server's uptime")
	g2 := try(t, read, driver.Request{Key: key, Owner: r2})
	require.True(t, g2.Acquired, "readers share")
	again := try(t, read, driver.Request{Key: key, Owner: r1})
	assert.True(t, again.Acquired)
	assert.Equal(t, 2, again.Holds, "read re-entry")
	assert.Zero(t, again.Uptime, "a re-entry reports no uptime")

	refused := try(t, write, driver.Request{Key: key, Owner: w, TTL: time.Second})
	assert.False(t, refused.Acquired, "readers keep the writer out")
	assert.Greater(t, refused.Remaining, 50*time.Second, "the longest lease in the way")

	for _, o := range []string{r1, r1, r2} {
		require.NoError(t, read.Unlock(ctx, key, o))
	}
	assert.ErrorIs(t, read.Unlock(ctx, key, r1), driver.ErrNotHeld)
	wg := try(t, write, driver.Request{Key: key, Owner: w})
	require.True(t, wg.Acquired, "free once the readers left")
	assert.Positive(t, wg.Token)
	assert.Positive(t, wg.Uptime)
	assert.ErrorIs(t, read.Unlock(ctx, key, w), driver.ErrNotHeld, "a read unlock of a write hold")

	assert.False(t, try(t, read, driver.Request{Key: key, Owner: r1}).Acquired, "the writer keeps readers out")
	other := try(t, write, driver.Request{Key: key, Owner: r2})
	assert.False(t, other.Acquired, "and other writers")
	assert.Greater(t, other.Remaining, 50*time.Second)
	reentry := try(t, write, driver.Request{Key: key, Owner: w})
	assert.Equal(t, 2, reentry.Holds)
	assert.Equal(t, wg.Token, reentry.Token, "a write re-entry keeps its token")
	require.NoError(t, write.Unlock(ctx, key, w))
	require.NoError(t, write.Unlock(ctx, key, w))

	rg := try(t, read, driver.Request{Key: key, Owner: r1})
	require.True(t, rg.Acquired)
	assert.Equal(t, wg.Token, rg.Token, "a read hold carries the last write's token")
	require.NoError(t, read.Unlock(ctx, key, r1))
	wg2 := try(t, write, driver.Request{Key: key, Owner: r2, Floor: wg.Token + 1_000_000})
	require.True(t, wg2.Acquired)
	assert.Equal(t, wg.Token+1_000_000, wg2.Token, "the floor lifts the next write token")
	require.NoError(t, write.Unlock(ctx, key, r2))
}

// TestNoUpgradeButDowngrade: an owner's own read hold keeps its write
// attempt out; under its write hold it may take a read hold, and keep it
// after dropping the write hold.
func TestNoUpgradeButDowngrade(t *testing.T) {
	srv := redistest.Start(t)
	read, write := rwViews(t, newBackend(t, srv.Addr()))
	ctx := context.Background()
	const key = "grade"
	o, other := locker.NewOwner(), locker.NewOwner()

	require.True(t, try(t, read, driver.Request{Key: key, Owner: o}).Acquired)
	assert.False(t, try(t, write, driver.Request{Key: key, Owner: o}).Acquired, "no upgrade")
	require.NoError(t, read.Unlock(ctx, key, o))

	wg := try(t, write, driver.Request{Key: key, Owner: o})
	require.True(t, wg.Acquired)
	rg := try(t, read, driver.Request{Key: key, Owner: o})
	require.True(t, rg.Acquired, "a downgrade")
	assert.Equal(t, wg.Token, rg.Token)
	require.NoError(t, write.Unlock(ctx, key, o))
	assert.False(t, try(t, write, driver.Request{Key: key, Owner: other}).Acquired, "the read hold stays")
	assert.True(t, try(t, read, driver.Request{Key: key, Owner: other}).Acquired, "and lets readers in")
}

// TestWaitingWriterKeepsNewReadersOut: a refused writer with patience
// waits; new readers are refused, readers that hold re-enter; when the
// writer's patience ends or it leaves, readers come in again.
func TestWaitingWriterKeepsNewReadersOut(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	read, write := rwViews(t, b)
	ctx := context.Background()
	const key = "preference"
	r1, r2, w := locker.NewOwner(), locker.NewOwner(), locker.NewOwner()

	require.True(t, try(t, read, driver.Request{Key: key, Owner: r1}).Acquired)
	assert.False(t, try(t, write, driver.Request{Key: key, Owner: w, Patience: 300 * time.Millisecond}).Acquired)
	refused := try(t, read, driver.Request{Key: key, Owner: r2})
	assert.False(t, refused.Acquired, "a waiting writer keeps new readers out")
	assert.Greater(t, refused.Remaining, time.Duration(0))
	assert.LessOrEqual(t, refused.Remaining, 300*time.Millisecond, "the writer's patience is in the way")
	assert.True(t, try(t, read, driver.Request{Key: key, Owner: r1}).Acquired, "a reader that holds re-enters")

	time.Sleep(400 * time.Millisecond)
	assert.True(t, try(t, read, driver.Request{Key: key, Owner: r2}).Acquired, "the writer's patience ended")
	require.NoError(t, read.Unlock(ctx, key, r2))

	assert.False(t, try(t, write, driver.Request{Key: key, Owner: w, Patience: time.Minute}).Acquired)
	assert.False(t, try(t, read, driver.Request{Key: key, Owner: r2}).Acquired)
	require.NoError(t, read.(driver.Dequeuer).Dequeue(ctx, key, w))
	assert.True(t, try(t, read, driver.Request{Key: key, Owner: r2}).Acquired, "the writer left")
	require.NoError(t, read.Unlock(ctx, key, r2))

	// The waiting writer takes the lock when the readers are gone, and
	// stops waiting.
	assert.False(t, try(t, write, driver.Request{Key: key, Owner: w, Patience: time.Minute}).Acquired)
	require.NoError(t, read.Unlock(ctx, key, r1))
	require.NoError(t, read.Unlock(ctx, key, r1))
	require.True(t, try(t, write, driver.Request{Key: key, Owner: w, Patience: time.Minute}).Acquired)
	require.NoError(t, write.Unlock(ctx, key, w))
	assert.True(t, try(t, read, driver.Request{Key: key, Owner: r2}).Acquired, "no writer waits any more")
}

// TestSharedLeaseExpiry: a hold's lease ends by the server's clock, and
// its owner can neither renew nor release it afterwards.
func TestSharedLeaseExpiry(t *testing.T) {
	srv := redistest.Start(t)
	read, write := rwViews(t, newBackend(t, srv.Addr()))
	ctx := context.Background()
	const key = "expiry"
	r, w := locker.NewOwner(), locker.NewOwner()

	require.True(t, try(t, read, driver.Request{Key: key, Owner: r, TTL: 200 * time.Millisecond}).Acquired)
	now, err := srv.Do("TIME")
	require.NoError(t, err)
	sec, err1 := strconv.ParseInt(now.([]any)[0].(string), 10, 64)
	usec, err2 := strconv.ParseInt(now.([]any)[1].(string), 10, 64)
	require.NoError(t, errors.Join(err1, err2))
	ends, err := srv.Do("ZSCORE", "distlock:{expiry}:rw:leases", "r"+r)
	require.NoError(t, err)
	end, err := strconv.ParseInt(ends.(string), 10, 64)
	require.NoError(t, err)
	assert.InDelta(t, sec*1000+usec/1000+200, end, 100, "the lease ends by the server's clock")
	require.NoError(t, read.Expire(ctx, key, r, 300*time.Millisecond))
	assert.ErrorIs(t, write.Expire(ctx, key, r, time.Minute), driver.ErrNotHeld, "not held in write mode")
	refused := try(t, write, driver.Request{Key: key, Owner: w})
	require.False(t, refused.Acquired)
	assert.LessOrEqual(t, refused.Remaining, 300*time.Millisecond)
	time.Sleep(350 * time.Millisecond)
	assert.ErrorIs(t, read.Expire(ctx, key, r, time.Minute), driver.ErrNotHeld, "the lease ended")
	assert.ErrorIs(t, read.Unlock(ctx, key, r), driver.ErrNotHeld)
	require.True(t, try(t, write, driver.Request{Key: key, Owner: w, TTL: 200 * time.Millisecond}).Acquired)
	time.Sleep(250 * time.Millisecond)
	assert.True(t, try(t, read, driver.Request{Key: key, Owner: r}).Acquired, "the write lease ended too")
}

// TestLeaseLivesThroughItsLastMillisecond: a lease that ends in
// millisecond m is live through m, as a Redis key is, so that it never
// ends before its length has passed since the attempt began (the lease
// starts in the millisecond the server ran the attempt). A writer tries
// for a read hold's lock as its lease ends; whenever it gets in, the
// server's clock after the attempt is past m.
func TestLeaseLivesThroughItsLastMillisecond(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	read, write := rwViews(t, b)
	ctx := context.Background()
	// endSoon makes the reader's lease of key end two milliseconds from
	// now, by the server's clock, and returns that millisecond.
	endSoon := func(key string) int64 {
		ms, err := b.Client().Eval(ctx, `
local now = redis.call('TIME')
local ms = math.floor((now[1] * 1000000 + now[2]) / 1000) + 2
redis.call('ZADD', KEYS[1], 'XX', ms, ARGV[1])
return ms`, []string{"distlock:{" + key + "}:rw:leases"}, "rreader").Int64()
		require.NoError(t, err)
		return ms
	}
	for i := range 20 {
		key := fmt.Sprint("last-ms-", i)
		require.True(t, try(t, read, driver.Request{Key: key, Owner: "reader"}).Acquired)
		last := endSoon(key)
		for range 1000 { // bounds the attempts: the lease ends within milliseconds
			if try(t, write, driver.Request{Key: key, Owner: "writer"}).Acquired {
				now, err := b.Client().Time(ctx).Result()
				require.NoError(t, err)
				require.Greater(t, now.UnixMilli(), last, "the writer got in before the lease's last millisecond was over")
				break
			}
		}
	}
}
