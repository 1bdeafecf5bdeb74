package redislocker_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// The wait queue's semantics are the conformance suite's WaitQueue
// subtest; these tests cover what is particular to Redis: who hears of a
// hand-off, what the queue leaves on the server, and fair waiting through
// the Mutex.

func TestHandOffWakesOnlyTheWaiterItIsFor(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	b := newBackend(t, srv.Addr())
	const key = "turns"
	holder, first, second := locker.NewOwner(), locker.NewOwner(), locker.NewOwner()

	var releases, firstTurns, secondTurns atomic.Int32
	var granted atomic.Pointer[driver.Grant]
	stopRelease, err := b.Watch(ctx, key, func() { releases.Add(1) })
	require.NoError(t, err)
	defer stopRelease()
	stopFirst, err := b.WatchTurn(ctx, key, first, func(g driver.Grant) {
		if g.Acquired {
			granted.Store(&g)
		}
		firstTurns.Add(1)
	})
	require.NoError(t, err)
	defer stopFirst()
	stopSecond, err := b.WatchTurn(ctx, key, second, func(driver.Grant) { secondTurns.Add(1) })
	require.NoError(t, err)
	defer stopSecond()
	// Each watcher is called once when its subscription is confirmed.
	require.Eventually(t, func() bool {
		return releases.Load() > 0 && firstTurns.Load() > 0 && secondTurns.Load() > 0
	}, 10*time.Second, 5*time.Millisecond)
	releases.Store(0)
	firstTurns.Store(0)
	secondTurns.Store(0)

	g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: holder, TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	for _, o := range []string{first, second} {
		r, err := b.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: 40 * time.Second, Patience: time.Minute})
		require.NoError(t, err)
		require.False(t, r.Acquired)
		assert.Equal(t, g.Token, r.Token, "a refusal with patience tells the lock's token")
	}
	require.NoError(t, b.Unlock(ctx, key, holder))
	require.Eventually(t, func() bool { return firstTurns.Load() > 0 }, 5*time.Second, 5*time.Millisecond,
		"the first waiter must hear of its turn")
	time.Sleep(100 * time.Millisecond) // time for a stray message to arrive
	assert.Zero(t, secondTurns.Load(), "the second waiter was woken by the first one's turn")
	assert.Zero(t, releases.Load(), "a release handed to a waiter was announced to everyone")

	turn := granted.Load()
	require.NotNil(t, turn, "the first waiter's turn must carry the grant")
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 1, Token: turn.Token, Uptime: turn.Uptime}, *turn)
	assert.Positive(t, turn.Uptime, "a turn reports the server's uptime, for a combinator's restart guard")
	assert.Greater(t, turn.Token, g.Token)
	st, err := b.Inspect(ctx, key)
	require.NoError(t, err)
	assert.Equal(t, driver.State{Held: true, Owner: first, Holds: 1, Remaining: st.Remaining, Token: turn.Token}, st)
	assert.InDelta(t, 40*time.Second, st.Remaining, float64(5*time.Second), "a grant has the lease the waiter asked for")

	// The waiter's attempt claims the grant: no second hold.
	claim, err := b.TryLock(ctx, driver.Request{Key: key, Owner: first, TTL: time.Minute, Patience: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 1, Token: turn.Token, Uptime: claim.Uptime}, claim)
	assert.GreaterOrEqual(t, claim.Uptime, turn.Uptime, "a claim reports the server's uptime, as an acquisition does")
	require.NoError(t, b.Unlock(ctx, key, first))
}

func TestQueueLeavesNothingBehind(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	b := newBackend(t, srv.Addr())
	const key = "tidy"
	holder, waiter, quitter := locker.NewOwner(), locker.NewOwner(), locker.NewOwner()
	_, err := b.TryLock(ctx, driver.Request{Key: key, Owner: holder, TTL: time.Minute})
	require.NoError(t, err)
	_, err = b.TryLock(ctx, driver.Request{Key: key, Owner: quitter, TTL: time.Minute, Patience: 2 * time.Second})
	require.NoError(t, err)
	_, err = b.TryLock(ctx, driver.Request{Key: key, Owner: waiter, TTL: time.Minute, Patience: 400 * time.Millisecond})
	require.NoError(t, err)
	for _, name := range []string{"queue", "waiting"} {
		ttl, err := srv.Do("PTTL", "distlock:{tidy}:"+name)
		require.NoError(t, err)
		assert.Greater(t, ttl, int64(1_000), "%s must live as long as the longest patience in it", name)
	}

	// One waiter leaves, the other's patience lapses: the queue's keys go
	// with them.
	require.NoError(t, b.Dequeue(ctx, key, quitter))
	n, err := srv.Do("HLEN", "distlock:{tidy}:waiting")
	require.NoError(t, err)
	assert.Equal(t, int64(1), n)
	require.Eventually(t, func() bool {
		n, err := srv.Do("EXISTS", "distlock:{tidy}:queue", "distlock:{tidy}:waiting")
		return err == nil && n == int64(0)
	}, 10*time.Second, 20*time.Millisecond, "the queue's keys must expire with the longest patience")

	// The release then finds nobody to hand the lock to.
	require.NoError(t, b.Unlock(ctx, key, holder))
	st, err := b.Inspect(ctx, key)
	require.NoError(t, err)
	assert.False(t, st.Held)
}

