package quorumtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// ExclusionUnderFaults contends for one lock, for runFor, from workers
// combinators that combine makes over clients of stores, whose member
// calls fail at random (replies lost after the call ran among them) while
// each holder often re-enters its hold through a second Mutex of its
// owner. It fails the test if two owners' live leases ever overlap, or if
// the lock did not keep changing hands. A combinator that sends an Unlock
// again after a lost reply, releases the unknown members of a nested
// attempt, or reports in Grant.Holds stale holds that only a minority of
// its members has (the Mutex gives them back with Unlocks, each of which
// drops a hold on every member), gets this wrong: it drops a hold that is
// still live.
func ExclusionUnderFaults(t *testing.T, stores *Mem, combine Combine, workers int, runFor time.Duration) {
	t.Helper()
	const (
		lease     = 300 * time.Millisecond
		hold      = time.Millisecond
		faultRate = 0.25 // of the calls before which faults are set
	)
	type worker struct {
		cs           []*memlocker.Client
		outer, inner *locker.Mutex // of one owner
	}
	ws := make([]worker, workers)
	for i := range ws {
		cs := stores.Clients()
		b, err := combine(Backends(cs))
		require.NoError(t, err)
		s := storetest.Of(t, b)
		owner := locker.NewOwner()
		outer, err := s.Mutex("contended", locker.WithOwner(owner))
		require.NoError(t, err)
		inner, err := s.Mutex("contended", locker.WithOwner(owner))
		require.NoError(t, err)
		ws[i] = worker{cs, outer, inner}
	}
	h := &liveHolders{inside: make(map[int]time.Time)}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w, wk := range ws {
		outer, inner := wk.outer, wk.inner
		maybeFault := func() {
			if rand.Float64() < faultRate {
				injectFaults(wk.cs)
			}
		}
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				maybeFault()
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				l, err := outer.Lock(ctx, locker.WithLease(lease))
				cancel()
				if err != nil {
					continue // no quorum for now, or the wait ran out
				}
				var nested *locker.Lease
				if rand.IntN(2) == 0 {
					maybeFault()
					nested, _ = inner.TryLock(context.Background(), locker.WithLease(lease))
				}
				h.enter(w, l.Deadline())
				time.Sleep(hold)
				h.exit(w)
				if nested != nil {
					maybeFault()
					_ = nested.Unlock(context.Background())
				}
				maybeFault()
				_ = l.Unlock(context.Background())
			}
		})
	}
	time.Sleep(runFor)
	close(stop)
	wg.Wait()
	t.Logf("%d entries", h.entries.Load())
	assert.Greater(t, h.entries.Load(), int32(workers), "the lock must keep changing hands")
	assert.Empty(t, h.overlaps, "owners' live leases overlapped")
}

// liveHolders records who is inside the critical section and until when
// their leases say they may be, and notes each entry made while another
// owner's live lease was inside.
type liveHolders struct {
	mu       sync.Mutex
	inside   map[int]time.Time // worker -> its lease's deadline
	overlaps []string
	entries  atomic.Int32
}

func (h *liveHolders) enter(worker int, deadline time.Time) {
	h.entries.Add(1)
	h.mu.Lock()
	defer h.mu.Unlock()
	now := time.Now()
	for w, d := range h.inside {
		if now.Before(d) && now.Before(deadline) {
			h.overlaps = append(h.overlaps, fmt.Sprintf("worker %d entered while worker %d held a lease live for %v more", worker, w, d.Sub(now)))
		}
	}
	h.inside[worker] = deadline
}

func (h *liveHolders) exit(worker int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.inside, worker)
}

// injectFaults makes the next call of some member clients, from one to
// all of them, fail: each with a reply lost after the call ran, a call
// that did not run with an error of unknown class, or one that did not
// run and says so (ErrUnavailable).
func injectFaults(cs []*memlocker.Client) {
	for _, i := range rand.Perm(len(cs))[:1+rand.IntN(len(cs))] {
		switch rand.IntN(3) {
		case 0:
			cs[i].TimeoutNext(1)
		case 1:
			cs[i].FailNext(1, nil)
		default:
			cs[i].FailNext(1, driver.ErrUnavailable)
		}
	}
}
