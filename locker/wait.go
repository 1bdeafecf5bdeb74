package locker

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/distlock/distlock/driver"
)

// Waiting bounds. Without release notification a waiter polls, starting at
// minPoll and doubling up to maxPoll, never sleeping past the holder's
// remaining lease. With notification it sleeps until a release, or at most
// the holder's remaining lease (maxNotified when unknown) as a safety net.
//
// On a store with a wait queue or list (driver.Dequeuer) a waiter stays in
// line for queuePatience after each attempt, and so attempts again at least
// every queueRefresh; a waiter that dies leaves the queue within
// queuePatience (a grant made to it lapses with the lease it asked for).
const (
	minPoll       = 5 * time.Millisecond
	maxPoll       = 500 * time.Millisecond
	maxNotified   = 5 * time.Second
	queuePatience = 3 * time.Second
	queueRefresh  = queuePatience / 3
	// rideOut is how long after the store last answered a waiting Mutex
	// goes on trying through failed attempts (a dropped connection, a
	// failover) before it gives up and returns the error.
	rideOut = 3 * time.Second
)

// attemptUntil tries to take the lock until it does or, if wait is set,
// until waitCtx ends. ctx bounds the calls to the store, waitCtx (ctx, or
// one that ends before it) the waiting between them: once the wait is
// over the Mutex waits no more, but an attempt in flight then runs to the
// store's answer, so that an attempt cut short never turns a refusal the
// store would have given into an unknown outcome. It returns the grant and when the
// successful attempt started; on failure, what is left to undo on the
// store.
//
// Where the lock has a wait queue, a waiting Mutex joins it: a release then
// grants the lock to the first waiter in line and tells only that one,
// which holds it from then on (a shared owner's waiter claims it with its
// next attempt). A waiter that gives up leaves the queue, and gives back a
// grant it did not take.
//
// A waiting Mutex whose attempt fails with ErrUnavailable, or with an
// unknown outcome if its owner is its own, tries again (polling) for up to
// rideOut after the store last answered it: an attempt that then succeeds
// shows in its hold count whether the failed ones took the lock, and the
// holds no live Lease accounts for are given back (see holds.go). The
// first attempt's failure ends the call at once.
func (m *Mutex) attemptUntil(ctx, waitCtx context.Context, ttl time.Duration, wait bool) (g driver.Grant, start time.Time, undo cleanup, err error) {
	var sub *subscription
	defer func() { sub.close() }()
	// A waiter on a store with a wait queue (a Queuer) or a wait list (a
	// Dequeuer: the views of shared locks) stays in line; one in a queue
	// watches its turn instead of the lock's releases.
	listed := wait && m.s.dequeuer != nil
	queued := wait && m.s.queuer != nil
	// A waiter whose owner is its own takes a grant from its turn, without
	// an attempt. Waiters of a shared owner share its place in the queue
	// and its turns, so each claims a grant with an attempt instead, which
	// tells whether a sibling took it first (see driver.Queuer).
	takesGrants := queued && !m.sharedOwner
	var above uint64      // the highest token of this wait's refusals and grants
	var refused time.Time // when the last refused attempt started
	// before is the highest token of the grants the subscription heard
	// before this wait: a shared subscription keeps what it heard for the
	// waits that follow, and a grant made before the wait began is not
	// its own, whatever the refusals report (the line member of a
	// combinator that restarted without persistence reports lower tokens
	// than it granted before).
	var before uint64
	if wait {
		sub = m.s.hub.rejoin(m.name, m.waiterID(queued))
		before = sub.heard()
	}
	if listed {
		defer func() {
			if err != nil {
				undo.queue = true
			}
		}()
	}
	poll := minPoll
	var answered time.Time // when the store last answered an attempt
	var failed error       // the last failed attempt since then
	stale := 0             // rounds of stale holds given back
	for {
		var woken <-chan struct{}
		if sub != nil {
			woken = sub.next()
		}
		if gr, ok := sub.granted(max(above, before)); ok && takesGrants && above > 0 && waitCtx.Err() == nil {
			// A release granted the lock to this waiter after the store
			// refused its last attempt: the grant's lease began after
			// that attempt started. (A store that reports no token on a
			// refusal leaves above at 0: its grants are claimed with an
			// attempt, as nothing then tells a late turn from this one.)
			g, start, above = gr, refused, gr.Token
		} else {
			start = m.clock.Now()
			patience := time.Duration(0)
			if listed {
				patience = queuePatience
			}
			g, err = m.storeTryLock(ctx, ttl, patience)
			if err != nil {
				if !m.canRideOut(waitCtx, wait, answered, err) {
					return driver.Grant{}, start, m.abandon(err), m.failure(ctx, err)
				}
				failed = err
				m.tel.ridingOut(ctx, err)
				if err := m.sleep(waitCtx, jitter(poll), woken); err != nil {
					return driver.Grant{}, start, m.abandon(failed), m.failure(waitCtx, failed)
				}
				poll = min(poll*2, maxPoll)
				continue
			}
		}
		answered = start
		failed = nil // an answer shows what the failed attempts left
		if g.Acquired && late(m.clock, g, start, ttl) {
			// The lease ran out before the reply came: another owner may
			// hold the lock already. Give the stale hold back, and wait
			// before trying again: a lease this short for this store
			// would otherwise make the loop spin.
			if err := m.giveBack(ctx, 1, g.Token); err != nil {
				return driver.Grant{}, start, cleanup{holds: 1, token: g.Token}, fmt.Errorf("%w: the lease ran out before the store answered; releasing: %w", ErrUnavailable, err)
			}
			if !wait {
				return driver.Grant{}, start, cleanup{}, fmt.Errorf("%w: the lease ran out before the store answered", ErrUnavailable)
			}
			if err := m.sleep(waitCtx, jitter(poll), nil); err != nil {
				return driver.Grant{}, start, cleanup{}, fmt.Errorf("%w: the lease ran out before the store answered (%w)", ErrUnavailable, context.Cause(waitCtx))
			}
			poll = min(poll*2, maxPoll)
			continue
		}
		if g.Acquired {
			accounted := m.account(0) // this attempt's hold and the live ones
			extra := g.Holds - accounted
			if extra <= 0 {
				return g, start, cleanup{}, nil
			}
			if accounted > 1 {
				// Other live holds of this process account for the hold,
				// and its token is theirs: only the extra holds are
				// stale.
				if err := m.giveBack(ctx, extra, g.Token); err != nil {
					return driver.Grant{}, start, cleanup{holds: g.Holds, token: g.Token}, err
				}
				g.Holds -= extra
				return g, start, cleanup{}, nil
			}
			// No live hold accounts for the holds found: they are stale,
			// and so is their token. Give them all back and take a fresh
			// hold.
			if stale++; stale > maxStaleRounds {
				return driver.Grant{}, start, cleanup{holds: g.Holds, token: g.Token}, fmt.Errorf("%w: the store keeps reporting %d holds this process does not account for", ErrUnavailable, g.Holds)
			}
			if err := m.giveBack(ctx, g.Holds, g.Token); err != nil {
				return driver.Grant{}, start, cleanup{holds: g.Holds, token: g.Token}, err
			}
			continue
		}
		if !wait {
			return driver.Grant{}, start, cleanup{}, ErrNotAcquired
		}
		above, refused = max(above, g.Token), start
		if err := m.waitGoesOn(waitCtx); err != nil {
			// The wait ran out while the attempt was in flight: nothing
			// is left to subscribe or sleep for.
			return driver.Grant{}, start, cleanup{}, err
		}
		if sub == nil && (queued || m.s.notifier != nil) {
			// Subscribe, then try again at once: a release (or the
			// grant) between the first attempt and the subscription
			// would otherwise be missed. A waiter in the queue watches
			// only its turn: every release while it waits is handed to a
			// waiter.
			sub = m.s.hub.subscribe(waitCtx, m.s, m.name, m.waiterID(queued))
			before = sub.heard() // what it heard may be this wait's: the attempt that follows claims it
			if err := m.waitGoesOn(waitCtx); err != nil {
				return driver.Grant{}, start, cleanup{}, err // subscribing took the wait
			}
			continue
		}
		var delay time.Duration
		if sub.active() {
			delay = bounded(g.Remaining, maxNotified)
		} else {
			delay = bounded(g.Remaining, poll)
			poll = min(poll*2, maxPoll)
		}
		if listed {
			delay = min(delay, queueRefresh)
		}
		if err := m.sleep(waitCtx, jitter(delay), woken); err != nil {
			return driver.Grant{}, start, cleanup{}, err
		}
	}
}

