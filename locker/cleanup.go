package locker

import (
	"context"
	"errors"
	"time"
)

// releaseTimeout bounds each store call of a background cleanup.
const releaseTimeout = 5 * time.Second

// cleanupGrace is how long past its context's end a call goes on undoing
// what it left on the store before it hands the rest to the background: a
// store that answers at all answers well within it, so a failed call
// normally returns with nothing left behind.
const cleanupGrace = 100 * time.Millisecond

// cleanup is what a call that failed, or an Unlock whose outcome is
// unknown, leaves to undo on the store.
type cleanup struct {
	// holds is how many holds of the owner the call may have left behind.
	holds int
	// token is the fencing token of the hold they belong to, when known
	// (a Lease's), so that its release drops no later hold; else 0.
	token uint64
	// unsent reports that the holds are there for sure, because the Unlock
	// that would have dropped one was never sent (ErrUnavailable): trying
	// it again cannot drop another Mutex's hold of a shared owner.
	unsent bool
	// queue reports whether the owner is to leave the lock's wait queue.
	queue bool
}

func (c cleanup) empty() bool { return c.holds == 0 && !c.queue }

// finish ends a call of the Mutex that did not leave a live Lease. What is
// left to undo on the store is undone within ctx, or cleanupGrace past its
// end; what remains after that (the store did not answer in time) goes to
// a background cleanup, which takes over the local token. A call never waits
// past its context for its cleanup, so it returns by its deadline whatever
// the store does; the Mutex's next call waits for the cleanup instead (see
// enter), so that a release meant for an old hold never drops a new one.
// The cleanup tries until the holds it gives back would have expired
// anyway, at until by the Mutex's clock.
func (m *Mutex) finish(ctx context.Context, c cleanup, until time.Time) {
	c = m.retryable(c)
	if !c.empty() {
		gctx, cancel := graced(ctx)
		c = m.undo(gctx, c)
		cancel()
	}
	m.handOff(c, until)
}

// retryable is c less what must not be tried again. For a shared owner
// that is its holds: another Mutex of the owner may hold the lock, or take
// it any moment, and an Unlock made again after one whose outcome is
// unknown could drop that Mutex's hold instead. Such holds expire with
// their lease, and a later acquisition gives back those no live hold
// accounts for.
func (m *Mutex) retryable(c cleanup) cleanup {
	if m.sharedOwner && !c.unsent {
		c.holds = 0
	}
	return c
}

// handOff gives the local token back when c is empty, and otherwise hands
// it, with c, to a background cleanup (see finish). Lease.Unlock calls it
// directly: its own Unlock was the first try, and trying again at once
// would only repeat the round trip that just failed.
func (m *Mutex) handOff(c cleanup, until time.Time) {
	if c.empty() {
		<-m.sem
		return
	}
	// The cleanup's retries run in real time, so that one never waits on a
	// clock that a test has stopped; until is on the Mutex's clock.
	left := until.Sub(m.clock.Now())
	if c.holds == 0 {
		// A queue entry lapses with the waiter's patience.
		left = queuePatience
	}
	until = time.Now().Add(left)
	done := make(chan struct{})
	m.mu.Lock()
	m.cleaning = done
	m.mu.Unlock()
	m.tel.backgroundCleanup(c)
	m.s.cleanups.Add(1)
	go func() {
		defer m.s.cleanups.Done()
		m.clean(c, until)
		<-m.sem
		m.mu.Lock()
		m.cleaning = nil
		m.mu.Unlock()
		close(done)
	}()
}

// clean undoes c on the store, retrying calls with an unknown outcome with
// backoff until until, or until the Store is closed.
func (m *Mutex) clean(c cleanup, until time.Time) {
	delay := minPoll
	for {
		ctx, cancel := context.WithTimeout(context.Background(), releaseTimeout)
		c = m.undo(ctx, c)
		cancel()
		if c.empty() || !time.Now().Before(until) {
			// Done, or what is left has run out with its lease.
			return
		}
		select {
		case <-time.After(jitter(delay)):
		case <-m.s.done:
			return
		}
		delay = min(delay*2, maxPoll)
	}
}

// undo makes one pass at c within ctx and returns what is left: the calls
// that were not sent (ErrUnavailable) or whose outcome is unknown. A hold
// the store says the owner does not have (ErrNotHeld), or cannot give back
// (ErrClosed), is not left; nor, for a shared owner, one whose Unlock may
// have run (see retryable).
func (m *Mutex) undo(ctx context.Context, c cleanup) cleanup {
	if c.queue {
		if err := m.storeDequeue(ctx); !IsUnknown(err) && !errors.Is(err, ErrUnavailable) {
			c.queue = false
		}
	}
	if c.holds > 0 && c.token == 0 {
		c = m.nameHolds(ctx, c)
	}
	for c.holds > 0 {
		err := m.storeUnlock(ctx, c.token)
		switch {
		case err == nil:
			c.holds--
		case errors.Is(err, ErrUnavailable):
			return c // not sent: the hold is still there
		case IsUnknown(err):
			c.unsent = false
			return m.retryable(c)
		default:
			c.holds = 0
		}
	}
	return c
}

// nameHolds learns the token of the holds c gives back, which the call
// that may have taken them never heard, so that their releases name them
// (see storeUnlock): an owner-only Unlock that reaches the store late
// could drop the Mutex's next hold. The store is asked who holds the lock
// when it can both tell and release by token; if the owner holds nothing
// (in the view's mode, on a view of shared locks), there is nothing to
// give back. Otherwise c is returned as it is.
func (m *Mutex) nameHolds(ctx context.Context, c cleanup) cleanup {
	if m.s.holder == nil || m.s.inspector == nil {
		return c
	}
	st, err := m.s.inspector.Inspect(ctx, m.name)
	if err != nil {
		return c
	}
	token, held := st.HoldOf(m.owner, m.s.mode)
	if !held {
		c.holds = 0
	}
	c.token = token
	return c
}

// graced returns ctx without its cancellation, ending cleanupGrace after
// ctx's deadline, or cleanupGrace from now if ctx has ended; a live ctx
// without a deadline is returned as it is.
func graced(ctx context.Context) (context.Context, context.CancelFunc) {
	end, ok := ctx.Deadline()
	switch {
	case ctx.Err() != nil:
		end = time.Now()
	case !ok:
		return ctx, func() {}
	}
	return context.WithDeadline(context.WithoutCancel(ctx), end.Add(cleanupGrace))
}

// cleaningDone returns a channel closed when the Mutex's background
// cleanup ends, or nil when none is running.
func (m *Mutex) cleaningDone() <-chan struct{} {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cleaning
}