// TestAQueueMadeAgainExpires: the lock's state remembers when its queue's
// keys expire, so that most joins need not touch their expiry. A hand-off
// that takes the last waiter deletes the keys while the state still names
// that time; the next join makes them again and must give them an expiry
// of their own, or a waiter that dies would leave them forever.
func TestAQueueMadeAgainExpires(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	b := newBackend(t, srv.Addr())
	const key = "again"
	holder, first, second := locker.NewOwner(), locker.NewOwner(), locker.NewOwner()
	_, err := b.TryLock(ctx, driver.Request{Key: key, Owner: holder, TTL: time.Minute})
	require.NoError(t, err)
	_, err = b.TryLock(ctx, driver.Request{Key: key, Owner: first, TTL: time.Minute, Patience: time.Minute})
	require.NoError(t, err)
	require.NoError(t, b.Unlock(ctx, key, holder)) // grants the lock to first, the only waiter
	n, err := srv.Do("EXISTS", "distlock:{again}:queue", "distlock:{again}:waiting")
	require.NoError(t, err)
	require.Equal(t, int64(0), n, "the hand-off took the last waiter: the queue's keys are gone")

	_, err = b.TryLock(ctx, driver.Request{Key: key, Owner: second, TTL: time.Minute, Patience: 300 * time.Millisecond})
	require.NoError(t, err)
	for _, name := range []string{"queue", "waiting"} {
		ttl := pttl(t, srv, "distlock:{again}:"+name)
		assert.Positive(t, ttl, "%s, made again, must expire", name)
		assert.LessOrEqual(t, ttl, time.Second, "%s, made again, must expire soon after the patience in it lapses", name)
	}
	require.Eventually(t, func() bool {
		n, err := srv.Do("EXISTS", "distlock:{again}:queue", "distlock:{again}:waiting")
		return err == nil && n == int64(0)
	}, 5*time.Second, 20*time.Millisecond, "a dead waiter's queue must not stay")
	require.NoError(t, b.Unlock(ctx, key, first))
}

func TestMutexWaitersAreServedInArrivalOrder(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	const key = "fifo"
	const waiters = 6
	holderBackend := newBackend(t, srv.Addr())
	holder, err := storetest.Of(t, holderBackend).Mutex(key)
	require.NoError(t, err)
	lease, err := holder.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)

	var (
		mu    sync.Mutex
		order []int
		wg    sync.WaitGroup
	)
	for i := range waiters {
		// Each waiter has a backend (connections) of its own, as
		// separate processes would, and joins the queue before the next
		// one starts.
		m, err := storetest.Of(t, newBackend(t, srv.Addr())).Mutex(key)
		require.NoError(t, err)
		wg.Go(func() {
			l, err := m.Lock(ctx, locker.WithLease(time.Minute))
			if !assert.NoError(t, err) {
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			assert.NoError(t, l.Unlock(ctx))
		})
		require.Eventually(t, func() bool {
			n, err := srv.Do("LLEN", "distlock:{fifo}:queue")
			return err == nil && n == int64(i+1)
		}, 10*time.Second, 2*time.Millisecond, "waiter %d did not join the queue", i)
	}
	require.NoError(t, lease.Unlock(ctx))
	wg.Wait()
	want := make([]int, waiters)
	for i := range want {
		want[i] = i
	}
	assert.Equal(t, want, order, "waiters must get the lock in the order they asked")
}

func TestGivingUpLeavesTheQueue(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	const key = "impatient"
	b := newBackend(t, srv.Addr())
	holder, err := storetest.Of(t, b).Mutex(key)
	require.NoError(t, err)
	lease, err := holder.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	defer func() { require.NoError(t, lease.Unlock(ctx)) }()

	m, err := storetest.Of(t, newBackend(t, srv.Addr())).Mutex(key)
	require.NoError(t, err)
	_, err = m.Lock(ctx, locker.WithWait(300*time.Millisecond))
	require.ErrorIs(t, err, locker.ErrNotAcquired)
	for _, name := range []string{"queue", "waiting"} {
		n, err := srv.Do("EXISTS", fmt.Sprintf("distlock:{%s}:%s", key, name))
		require.NoError(t, err)
		assert.Equal(t, int64(0), n, "a waiter that gave up is still in %s", name)
	}
}

