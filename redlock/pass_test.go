package redlock_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
)

// scriptCalls counts the scripts the servers of stores have run.
func scriptCalls(t *testing.T, stores *quorumtest.Redis) int {
	t.Helper()
	n := 0
	for i := range stores.Len() {
		c, err := stores.Server(i).Scripts()
		require.NoError(t, err)
		n += c
	}
	return n
}

// quiet waits until the servers of stores have run no script for a
// while, and returns how many they have run.
func quiet(t *testing.T, stores *quorumtest.Redis) int {
	t.Helper()
	var n int
	require.Eventually(t, func() bool {
		n = scriptCalls(t, stores)
		time.Sleep(150 * time.Millisecond)
		return scriptCalls(t, stores) == n
	}, 10*time.Second, time.Millisecond, "the waiters settle in line")
	return n
}

// handOff releases held, once the servers of stores are quiet, and
// returns the lease of the waiter that took the lock (it comes on got)
// and the scripts the servers ran meanwhile.
func handOff(ctx context.Context, t *testing.T, stores *quorumtest.Redis, held *locker.Lease, got <-chan *locker.Lease) (*locker.Lease, int) {
	t.Helper()
	before := quiet(t, stores)
	require.NoError(t, held.Unlock(ctx))
	l := <-got
	require.NotNil(t, l)
	return l, scriptCalls(t, stores) - before
}

// heldBy checks what a hand-off of key to heir, whose lease is l, leaves
// whatever the timing: l's token above prev's, a quorum of the servers of
// stores holding the lock for heir with l's token, and every other server
// free. It reports whether every server holds it so. Some may be free: a
// holder whose attempt reached a server before its predecessor's release
// did was refused there and held a quorum without it, which a loaded
// machine sees (the line member's grant wakes the waiter while the other
// releases are still on their way); such a server is then not handed on.
func heldBy(t *testing.T, stores *quorumtest.Redis, key string, heir *locker.Mutex, l, prev *locker.Lease) bool {
	t.Helper()
	assert.Greater(t, l.Token(), prev.Token(), "tokens rise from holder to holder")
	holding := 0
	for i := range stores.Len() {
		st := stores.State(t, i, key)
		if !st.Held {
			continue
		}
		holding++
		assert.Equal(t, heir.Owner(), st.Owner, "server %d", i)
		assert.Equal(t, l.Token(), st.Token, "server %d: the tokens agree", i)
	}
	assert.GreaterOrEqual(t, holding, stores.Len()/2+1, "a quorum of the servers hold the lock")
	return holding == stores.Len()
}

// TestAHandOffIsOneRound: on a RedLock of five Redis servers, a holder
// whose turn named the waiter behind it hands the lock over in its
// release: each server's release grants the lock to that waiter and tells
// it, and the waiter holds the lock from a quorum of those turns, without
// a call of its own. The tokens still rise and agree.
//
// A loaded machine can make a hand-off two rounds, or leave a server out
// (see heldBy): a waiter that the line member refused while its grant to
// the waiter before it was pending asks again after a backoff of up to a
// second, which may fall in the hand-off. So the test hands off on a new
// key until one hand-off is one round and reaches every server, three
// times at most.
func TestAHandOffIsOneRound(t *testing.T) {
	stores := quorumtest.StartRedis(t, 5)
	var counted []int
	for try := range 3 {
		scripts, everywhere := handOffToTheNamedHeir(t, stores, fmt.Sprintf("k%d", try))
		counted = append(counted, scripts)
		if scripts == stores.Len() && everywhere {
			return
		}
	}
	t.Fatalf("no hand-off was the release's round alone, a script on each server and none of the waiter's, that reached every server (scripts per hand-off: %v)", counted)
}

