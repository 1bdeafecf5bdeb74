package quorum

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/distlock/distlock/driver"
)

// rtt is the round trip to one member as the engine has observed it: a
// smoothed mean of the calls the member answered (weight 1/8 for each new
// one, as TCP's estimator), raised to half the timeout a call ran into, so
// that a member that got slower is given more time on the next call
// instead of timing out for ever.
type rtt struct {
	mu       sync.Mutex
	smoothed time.Duration // 0: nothing observed yet
}

// estimate returns the smoothed round trip, and false before any
// observation.
func (r *rtt) estimate() (time.Duration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.smoothed, r.smoothed > 0
}

// observe records a call that took took and ended with err, under a call
// context ctx whose own timeout was timeout. Calls the store answered are
// samples; a call that ran out of its own time raises the estimate to that
// time; other failures (a cancelled caller, a refused connection) say
// nothing about the round trip.
func (r *rtt) observe(ctx context.Context, parent context.Context, took, timeout time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case answered(err):
		took = max(took, time.Microsecond)
		if r.smoothed == 0 {
			r.smoothed = took
		} else {
			r.smoothed += (took - r.smoothed) / 8
		}
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && parent.Err() == nil:
		// RTTFactor × timeout/2 is about twice the timeout: the next call
		// waits twice as long, as TCP backs its retransmissions off.
		r.smoothed = max(r.smoothed, timeout/2)
	}
}

// answered reports whether a member call's error is the store's answer,
// which took a full round trip.
func answered(err error) bool {
	return err == nil || errors.Is(err, driver.ErrNotHeld) || errors.Is(err, driver.ErrNotAcquired)
}
