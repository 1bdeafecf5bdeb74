package redlock_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/locker"
)

// overlapCounter counts holders inside a critical section at once.
type overlapCounter struct {
	inside   atomic.Int32
	overlaps atomic.Int32
	entries  atomic.Int32
}

func (o *overlapCounter) hold(d time.Duration) {
	o.entries.Add(1)
	if o.inside.Add(1) > 1 {
		o.overlaps.Add(1)
	}
	time.Sleep(d)
	o.inside.Add(-1)
}

// contend runs workers that take the lock through their own RedLocks
// (newLock makes one per worker) until stop closes, holding it for hold
// each time. Attempts that fail for lack of a quorum are retried.
func contend(t *testing.T, workers int, newLock func() driver.Backend, lease, hold time.Duration, stop <-chan struct{}) *overlapCounter {
	var o overlapCounter
	var wg sync.WaitGroup
	for range workers {
		m, err := newMutex(t, newLock(), "contended")
		require.NoError(t, err)
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				l, err := m.Lock(ctx, locker.WithLease(lease))
				cancel()
				if err != nil {
					continue // no quorum for now, or the wait ran out
				}
				o.hold(hold)
				_ = l.Unlock(context.Background())
			}
		})
	}
	t.Cleanup(wg.Wait)
	return &o
}

// TestExclusionWithRestarts contends for the lock while stores restart
// without persistence, one at a time, again and again: the restart guard
// keeps holders from overlapping. (Without the guard they overlap within a
// few runs of this loop.)
func TestExclusionWithRestarts(t *testing.T) {
	stores := quorumtest.NewMem(5)
	const lease, guard = 150 * time.Millisecond, 200 * time.Millisecond
	stop := make(chan struct{})
	o := contend(t, 4, func() driver.Backend {
		return newRL(t, quorumtest.Backends(stores.Clients()), combine.WithRestartGuard(guard))
	}, lease, 10*time.Millisecond, stop)

	deadline := time.Now().Add(2 * time.Second)
	restarts := 0
	for time.Now().Before(deadline) {
		time.Sleep(time.Duration(40+rand.IntN(80)) * time.Millisecond)
		stores.Store(rand.IntN(5)).Restart()
		restarts++
	}
	close(stop)
	t.Logf("%d restarts, %d acquisitions", restarts, o.entries.Load())
	assert.Positive(t, o.entries.Load(), "some holder must have got the lock")
	assert.Zero(t, o.overlaps.Load(), "holders overlapped")
}

// TestExclusionUnderFaults: four RedLocks of five members, whose member
// calls fail at random and whose holders re-enter, never let two owners'
// live leases overlap (see quorumtest.ExclusionUnderFaults).
func TestExclusionUnderFaults(t *testing.T) {
	quorumtest.ExclusionUnderFaults(t, quorumtest.NewMem(5), newRedLock, 4, 3*time.Second)
}
