package quorum

import (
	"context"
	"errors"
	"sync"
	"time"
)

// fanout runs call once per member index, all at once, and returns when
// every call has returned: an attempt costs one round trip to the slowest
// member, not the sum. The calls share a context that ends after timeout,
// or at the end of the caller's wait budget (parent's deadline) if that
// comes first; see callContext.
func fanout(parent context.Context, timeout time.Duration, n int, call func(ctx context.Context, i int)) {
	ctx, cancel := callContext(parent, timeout)
	defer cancel()
	if n == 1 {
		call(ctx, 0)
		return
	}
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { call(ctx, i) })
	}
	wg.Wait()
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
