package driver

import (
	"context"
	"errors"
	"time"
)

// errCallTimeout is the cause of a call context that its timeout ended.
var errCallTimeout = errors.New("the backend's call timeout passed")

// timeoutCtx is a call's context bounded by the backend's call timeout (see
// Guard.Start). A timer ends it; from then on its Err is
// context.DeadlineExceeded, as a deadline's would be, and its Cause says
// that the call timeout passed. Its Deadline is the caller's alone: a gRPC
// client sends a context's deadline with every call, and the server then
// keeps a timer of its own for it. A bound that almost never ends a call
// is not worth that: the two etcd calls of a lock+unlock cycle took 2–3%
// less time with a timer than with a deadline (BENCHMARKS.md, Missed 4).
type timeoutCtx struct {
	context.Context // ended by the timer, or by the caller's context
}

// withCallTimeout returns ctx bounded by timeout (see timeoutCtx) and the
// function that ends it and stops its timer.
func withCallTimeout(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	inner, cancel := context.WithCancelCause(ctx)
	t := time.AfterFunc(timeout, func() { cancel(errCallTimeout) })
	return &timeoutCtx{inner}, func() {
		t.Stop()
		cancel(context.Canceled)
	}
}

// Err is the context's error: context.DeadlineExceeded once the call
// timeout ended it.
func (c *timeoutCtx) Err() error {
	err := c.Context.Err()
	if err != nil && context.Cause(c.Context) == errCallTimeout {
		return context.DeadlineExceeded
	}
	return err
}