// TestAHandOffCostsOneTrip counts the scripts of a hand-off between two
// Stores: from the holder's Unlock on, that Unlock is the only one: the
// turn's message is the grant, and the waiter takes it without a call.
func TestAHandOffCostsOneTrip(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	const key = "one-trip"
	holder, err := storetest.Of(t, newBackend(t, srv.Addr())).Mutex(key)
	require.NoError(t, err)
	waiter, err := storetest.Of(t, newBackend(t, srv.Addr())).Mutex(key)
	require.NoError(t, err)
	lease, err := holder.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	scripts := func() int {
		eval, evalsha := evalCalls(t, srv)
		return eval + evalsha
	}

	got := make(chan *locker.Lease, 1)
	go func() {
		l, err := waiter.Lock(ctx, locker.WithLease(time.Minute))
		assert.NoError(t, err)
		got <- l
	}()
	// The waiter queues, subscribes to its turn and tries again, then
	// sleeps: no script for a while (it renews its place every second).
	before := scripts()
	require.Eventually(t, func() bool {
		n := scripts()
		time.Sleep(100 * time.Millisecond)
		return n >= before+2 && scripts() == n
	}, 10*time.Second, time.Millisecond, "the waiter's refused attempts")
	before = scripts()
	require.NoError(t, lease.Unlock(ctx))
	l := <-got
	require.NotNil(t, l)
	assert.Equal(t, 1, scripts()-before, "the release is the hand-off's only script")
	st, err := waiter.Inspect(ctx)
	require.NoError(t, err)
	assert.Equal(t, waiter.Owner(), st.Owner)
	assert.Equal(t, st.Token, l.Token(), "the lease carries the grant's token")
	assert.Greater(t, l.Token(), lease.Token())
	assert.Greater(t, st.Remaining, 50*time.Second, "the grant has the lease the waiter asked for")
	require.NoError(t, l.Unlock(ctx))
}

// TestAClaimRaisesTheGrantToItsFloor: a combinator claims a grant with the
// floor its other members get (driver.Request.Floor), so that the tokens
// agree without a second round: the claim raises the grant's token, and
// the counter, to the floor, and a claim below the token leaves it alone.
func TestAClaimRaisesTheGrantToItsFloor(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	b := newBackend(t, srv.Addr())
	holder, waiter, next := locker.NewOwner(), locker.NewOwner(), locker.NewOwner()
	for _, c := range []struct {
		name   string
		floor  func(granted uint64) uint64
		raised bool
	}{
		{"a floor above the grant's token", func(granted uint64) uint64 { return granted + 1000 }, true},
		{"a floor below it", func(granted uint64) uint64 { return granted - 1 }, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			key := "claim-floor/" + c.name
			g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: holder, TTL: time.Minute})
			require.NoError(t, err)
			require.True(t, g.Acquired)
			r, err := b.TryLock(ctx, driver.Request{Key: key, Owner: waiter, TTL: time.Minute, Patience: time.Minute})
			require.NoError(t, err)
			require.False(t, r.Acquired)
			require.NoError(t, b.Unlock(ctx, key, holder))
			st, err := b.Inspect(ctx, key)
			require.NoError(t, err)
			require.Equal(t, waiter, st.Owner, "the release granted the lock to the waiter")
			granted := st.Token
			refusal, err := b.TryLock(ctx, driver.Request{Key: key, Owner: next, TTL: time.Minute})
			require.NoError(t, err)
			assert.True(t, refusal.Reserved, "a refusal of the unclaimed grant reports the reservation")

			floor := c.floor(granted)
			claim, err := b.TryLock(ctx, driver.Request{Key: key, Owner: waiter, TTL: time.Minute, Patience: time.Minute, Floor: floor})
			require.NoError(t, err)
			require.True(t, claim.Acquired)
			assert.Equal(t, 1, claim.Holds, "a claim adds no hold")
			want := granted
			if c.raised {
				want = floor
			}
			assert.Equal(t, want, claim.Token, "the claim's token")
			again, err := b.TryLock(ctx, driver.Request{Key: key, Owner: waiter, TTL: time.Minute, Floor: floor + 5000})
			require.NoError(t, err)
			assert.Equal(t, want, again.Token, "a re-entry after the claim keeps the token, whatever its floor")
			refusal, err = b.TryLock(ctx, driver.Request{Key: key, Owner: next, TTL: time.Minute})
			require.NoError(t, err)
			assert.False(t, refusal.Reserved, "a claimed grant is a hold, not a reservation")
			require.NoError(t, b.Unlock(ctx, key, waiter))
			require.NoError(t, b.Unlock(ctx, key, waiter))
			after, err := b.TryLock(ctx, driver.Request{Key: key, Owner: next, TTL: time.Minute})
			require.NoError(t, err)
			require.True(t, after.Acquired)
			assert.Greater(t, after.Token, want, "the counter rose with the claim")
			require.NoError(t, b.Unlock(ctx, key, next))
		})
	}
}