// waitGoesOn returns why the wait is over when ctx has ended or the Store
// closed, and nil otherwise.
func (m *Mutex) waitGoesOn(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return waitEnded(ctx)
	case <-m.s.done:
		return fmt.Errorf("%w: the wait ended", ErrClosed)
	default:
		return nil
	}
}

// canRideOut reports whether a waiting Mutex tries again after an attempt
// that failed with err. A store that could not decide (ErrUnavailable)
// left nothing held, so any waiting Mutex tries again; after an unknown
// outcome only a Mutex whose owner is its own does, as its next grant
// shows what the failed attempt took.
func (m *Mutex) canRideOut(ctx context.Context, wait bool, answered time.Time, err error) bool {
	if !wait || ctx.Err() != nil || answered.IsZero() || m.clock.Now().Sub(answered) >= rideOut {
		return false
	}
	return errors.Is(err, ErrUnavailable) || (IsUnknown(err) && !m.sharedOwner)
}

// waiterID is what a waiter of this Mutex subscribes to: its owner's turns
// when it waits in the lock's queue, else the lock's releases ("").
func (m *Mutex) waiterID(queued bool) string {
	if queued {
		return m.owner
	}
	return ""
}

// abandon returns what to undo after an attempt that failed with err: when
// the attempt's outcome is unknown it may have taken a hold, which is
// given back (by finish, which leaves a shared owner's holds to their
// lease).
func (m *Mutex) abandon(err error) cleanup {
	if !IsUnknown(err) {
		return cleanup{}
	}
	return cleanup{holds: 1}
}

