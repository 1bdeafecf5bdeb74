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

// errAbandoned is the error of a member call abandoned by fanout: it may
// still run, so the member's state is unknown.
var errAbandoned = errors.New("no answer by the deadline: call abandoned")

// fanout runs call once per target, all at once, and returns every call's
// result and error: an attempt costs one round trip to the slowest member,
// not the sum. Each call's context ends after timeout(its member's round
// trips), or at the end of the caller's wait budget (parent's deadline) if
// that comes first; see callContext. How long each call took feeds its
// member's round-trip estimate.
//
// fanout returns when every call has returned, or abandonGrace after the
// last call's context ended, whichever comes first. A call abandoned then
// gets errAbandoned; when it returns after all, late (if not nil) is given
// what it returned, for instance to stop a watch that nobody will stop.
func fanout[R any](parent context.Context, ts []target, timeout func(*rtt) time.Duration,
	call func(ctx context.Context, i int) (R, error), late func(i int, r R, err error)) ([]R, []error) {
	type result struct {
		i   int
		r   R
		err error
	}
	done := make(chan result, len(ts))
	var last time.Time // when the last call's context ends
	for i := range ts {
		d := timeout(ts[i].rtt)
		ctx, cancel := callContext(parent, d)
		if deadline, _ := ctx.Deadline(); deadline.After(last) {
			last = deadline
		}
		go func() {
			defer cancel()
			start := time.Now()
			r, err := call(ctx, i)
			ts[i].rtt.observe(ctx, parent, time.Since(start), d, err)
			done <- result{i, r, err}
		}()
	}
	rs := make([]R, len(ts))
	errs := make([]error, len(ts))
	got := make([]bool, len(ts))
	timer := time.NewTimer(time.Until(last) + abandonGrace)
	defer timer.Stop()
	pending := len(ts)
	for pending > 0 {
		select {
		case res := <-done:
			rs[res.i], errs[res.i], got[res.i] = res.r, res.err, true
			pending--
		case <-timer.C:
			for i := range ts {
				if !got[i] {
					errs[i] = errAbandoned
				}
			}
			go func() {
				for range pending {
					res := <-done
					if late != nil {
						late(res.i, res.r, res.err)
					}
				}
			}()
			return rs, errs
		}
	}
	return rs, errs
}

// callContext returns the context of one round of member calls: it ends
// after timeout or at parent's deadline, whichever comes first, but gives
// the calls at least minCallTimeout even when the deadline has passed, as
// Redisson gives each member at least a millisecond of the wait. It is
// detached from parent's deadline for that reason, but an explicit
// cancellation of parent still cancels it at once.
func callContext(parent context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	if deadline, ok := parent.Deadline(); ok {
		timeout = min(timeout, time.Until(deadline))
	}
	timeout = max(timeout, minCallTimeout)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(parent), timeout)
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
