package quorum

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/distlock/distlock/driver"
)

// Background release pacing: a member that could not be released is tried
// again after releaseRetryMin, doubling up to releaseRetryMax.
const (
	releaseRetryMin = 50 * time.Millisecond
	releaseRetryMax = time.Second
)

// background runs the releases that a failed attempt could not finish
// within its caller's deadline, and those of members whose Unlock got no
// answer. Each is retried until the member answers, or until the lease it
// might hold would have run out anyway: it is never lost, and never
// outlives the lease. stop ends them early (the combinator is closing, so
// its members are about to be).
//
// A release in the background must not drop a hold that a later attempt of
// the same owner takes on that member: the attempt would count a member the
// release then frees, and a quorum of exactly the needed members would be
// one short without knowing it. So an attempt, and a renewal, first settle
// the releases of their owner on their members (settle): each is tried
// again at once, and the member is asked only if that try ends the
// release; otherwise it counts as a member that could not be asked.
// Waiting for the release to end instead would lock the owner out for as
// long as a member stays down.
type background struct {
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu      sync.Mutex
	pending map[pendingKey][]*release

	// held counts the owners' holds on the members (see ledger).
	held *ledger

	// longest is the longest lease members were asked for, in
	// nanoseconds: what bounds the release of a member whose Unlock
	// failed, since Unlock does not know the lease it ends.
	longest atomic.Int64
}

// release is one member's release in the background.
type release struct {
	kick chan struct{} // try again now
	done chan struct{} // closed when the release ends
	mu   sync.Mutex
	turn chan struct{} // closed when the next (or current) try ends
}

// leased records a lease of ttl asked of members.
func (bg *background) leased(ttl time.Duration) {
	for {
		cur := bg.longest.Load()
		if int64(ttl) <= cur || bg.longest.CompareAndSwap(cur, int64(ttl)) {
			return
		}
	}
}

// longestLease returns the longest lease members were asked for, or
// DefaultRestartGuard (the Mutex's default watchdog lease) before any.
func (bg *background) longestLease() time.Duration {
	if d := time.Duration(bg.longest.Load()); d > 0 {
		return d
	}
	return DefaultRestartGuard
}

// pendingKey names a release: the member (by its shared round-trip
// record, one per member), the key and the owner.
type pendingKey struct {
	member     *rtt
	key, owner string
}

func newBackground() *background {
	ctx, stop := context.WithCancel(context.Background())
	return &background{ctx: ctx, stop: stop, pending: make(map[pendingKey][]*release), held: newLedger()}
}

// settle tries the releases for owner on ts again at once, and waits for
// those tries, each at most timeout for its member, and not past ctx. It
// returns the members to leave out: those whose release still runs (nil
// when none does).
func (bg *background) settle(ctx context.Context, ts []target, owner string, timeout func(*rtt) time.Duration) []bool {
	bg.mu.Lock()
	var waits []func(context.Context) bool
	var who []int
	for i, t := range ts {
		for _, r := range bg.pending[pendingKey{t.rtt, t.key, owner}] {
			waits = append(waits, r.retryNow(timeout(t.rtt)))
			who = append(who, i)
		}
	}
	bg.mu.Unlock()
	var skip []bool
	for j, wait := range waits {
		if !wait(ctx) {
			if skip == nil {
				skip = make([]bool, len(ts))
			}
			skip[who[j]] = true
		}
	}
	return skip
}

// retryNow asks r to try again at once and returns a function that waits
// for that try, at most d and not past its ctx, and reports whether it
// ended the release.
func (r *release) retryNow(d time.Duration) func(ctx context.Context) bool {
	r.mu.Lock()
	turn := r.turn
	r.mu.Unlock()
	select {
	case r.kick <- struct{}{}:
	default:
	}
	return func(ctx context.Context) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-r.done:
			return true
		case <-turn:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
		select {
		case <-r.done:
			return true
		default:
			return false
		}
	}
}

// errReleasePending is the answer of a member that an attempt or a renewal
// leaves out while a release of the same owner runs there.
var errReleasePending = fmt.Errorf("%w: a release of this owner's earlier hold is still under way", driver.ErrUnavailable)

// track records a release for k and returns it, and the function that
// ends it.
func (bg *background) track(k pendingKey) (*release, func()) {
	r := &release{kick: make(chan struct{}, 1), done: make(chan struct{}), turn: make(chan struct{})}
	bg.mu.Lock()
	bg.pending[k] = append(bg.pending[k], r)
	bg.mu.Unlock()
	return r, func() {
		bg.mu.Lock()
		left := slices.DeleteFunc(bg.pending[k], func(x *release) bool { return x == r })
		if len(left) == 0 {
			delete(bg.pending, k)
		} else {
			bg.pending[k] = left
		}
		bg.mu.Unlock()
		close(r.done)
	}
}

// release unlocks t for owner in the background until it succeeds or
// until, when the lease it might hold has run out.
func (bg *background) release(t target, owner string, until time.Time, timeout func(*rtt) time.Duration) {
	if bg.ctx.Err() != nil {
		return // closing: the members are about to be closed
	}
	k := pendingKey{t.rtt, t.key, owner}
	r, end := bg.track(k)
	bg.wg.Go(func() {
		defer end()
		delay := releaseRetryMin
		for {
			ctx, cancel := context.WithDeadline(bg.ctx, until)
			d := timeout(t.rtt)
			cctx, ccancel := context.WithTimeout(ctx, d)
			start := time.Now()
			tk := bg.held.unlock(k)
			err := releaseHold(cctx, t, owner, tk.token, driver.Successor{})
			bg.held.end(k, tk, unlockCount(err), 0, 0, 0)
			t.rtt.observe(cctx, ctx, time.Since(start), d, err)
			ccancel()
			cancel()
			finished := err == nil || errors.Is(err, driver.ErrNotHeld) || errors.Is(err, driver.ErrClosed) ||
				errors.Is(err, driver.ErrInvalid) || !time.Now().Add(delay).Before(until)
			if finished {
				return // end closes done before anyone sees the turn end
			}
			r.mu.Lock()
			turn := r.turn
			r.turn = make(chan struct{})
			r.mu.Unlock()
			close(turn)
			timer := time.NewTimer(delay)
			select {
			case <-timer.C:
			case <-r.kick:
				timer.Stop()
			case <-bg.ctx.Done():
				timer.Stop()
				return
			}
			delay = min(2*delay, releaseRetryMax)
		}
	})
}

// close stops the background releases and waits for them to end.
func (bg *background) close() {
	bg.stop()
	bg.wg.Wait()
}
