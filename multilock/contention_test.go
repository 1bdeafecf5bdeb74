package multilock_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// contend releases ten Mutexes at once, each taking the lock with a 2 s
// wait and a 10 s lease, trials times, and returns in how many trials
// nobody got the lock. The lock is free at the start of each trial (fresh
// makes a Mutex on it, for the trial), so every trial must have a winner;
// the winner keeps the lock and ends the others' wait (a trial without a
// winner takes the 2 s).
func contend(t *testing.T, trials int, fresh func(trial int) *locker.Mutex) int {
	t.Helper()
	empty := 0
	for trial := range trials {
		ctx, won := context.WithCancel(context.Background())
		var winners atomic.Int32
		var leases sync.Map
		start := make(chan struct{})
		var wg sync.WaitGroup
		for range 10 {
			m := fresh(trial)
			wg.Go(func() {
				<-start
				lease, err := m.TryLock(ctx, locker.WithWait(2*time.Second), locker.WithLease(10*time.Second))
				if err == nil {
					winners.Add(1)
					leases.Store(lease, true)
					won()
				}
			})
		}
		close(start)
		wg.Wait()
		won()
		assert.LessOrEqual(t, winners.Load(), int32(1), "trial %d: two holders at once", trial)
		if winners.Load() == 0 {
			empty++
		}
		leases.Range(func(l, _ any) bool {
			assert.NoError(t, l.(*locker.Lease).Unlock(context.Background()))
			return true
		})
	}
	return empty
}

// TestSimultaneousAttemptsHaveAWinner: ten contenders released at once on
// a free lock over several members: one of them gets it, in every trial,
// whatever order their member calls land in.
func TestSimultaneousAttemptsHaveAWinner(t *testing.T) {
	const trials = 20
	t.Run("Keys on one store", func(t *testing.T) {
		c := quorumtest.NewMem(1).Clients()[0]
		empty := contend(t, trials, func(trial int) *locker.Mutex {
			suffix := string(rune('a' + trial))
			mk, err := locker.Keys([]locker.Key{
				{Store: storetest.Of(t, c), Name: "a" + suffix}, {Store: storetest.Of(t, c), Name: "b" + suffix}, {Store: storetest.Of(t, c), Name: "c" + suffix},
			})
			require.NoError(t, err)
			return mk
		})
		assert.Zero(t, empty, "trials without a winner, of %d", trials)
	})
	t.Run("MultiLock of three stores", func(t *testing.T) {
		_, _, ml := memML(t, 3)
		empty := contend(t, trials, func(trial int) *locker.Mutex {
			m, err := newMutex(t, ml, "k"+string(rune('a'+trial)))
			require.NoError(t, err)
			return m
		})
		assert.Zero(t, empty, "trials without a winner, of %d", trials)
	})
	t.Run("Keys on one Redis server", func(t *testing.T) {
		c := quorumtest.StartRedis(t, 1).Clients(t)[0]
		empty := contend(t, trials, func(trial int) *locker.Mutex {
			suffix := string(rune('a' + trial))
			mk, err := locker.Keys([]locker.Key{
				{Store: storetest.Of(t, c), Name: "a" + suffix}, {Store: storetest.Of(t, c), Name: "b" + suffix}, {Store: storetest.Of(t, c), Name: "c" + suffix},
			})
			require.NoError(t, err)
			return mk
		})
		assert.Zero(t, empty, "trials without a winner, of %d", trials)
	})
	t.Run("MultiLock of three Redis servers", func(t *testing.T) {
		ml := newML(t, quorumtest.StartRedis(t, 3).Clients(t))
		empty := contend(t, trials, func(trial int) *locker.Mutex {
			m, err := newMutex(t, ml, "k"+string(rune('a'+trial)))
			require.NoError(t, err)
			return m
		})
		assert.Zero(t, empty, "trials without a winner, of %d", trials)
	})
	t.Run("Keys on three Redis servers", func(t *testing.T) {
		cs := quorumtest.StartRedis(t, 3).DirectClients(t)
		empty := contend(t, trials, func(trial int) *locker.Mutex {
			suffix := string(rune('a' + trial))
			mk, err := locker.Keys([]locker.Key{
				{Store: storetest.Of(t, cs[0]), Name: "a" + suffix}, {Store: storetest.Of(t, cs[1]), Name: "b" + suffix}, {Store: storetest.Of(t, cs[2]), Name: "c" + suffix},
			})
			require.NoError(t, err)
			return mk
		})
		assert.Zero(t, empty, "trials without a winner, of %d", trials)
	})
}

// TestCrossedPartialGrants: two contenders whose member calls cross, each
// reaching a different member first, as simultaneous attempts often do.
// Asked all at once, each would win one member and be refused the other,
// and both would fail on a free lock; one of them must win.
func TestCrossedPartialGrants(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(2)
	a := []*quorumtest.Hooked{quorumtest.NewHooked(stores.Store(0)), quorumtest.NewHooked(stores.Store(1))}
	b := []*quorumtest.Hooked{quorumtest.NewHooked(stores.Store(0)), quorumtest.NewHooked(stores.Store(1))}
	// A calls store 0 at once and B store 1; their calls to the other store
	// wait for each other (at most 500 ms, if one never comes), so that
	// both run while both first calls hold; and a release waits until both
	// those calls have run.
	var arrived sync.WaitGroup
	arrived.Add(2)
	crossed := make(chan struct{})
	go func() {
		arrived.Wait()
		close(crossed)
	}()
	wait := func() {
		select {
		case <-crossed:
			time.Sleep(20 * time.Millisecond)
		case <-time.After(500 * time.Millisecond):
		}
	}
	second := func(op string) error {
		if op == "trylock" {
			arrived.Done()
			wait()
		}
		return nil
	}
	firstHook := func(op string) error {
		if op == "unlock" {
			wait()
		}
		return nil
	}
	a[0].SetHook(firstHook)
	b[1].SetHook(firstHook)
	a[1].SetHook(second)
	b[0].SetHook(second)
	mlA := newML(t, quorumtest.Backends(a))
	mlB := newML(t, quorumtest.Backends(b))

	grants := make([]driver.Grant, 2)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, ml := range []driver.Backend{mlA, mlB} {
		wg.Go(func() {
			grants[i], errs[i] = ml.TryLock(ctx, driver.Request{Key: "k", Owner: string(rune('A' + i)), TTL: 10 * time.Second})
		})
	}
	wg.Wait()
	<-crossed
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	assert.True(t, grants[0].Acquired != grants[1].Acquired, "exactly one contender wins the free lock: %v, %v", grants[0].Acquired, grants[1].Acquired)
}

// TestExclusionUnderFaults: four MultiLocks of three members, whose member
// calls fail at random and whose holders re-enter, never let two owners'
// live leases overlap (see quorumtest.ExclusionUnderFaults).
func TestExclusionUnderFaults(t *testing.T) {
	quorumtest.ExclusionUnderFaults(t, quorumtest.NewMem(3), newMultiLock, 4, 3*time.Second)
}