// failure explains an attempt that failed with err: when ctx ended too,
// the error says so.
func (m *Mutex) failure(ctx context.Context, err error) error {
	if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
		return fmt.Errorf("%w (%w)", err, context.Cause(ctx))
	}
	return err
}

// late reports whether a grant's lease had run out by the time its reply
// arrived, counting from the start of the attempt.
func late(c driver.Clock, g driver.Grant, start time.Time, ttl time.Duration) bool {
	return c.Now().Sub(start) >= validity(g, ttl)
}

// bounded returns the holder's remaining lease capped at limit, or limit
// when the remaining lease is unknown.
func bounded(remaining, limit time.Duration) time.Duration {
	if remaining <= 0 || remaining > limit {
		return limit
	}
	return remaining
}

// jitter spreads d over [d/2, d) plus a millisecond, so that waiters woken
// together do not retry in lockstep.
func jitter(d time.Duration) time.Duration {
	half := d / 2
	if half <= 0 {
		return d + time.Millisecond
	}
	return half + rand.N(half) + time.Millisecond
}

// sleep waits for d on the Mutex's clock, a wake-up on woken, the end of
// ctx, or the Store's Close.
func (m *Mutex) sleep(ctx context.Context, d time.Duration, woken <-chan struct{}) error {
	t := newTimer(m.clock, d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-woken:
		return nil
	case <-ctx.Done():
		return waitEnded(ctx)
	case <-m.s.done:
		return fmt.Errorf("%w: the wait ended", ErrClosed)
	}
}
