package quorum

import (
	"context"
	"errors"
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
type background struct {
	ctx  context.Context
	stop context.CancelFunc
	wg   sync.WaitGroup
}

func newBackground() *background {
	ctx, stop := context.WithCancel(context.Background())
	return &background{ctx: ctx, stop: stop}
}

// release unlocks t for owner in the background until it succeeds or
// until, when the lease it might hold has run out.
func (bg *background) release(t target, owner string, until time.Time, timeout func(*rtt) time.Duration) {
	if bg.ctx.Err() != nil {
		return // closing: the members are about to be closed
	}
	bg.wg.Go(func() {
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
