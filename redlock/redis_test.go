package redlock_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/conformance"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/redlock"
)

// TestConformanceRedis runs the backend contract on a RedLock of five real
// Redis servers. The servers have just started, so the restart guard, which
// would keep them out of every quorum for a lease, is off here; it is
// tested on Redis by TestRedisRestarts.
func TestConformanceRedis(t *testing.T) {
	conformance.Run(t, func(_ context.Context, t *testing.T) (conformance.Harness, error) {
		stores := quorumtest.StartRedis(t, 5)
		return quorumtest.NewHarness(stores, func(members []driver.Backend) (driver.Backend, error) {
			return redlock.New(members, combine.WithRestartGuard(0), combine.WithMemberTimeout(memberTimeout))
		}), nil
	})
}

// TestRedisKilledServers kills servers one by one: with two of five gone
// the lock is still taken and released; with three gone an attempt fails
// promptly with an error, well within its wait, and leaves nothing behind
// on the servers still up.
func TestRedisKilledServers(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.StartRedis(t, 5)
	rl := newRL(t, stores.Clients(t), combine.WithRestartGuard(0))
	probe := newRL(t, stores.Clients(t), combine.WithRestartGuard(0))

	stores.Server(0).KillAndHold()
	stores.Server(1).KillAndHold()
	m, err := newMutex(t, rl, "k")
	require.NoError(t, err)
	l, err := m.TryLock(ctx, locker.WithWait(5*time.Second), locker.WithLease(10*time.Second))
	require.NoError(t, err, "three of five servers are a quorum")
	assert.NotZero(t, l.Token())
	g, err := probe.TryLock(ctx, driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Second})
	require.NoError(t, err)
	assert.False(t, g.Acquired, "the lock is held")
	require.NoError(t, l.Unlock(ctx))

	stores.Server(2).KillAndHold()
	const wait = 3 * time.Second
	start := time.Now()
	_, err = m.TryLock(ctx, locker.WithWait(wait), locker.WithLease(10*time.Second))
	elapsed := time.Since(start)
	require.Error(t, err, "two of five servers are no quorum")
	assert.NotErrorIs(t, err, locker.ErrInvalid)
	assert.Less(t, elapsed, wait, "the attempt must fail within its wait")
	for i := 3; i < 5; i++ {
		assert.False(t, stores.State(t, i, "k").Held, "server %d: a failed attempt leaves nothing behind", i)
	}
}

// TestRedisRestartGuard restarts three of five servers without
// persistence while X holds the lock, so that only two still know of X's
// hold: the uptime the restarted servers report keeps them out of Y's
// quorum, where without the guard Y would take the lock beside X.
func TestRedisRestartGuard(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.StartRedis(t, 5)
	x := newRL(t, stores.Clients(t), combine.WithRestartGuard(0))
	g, err := x.TryLock(ctx, driver.Request{Key: "k", Owner: "X", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	for i := range 3 {
		stores.Server(i).Restart()
	}

	y := newRL(t, stores.Clients(t))
	g, err = y.TryLock(ctx, driver.Request{Key: "k", Owner: "Y", TTL: 10 * time.Second})
	require.ErrorIs(t, err, locker.ErrUnavailable)
	assert.ErrorContains(t, err, "restart guard")
	assert.False(t, g.Acquired, "restarted servers must not vote within the guard")

	unguarded := newRL(t, stores.Clients(t), combine.WithRestartGuard(0))
	g, err = unguarded.TryLock(ctx, driver.Request{Key: "k", Owner: "Z", TTL: 10 * time.Second})
	require.NoError(t, err)
	assert.True(t, g.Acquired, "without the guard a second owner wins while X holds the lock")
	require.NoError(t, unguarded.Unlock(ctx, "k", "Z"))
	assert.ErrorIs(t, x.Unlock(ctx, "k", "X"), locker.ErrNotHeld, "X lost its quorum; its two holds are released")
}

// TestRedisRestarts restarts one server without persistence again and
// again while clients contend for the lock: the restart guard (with the
// uptime the servers report) keeps holders from ever overlapping, and the
// fencing tokens still rise from holder to holder. Holds are long, so that
// restarts land inside them: without the guard, holders overlap in every
// run.
func TestRedisRestarts(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts servers for several seconds")
	}
	stores := quorumtest.StartRedis(t, 5)
	const lease, guard = 800 * time.Millisecond, 2 * time.Second
	var (
		o         overlapCounter
		mu        sync.Mutex
		lastToken uint64
		stale     int
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		rl := newRL(t, stores.Clients(t), combine.WithRestartGuard(guard), combine.WithMemberTimeout(100*time.Millisecond))
		m, err := newMutex(t, rl, "contended")
		require.NoError(t, err)
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
				l, err := m.Lock(ctx, locker.WithLease(lease))
				cancel()
				if err != nil {
					continue
				}
				mu.Lock()
				if l.Token() <= lastToken {
					stale++
				}
				lastToken = max(lastToken, l.Token())
				mu.Unlock()
				o.hold(200 * time.Millisecond)
				_ = l.Unlock(context.Background())
			}
		})
	}
	// Let the servers outlive the guard, so that the restarted one is the
	// only one kept out.
	time.Sleep(guard)
	deadline := time.Now().Add(4 * time.Second)
	restarts := 0
	for time.Now().Before(deadline) {
		time.Sleep(300 * time.Millisecond)
		stores.Server(0).Restart()
		restarts++
	}
	close(stop)
	wg.Wait()
	t.Logf("%d restarts, %d acquisitions", restarts, o.entries.Load())
	assert.Positive(t, o.entries.Load(), "the four servers that stay up make quorums")
	assert.Zero(t, o.overlaps.Load(), "holders overlapped")
	assert.Zero(t, stale, "a token did not rise")
}

// BenchmarkLockUnlockRedis5 is an uncontended RedLock of five Redis
// servers on loopback.
func BenchmarkLockUnlockRedis5(b *testing.B) {
	stores := quorumtest.StartRedis(b, 5)
	benchLockUnlock(b, newRL(b, stores.DirectClients(b), combine.WithRestartGuard(0)))
}

// fenceCounter counts a member's Fence calls. The embedded member's TryLock
// gets the attempt's token floor in its request.
type fenceCounter struct {
	driver.Backend
	fences *atomic.Int32
}

func (f fenceCounter) Fence(ctx context.Context, key, owner string, token uint64) error {
	f.fences.Add(1)
	return f.Backend.(driver.Fencer).Fence(ctx, key, owner, token)
}

// TestRedisTokensAgreeWithoutASecondRound: Redis members take the
// attempt's token floor, so their tokens agree and no member needs raising;
// the tokens still rise from holder to holder.
func TestRedisTokensAgreeWithoutASecondRound(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.StartRedis(t, 5)
	var fences atomic.Int32
	var members []driver.Backend
	for _, c := range stores.Clients(t) {
		members = append(members, fenceCounter{c, &fences})
	}
	rl, err := redlock.New(members, combine.WithRestartGuard(0))
	require.NoError(t, err)
	var last uint64
	for range 5 {
		m, err := newMutex(t, rl, "k")
		require.NoError(t, err)
		l, err := m.Lock(ctx, locker.WithLease(10*time.Second))
		require.NoError(t, err)
		assert.Greater(t, l.Token(), last, "tokens rise from holder to holder")
		last = l.Token()
		require.NoError(t, l.Unlock(ctx))
	}
	assert.Zero(t, fences.Load(), "members whose tokens agree need no fencing round")
}
