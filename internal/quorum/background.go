package quorum

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/distlock/distlock/locker"
)

// Background release pacing: a member that could not be released is tried
// again after releaseRetryMin, doubling up to releaseRetryMax.
const (
	releaseRetryMin = 50 * time.Millisecond
	releaseRetryMax = time.Second
)

// background runs the releases that a failed attempt could not finish
// within its caller's deadline. Each is retried until the member answers,
// or until the lease it might hold would have run out anyway: it is never
// lost, and never outlives the lease. stop ends them early (the
// combinator is closing, so its members are about to be).
//
// A release in the background must not drop a hold that a later attempt of
// the same owner takes on that member: the attempt would count a member the
// release then frees, and a quorum of exactly the needed members would be
// one short without knowing it. So an attempt first waits, within its
// context, for the releases still running for its owner on its members
// (settled).
type background struct {
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup

	mu      sync.Mutex
	pending map[pendingKey][]chan struct{} // closed when each release ends
}

// pendingKey names a release: the member (by its shared round-trip
// record, one per member), the key and the owner.
type pendingKey struct {
	member     *rtt
	key, owner string
}

func newBackground() *background {
	ctx, stop := context.WithCancel(context.Background())
	return &background{ctx: ctx, stop: stop, pending: make(map[pendingKey][]chan struct{})}
}

// settled waits until no release for owner on any of ts runs, or ctx ends;
// then it returns an error wrapping locker.ErrUnavailable.
func (bg *background) settled(ctx context.Context, ts []target, owner string) error {
	bg.mu.Lock()
	var wait []chan struct{}
	for _, t := range ts {
		wait = append(wait, bg.pending[pendingKey{t.rtt, t.key, owner}]...)
	}
	bg.mu.Unlock()
	for _, done := range wait {
		select {
		case <-done:
		case <-ctx.Done():
			return fmt.Errorf("%w: the release after this owner's previous attempt is still in progress (%w)", locker.ErrUnavailable, context.Cause(ctx))
		}
	}
	return nil
}

// track records a release for k and returns the function that ends it.
func (bg *background) track(k pendingKey) func() {
	done := make(chan struct{})
	bg.mu.Lock()
	bg.pending[k] = append(bg.pending[k], done)
	bg.mu.Unlock()
	return func() {
		bg.mu.Lock()
		left := slices.DeleteFunc(bg.pending[k], func(c chan struct{}) bool { return c == done })
		if len(left) == 0 {
			delete(bg.pending, k)
		} else {
			bg.pending[k] = left
		}
		bg.mu.Unlock()
		close(done)
	}
}

// release unlocks t for owner in the background until it succeeds or
// until, when the lease it might hold has run out.
func (bg *background) release(t target, owner string, until time.Time, timeout func(*rtt) time.Duration) {
	if bg.ctx.Err() != nil {
		return // closing: the members are about to be closed
	}
	end := bg.track(pendingKey{t.rtt, t.key, owner})
	bg.wg.Go(func() {
		defer end()
		delay := releaseRetryMin
		for {
			ctx, cancel := context.WithDeadline(bg.ctx, until)
			d := timeout(t.rtt)
			cctx, ccancel := context.WithTimeout(ctx, d)
			start := time.Now()
			err := t.b.Unlock(cctx, t.key, owner)
			t.rtt.observe(cctx, ctx, time.Since(start), d, err)
			ccancel()
			cancel()
			if err == nil || errors.Is(err, locker.ErrNotHeld) || errors.Is(err, locker.ErrClosed) ||
				errors.Is(err, locker.ErrInvalid) || !time.Now().Add(delay).Before(until) {
				return
			}
			timer := time.NewTimer(delay)
			select {
			case <-timer.C:
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