// handOffToTheNamedHeir puts two waiters in line for key behind a holder,
// on a RedLock over stores, lets the first of them take the lock with its
// turn naming the second, and returns the scripts the servers ran for the
// second's hand-off, and whether every server then holds the lock for the
// heir (see heldBy).
func handOffToTheNamedHeir(t *testing.T, stores *quorumtest.Redis, key string) (scripts int, everywhere bool) {
	ctx := context.Background()
	rl := newRL(t, stores.Clients(t), combine.WithRestartGuard(0))
	const lease = time.Minute
	first, err := newMutex(t, rl, key)
	require.NoError(t, err)
	held, err := first.Lock(ctx, locker.WithLease(lease))
	require.NoError(t, err)

	// Two waiters in line, one after the other.
	leases := make(chan *locker.Lease, 2)
	wait := func(m *locker.Mutex) {
		go func() {
			l, err := m.Lock(ctx, locker.WithLease(lease), locker.WithWait(20*time.Second))
			assert.NoError(t, err)
			leases <- l
		}()
	}
	second, err := newMutex(t, rl, key)
	require.NoError(t, err)
	wait(second)
	quiet(t, stores)
	third, err := newMutex(t, rl, key)
	require.NoError(t, err)
	wait(third)
	quiet(t, stores)

	// The first holder's release grants the line member to the second,
	// whose turn names the third; the second takes the other members in a
	// round of its own.
	require.NoError(t, held.Unlock(ctx))
	l2 := <-leases
	require.NotNil(t, l2)
	assert.Greater(t, l2.Token(), held.Token())

	l3, scripts := handOff(ctx, t, stores, l2, leases)
	everywhere = heldBy(t, stores, key, third, l3, l2)
	assert.Greater(t, time.Until(l3.Deadline()), lease-5*time.Second, "the lease counts from the waiter's attempt")
	require.NoError(t, l3.Unlock(ctx))
	for i := range stores.Len() {
		assert.False(t, stores.State(t, i, key).Held, "server %d", i)
	}
	return scripts, everywhere
}

// TestAHolderToldOfItsHeirHandsOffInOneRound: two processes (a RedLock
// of five Redis servers each) that take turns have nobody in line when
// the lock is handed over; the waiter joins the line later, and the line
// member's notice tells the holder (driver.Turn.Behind), whose release
// then hands the lock over in its round alone. A waiter a notice named
// that gave up is granted nothing.
func TestAHolderToldOfItsHeirHandsOffInOneRound(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.StartRedis(t, 5)
	const lease = time.Minute
	mutex := func() *locker.Mutex {
		m, err := newMutex(t, newRL(t, stores.Clients(t), combine.WithRestartGuard(0)), "k")
		require.NoError(t, err)
		return m
	}
	first, a, b := mutex(), mutex(), mutex()
	held, err := first.Lock(ctx, locker.WithLease(lease))
	require.NoError(t, err)
	wait := func(m *locker.Mutex) <-chan *locker.Lease {
		got := make(chan *locker.Lease, 1)
		go func() {
			l, err := m.Lock(ctx, locker.WithLease(lease), locker.WithWait(20*time.Second))
			assert.NoError(t, err)
			got <- l
		}()
		return got
	}

	// A waits, and takes the lock at first's release, with nobody behind
	// it; then B and A take turns, each joining the line behind the other.
	// A holder watches for the notice for a quarter second after its own
	// wait: a machine that stalls for that long between a hand-off and
	// the next waiter's attempt makes that hand-off two rounds, so they
	// take turns until one hand-off is one round, three times at most.
	gotA := wait(a)
	quiet(t, stores)
	require.NoError(t, held.Unlock(ctx))
	held = <-gotA
	require.NotNil(t, held)
	holder, waiter := a, b
	var counted []int
	for range 3 {
		l, scripts := handOff(ctx, t, stores, held, wait(waiter))
		counted = append(counted, scripts)
		prev := held
		held, holder, waiter = l, waiter, holder
		heldBy(t, stores, "k", holder, held, prev)
		if scripts == stores.Len() {
			break
		}
	}
	require.Contains(t, counted, stores.Len(),
		"a hand-off is the release's round: a script on each server, none of the waiter's (scripts per hand-off: %v)", counted)

	// C joins the line behind the holder's hold, and the holder is told;
	// C then gives up, leaving every member, so the holder's release
	// grants it nothing.
	c := mutex()
	_, err = c.Lock(ctx, locker.WithLease(lease), locker.WithWait(300*time.Millisecond))
	require.ErrorIs(t, err, locker.ErrNotAcquired)
	require.NoError(t, held.Unlock(ctx))
	for i := range stores.Len() {
		assert.False(t, stores.State(t, i, "k").Held, "server %d: nobody was granted the lock", i)
	}
	l, err := mutex().TryLock(ctx, locker.WithLease(lease))
	require.NoError(t, err)
	require.NoError(t, l.Unlock(ctx))
}

