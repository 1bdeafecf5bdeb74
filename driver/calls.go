package driver

import (
	"context"
	"errors"
	"sync"
	"time"
)

// errCallTimeout is the cause of a call context that its timeout ended.
var errCallTimeout = errors.New("the backend's call timeout passed")

// callCtx is the context of a call that Guard.Start let in: the caller's,
// ended too when Close begins and, when the call has a timeout, when that
// passes. Once the timeout ended it, its Err is context.DeadlineExceeded,
// as a deadline's would be, and its Cause says that the call timeout
// passed. Its Deadline is the caller's alone: a gRPC client sends a
// context's deadline with every call, and the server then keeps a timer of
// its own for it. A bound that almost never ends a call is not worth that:
// the two etcd calls of a lock+unlock cycle took 2–3% less time with a
// timer than with a deadline (BENCHMARKS.md, Missed 4).
type callCtx struct {
	context.Context // ended by cancel, or by the caller's context
	cancel          context.CancelCauseFunc

	// due is when the call timeout ends the call; zero when it has none,
	// or once it has. prev and next link the calls in flight. All three
	// are guarded by the callSet's mu.
	due        time.Time
	prev, next *callCtx
}

// Err is the context's error: context.DeadlineExceeded once the call
// timeout ended it.
func (c *callCtx) Err() error {
	err := c.Context.Err()
	if err != nil && context.Cause(c.Context) == errCallTimeout {
		return context.DeadlineExceeded
	}
	return err
}

// callSet is a Guard's calls in flight, which Close ends, and the one timer
// that ends those whose timeout passes. A timer and a context.AfterFunc
// (the binding to Close) per call cost about 670 ns and 8 allocations a
// call against 290 ns and 3 (BenchmarkGuardStart). As with the Store's
// lease expiries, the timer is armed for the earliest timeout and left
// armed when that call ends first, as calls almost always do: when it
// fires, it ends the calls that are due and is armed again for the next,
// so a stream of calls with one timeout sets the timer about once per
// timeout, not once per call.
type callSet struct {
	mu    sync.Mutex
	head  *callCtx    // the calls in flight, newest first
	timer *time.Timer // made at the first timeout; runs sweep
	armed time.Time   // when timer fires; zero while it is not armed
}

// start returns ctx in a callCtx in the set, ended after timeout when
// positive (unless the caller's deadline comes first).
func (s *callSet) start(ctx context.Context, timeout time.Duration) *callCtx {
	inner, cancel := context.WithCancelCause(ctx)
	c := &callCtx{Context: inner, cancel: cancel}
	if timeout > 0 {
		c.due = time.Now().Add(timeout)
		if d, ok := ctx.Deadline(); ok && !d.After(c.due) {
			c.due = time.Time{} // the caller's deadline ends the call first
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.head != nil {
		s.head.prev, c.next = c, s.head
	}
	s.head = c
	if !c.due.IsZero() && (s.armed.IsZero() || c.due.Before(s.armed)) {
		s.arm(c.due)
	}
	return c
}

// arm makes the timer fire at t. s.mu is held.
func (s *callSet) arm(t time.Time) {
	s.armed = t
	d := time.Until(t)
	if s.timer == nil {
		s.timer = time.AfterFunc(d, s.sweep)
		return
	}
	s.timer.Reset(d)
}

// end ends c: it leaves the set, and its context ends.
func (s *callSet) end(c *callCtx) {
	s.mu.Lock()
	if c.prev == nil {
		s.head = c.next
	} else {
		c.prev.next = c.next
	}
	if c.next != nil {
		c.next.prev = c.prev
	}
	c.prev, c.next = nil, nil
	s.mu.Unlock()
	c.cancel(context.Canceled)
}

// sweep is the timer's: it ends the calls whose timeout has passed and arms
// the timer for the next one, if any.
func (s *callSet) sweep() {
	now := time.Now()
	var due []*callCtx
	s.mu.Lock()
	var next time.Time
	for c := s.head; c != nil; c = c.next {
		switch {
		case c.due.IsZero():
		case !c.due.After(now):
			due = append(due, c)
			c.due = time.Time{}
		case next.IsZero() || c.due.Before(next):
			next = c.due
		}
	}
	s.armed = time.Time{}
	if !next.IsZero() {
		s.arm(next)
	}
	s.mu.Unlock()
	for _, c := range due {
		c.cancel(errCallTimeout)
	}
}

// cancelAll ends the context of every call in flight, for Close.
func (s *callSet) cancelAll() {
	s.mu.Lock()
	var all []*callCtx
	for c := s.head; c != nil; c = c.next {
		all = append(all, c)
	}
	s.mu.Unlock()
	for _, c := range all {
		c.cancel(context.Canceled)
	}
}

// stop stops the timer, once no call is in flight.
func (s *callSet) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
	}
	s.armed = time.Time{}
}
