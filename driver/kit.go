package driver

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"
)

// CheckKey fails with ErrInvalid when key is empty. Backends call the Check
// functions first in every method, so that every store rejects bad input
// before it sends anything, in the same words.
func CheckKey(key string) error {
	if key == "" {
		return Invalid("empty key")
	}
	return nil
}

// CheckOwner is CheckKey, and fails with ErrInvalid when owner is empty.
func CheckOwner(key, owner string) error {
	if err := CheckKey(key); err != nil {
		return err
	}
	if owner == "" {
		return Invalid("empty owner")
	}
	return nil
}

// CheckLease is CheckOwner, and fails with ErrInvalid when ttl is not
// positive.
func CheckLease(key, owner string, ttl time.Duration) error {
	if err := CheckOwner(key, owner); err != nil {
		return err
	}
	if ttl <= 0 {
		return Invalid(fmt.Sprintf("non-positive lease %v", ttl))
	}
	return nil
}

// CheckToken is CheckOwner, and fails with ErrInvalid when token is 0, as
// HoldUnlocker.UnlockHold and Fencer.Fence must.
func CheckToken(key, owner string, token uint64) error {
	if err := CheckOwner(key, owner); err != nil {
		return err
	}
	if token == 0 {
		return Invalid("zero fencing token")
	}
	return nil
}

// CheckRequest is CheckLease on r, and fails with ErrInvalid when
// r.Patience is negative.
func CheckRequest(r Request) error {
	if err := CheckLease(r.Key, r.Owner, r.TTL); err != nil {
		return err
	}
	if r.Patience < 0 {
		return Invalid(fmt.Sprintf("negative patience %v", r.Patience))
	}
	return nil
}

// Guard is a Backend's close guard: it turns calls after Close away with
// ErrClosed, ends what calls in flight wait on, and lets Close wait for them
// before it releases what they use. The zero Guard is open.
type Guard struct {
	mu       sync.RWMutex
	closed   bool
	inflight sync.WaitGroup
	once     sync.Once
	err      error

	calls callSet // the calls of Start in flight

	haltOnce sync.Once
	halted   chan struct{} // closed when Close begins; made at first use
}

// Enter starts a call. It returns ErrClosed after Close; otherwise the call
// must end with Exit.
func (g *Guard) Enter() error {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return ErrClosed
	}
	g.inflight.Add(1)
	return nil
}

// Exit ends a call that Enter started.
func (g *Guard) Exit() { g.inflight.Done() }

// Closed reports whether Close has been called.
func (g *Guard) Closed() bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.closed
}

// Start is Enter for a call that may wait on the store: it returns ctx
// ended too when Close begins, so that a call that waits on the store (a
// connection, a reply) past that moment ends instead of holding Close up,
// and, when timeout is positive, once timeout has passed. The call must
// end with the returned Call's End. It costs a context per call. The
// timeout leaves the context's Deadline the caller's (see callCtx): a
// client must end a call when its context is done, not only by the
// context's deadline. A call that cannot block, or whose blocking Close
// ends another way (by closing the connections, see Close), need only
// Enter, and saves the cost.
func (g *Guard) Start(ctx context.Context, timeout time.Duration) (context.Context, Call, error) {
	g.mu.RLock()
	defer g.mu.RUnlock()
	if g.closed {
		return ctx, Call{}, ErrClosed
	}
	g.inflight.Add(1)
	// Close sets closed under the write lock, and then ends the calls in
	// the set: this call is in it by then.
	c := g.calls.start(ctx, timeout)
	return c, Call{g: g, c: c}, nil
}

// Call is a call that Guard.Start let in. It is a value, so that a call
// allocates nothing for it.
type Call struct {
	g *Guard
	c *callCtx
}

// End ends the call: its context, and its place in the calls Close waits
// for.
func (c Call) End() {
	c.g.calls.end(c.c)
	c.g.Exit()
}

// Halted returns a channel closed when Close begins, for what a Backend
// runs in the background.
func (g *Guard) Halted() <-chan struct{} { return g.haltChan() }

func (g *Guard) haltChan() chan struct{} {
	g.haltOnce.Do(func() { g.halted = make(chan struct{}) })
	return g.halted
}

// Close turns new calls away, ends the contexts of Start, runs cut (when not
// nil) to end what else calls in flight wait on (such as connections a
// client owns), waits for the calls in flight, and then runs release
// (when not nil), once. Every call returns cut's error joined with
// release's.
func (g *Guard) Close(cut, release func() error) error {
	g.once.Do(func() {
		g.mu.Lock()
		g.closed = true
		g.mu.Unlock()
		close(g.haltChan())
		g.calls.cancelAll()
		var cutErr, releaseErr error
		if cut != nil {
			cutErr = cut()
		}
		g.inflight.Wait()
		g.calls.stop()
		if release != nil {
			releaseErr = release()
		}
		g.err = errors.Join(cutErr, releaseErr)
	})
	return g.err
}

// maxConcurrentRenewals bounds the Expire calls ExpireAll has in flight to
// a Backend that cannot renew in batches.
const maxConcurrentRenewals = 16

// ExpireAll renews every lease of renewals on b and returns one result per
// renewal, in order: in one ExpireBatch call when b is a BatchExpirer, and
// otherwise as Expire calls, a few at a time.
func ExpireAll(ctx context.Context, b Backend, renewals []Renewal) []error {
	if be, ok := b.(BatchExpirer); ok {
		errs := be.ExpireBatch(ctx, renewals)
		if len(errs) == len(renewals) {
			return errs
		}
		err := fmt.Errorf("ExpireBatch returned %d results for %d renewals", len(errs), len(renewals))
		errs = make([]error, len(renewals))
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	errs := make([]error, len(renewals))
	if len(renewals) == 1 {
		errs[0] = b.Expire(ctx, renewals[0].Key, renewals[0].Owner, renewals[0].TTL)
		return errs
	}
	limit := make(chan struct{}, maxConcurrentRenewals)
	var wg sync.WaitGroup
	for i, r := range renewals {
		limit <- struct{}{}
		wg.Go(func() {
			defer func() { <-limit }()
			errs[i] = b.Expire(ctx, r.Key, r.Owner, r.TTL)
		})
	}
	wg.Wait()
	return errs
}