// TestAnHeirThatLeftIsNotGranted: a waiter that gives up leaves every
// member, so the release of the hold that names it as its heir grants it
// nothing: the lock is free on every server, and the next TryLock takes it.
func TestAnHeirThatLeftIsNotGranted(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.StartRedis(t, 5)
	rl := newRL(t, stores.Clients(t), combine.WithRestartGuard(0))
	const lease = time.Minute
	first, err := newMutex(t, rl, "k")
	require.NoError(t, err)
	held, err := first.Lock(ctx, locker.WithLease(lease))
	require.NoError(t, err)

	second, err := newMutex(t, rl, "k")
	require.NoError(t, err)
	got := make(chan *locker.Lease, 1)
	go func() {
		l, err := second.Lock(ctx, locker.WithLease(lease), locker.WithWait(20*time.Second))
		assert.NoError(t, err)
		got <- l
	}()
	quiet(t, stores)
	third, err := newMutex(t, rl, "k")
	require.NoError(t, err)
	gaveUp := make(chan error, 1)
	release := make(chan struct{})
	go func() {
		_, err := third.Lock(ctx, locker.WithLease(lease), locker.WithWait(time.Second))
		gaveUp <- err
		close(release)
	}()
	quiet(t, stores)

	// The second takes the lock with the third as its heir; then the
	// third gives up.
	require.NoError(t, held.Unlock(ctx))
	l2 := <-got
	require.NotNil(t, l2)
	<-release
	assert.ErrorIs(t, <-gaveUp, locker.ErrNotAcquired)

	require.NoError(t, l2.Unlock(ctx))
	for i := range stores.Len() {
		assert.False(t, stores.State(t, i, "k").Held, "server %d: nobody was granted the lock", i)
	}
	fourth, err := newMutex(t, rl, "k")
	require.NoError(t, err)
	l4, err := fourth.TryLock(ctx, locker.WithLease(lease))
	require.NoError(t, err)
	require.NoError(t, l4.Unlock(ctx))
}

// TestContendedHandOffsKeepTheLock: sixteen processes (a RedLock of five
// Redis servers each) contend for one lock, holding it for a millisecond
// at a time, as the benchmark's section 8 does: nobody holds it while
// another does, every release finds the holder's hold, and every process
// gets its turns. (An attempt that a slow release's named grants crossed
// once re-entered them, gave back both holds as stale and then took the
// lock from the turns it had heard: its release found nothing held, and
// the heir the first give-back named overlapped it.)
func TestContendedHandOffsKeepTheLock(t *testing.T) {
	stores := quorumtest.StartRedis(t, 5)
	const workers, hold = 16, time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	var inside, overlaps atomic.Int32
	var mu sync.Mutex
	var unlockErrs []error
	counts := make([]int, workers)
	var wg sync.WaitGroup
	for w := range workers {
		m, err := newMutex(t, newRL(t, stores.Clients(t), combine.WithRestartGuard(0)), "contended")
		require.NoError(t, err)
		wg.Go(func() {
			for ctx.Err() == nil {
				l, err := m.Lock(ctx, locker.WithLease(10*time.Second))
				if err != nil {
					continue // the run is over
				}
				if inside.Add(1) != 1 {
					overlaps.Add(1)
				}
				time.Sleep(hold)
				inside.Add(-1)
				counts[w]++
				if err := l.Unlock(context.Background()); err != nil {
					mu.Lock()
					unlockErrs = append(unlockErrs, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	assert.Zero(t, overlaps.Load(), "holders overlapped")
	assert.Empty(t, unlockErrs, "a release found its hold gone")
	for w, n := range counts {
		assert.Positive(t, n, "process %d got the lock", w)
	}
}
