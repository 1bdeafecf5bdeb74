package quorum

import (
	"context"
	"errors"
	"time"
)

// abandonGrace is how long past the end of its context a member call is
// waited for. A call still running then is abandoned, so that a member
// that does not honour its context cannot hold the caller.
const abandonGrace = 20 * time.Millisecond

// shareSlack sets which member calls of a round share the round's context:
// those whose own bound is within 1/shareSlack of the round's longest. A
// call with a shorter bound gets a context of its own under the round's.
const shareSlack = 8

// errAbandoned is the error of a member call abandoned by fanout: it may
// still run, so the member's state is unknown.
var errAbandoned = errors.New("no answer by the deadline: call abandoned")

// fanout runs call once per target, all at once, and returns every call's
// result and error: an attempt costs one round trip to the slowest member,
// not the sum. Each call's context ends after timeout(its member's round
// trips), or at the caller's deadline (parent's) if
// that comes first; the calls share one context for the round where their
// bounds are close (see launch and callContext). How long each call took
// feeds its member's round-trip estimate.
//
// fanout returns when every call has returned, or abandonGrace after the
// round's context ended, whichever comes first. A call abandoned then
// gets errAbandoned; when it returns after all, late (if not nil) is given
// what it returned, for instance to stop a watch that nobody will stop.
func fanout[R any](parent context.Context, ts []target, timeout func(*rtt) time.Duration,
	call func(ctx context.Context, i int) (R, error), late func(i int, r R, err error)) ([]R, []error) {
	done := make(chan result[R], len(ts)) // buffered: no call waits for the round
	round, end := launch(parent, ts, timeout, call, done)
	defer end()
	rs := make([]R, len(ts))
	errs := make([]error, len(ts))
	var small [8]bool // which calls returned, without an allocation for most rounds
	var got []bool
	if len(ts) <= len(small) {
		got = small[:len(ts)]
	} else {
		got = make([]bool, len(ts))
	}
	var grace <-chan time.Time // runs once the round's context has ended
	over := round.Done()
	for pending := len(ts); pending > 0; {
		select {
		case res := <-done:
			rs[res.i], errs[res.i], got[res.i] = res.r, res.err, true
			pending--
		case <-over:
			over = nil
			t := time.NewTimer(abandonGrace)
			defer t.Stop()
			grace = t.C
		case <-grace:
			for i := range ts {
				if !got[i] {
					errs[i] = errAbandoned
				}
			}
			if late != nil {
				go func() {
					for range pending {
						res := <-done
						late(res.i, res.r, res.err)
					}
				}()
			}
			return rs, errs
		}
	}
	return rs, errs
}

// result is one member call's outcome, as it reaches the round.
type result[R any] struct {
	i   int
	r   R
	err error
}

// launch starts call once per target, each on a lane of its own (see
// lanes) that sends its result on done and records the call's round trip.
// It returns the round's context, which ends with the longest call's, and
// the function that ends the round's contexts once no call needs them.
//
// Each member has a bound of its own (its round trips, see rtt.go), and a
// slow member's call is cut at it. The calls whose bounds are within
// 1/shareSlack of the longest share the round's context, which ends at
// the longest: bounds derived from similar round trips differ by far less
// than that, so a round usually needs one context, one timer and one
// watcher of parent instead of one of each per call, and a call runs at
// most 1/shareSlack longer than its own bound. A call with a shorter
// bound gets a timeout of its own under the round's context.
func launch[R any](parent context.Context, ts []target, timeout func(*rtt) time.Duration,
	call func(ctx context.Context, i int) (R, error), done chan<- result[R]) (context.Context, context.CancelFunc) {
	var small [8]time.Duration // the bounds, without an allocation for most rounds
	bounds := small[:0]
	var longest time.Duration
	for i := range ts {
		d := callBound(parent, timeout(ts[i].rtt))
		bounds = append(bounds, d)
		longest = max(longest, d)
	}
	round, end := callContext(parent, longest)
	for i := range ts {
		ctx, d, cancel := round, longest, context.CancelFunc(nil)
		if b := bounds[i]; b < longest-longest/shareSlack {
			ctx, cancel = context.WithTimeout(round, b)
			d = b
		}
		runOnLane(func() {
			if cancel != nil {
				defer cancel()
			}
			start := time.Now()
			r, err := call(ctx, i)
			ts[i].rtt.observe(ctx, parent, time.Since(start), d, err)
			done <- result[R]{i, r, err}
		})
	}
	return round, end
}

// callBound is how long a member call with a timeout of timeout may run
// under parent: until parent's deadline if that comes first, but at least
// minCallTimeout, as Redisson gives each member at least a millisecond of
// the wait.
func callBound(parent context.Context, timeout time.Duration) time.Duration {
	if deadline, ok := parent.Deadline(); ok {
		timeout = min(timeout, time.Until(deadline))
	}
	return max(timeout, minCallTimeout)
}

// callContext returns the context of one round of member calls, shared by
// the calls of the round (one context, one timer and one watcher of parent
// per round, not per call): it ends after callBound(parent, timeout). It
// is detached from parent's deadline, so that the calls get their
// minCallTimeout even when the deadline has passed, but an explicit
// cancellation of parent still cancels it at once.
func callContext(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), callBound(parent, timeout))
	if parent.Done() == nil {
		return ctx, cancel // parent is never cancelled: nothing to watch
	}
	cancelled := func() bool {
		err := parent.Err()
		return err != nil && !errors.Is(err, context.DeadlineExceeded)
	}
	if cancelled() {
		cancel()
		return ctx, cancel
	}
	stop := context.AfterFunc(parent, func() {
		if cancelled() {
			cancel()
		}
	})
	return ctx, func() {
		stop()
		cancel()
	}
}
