package locker

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"
)

// Waiting bounds. Without release notification a waiter polls, starting at
// minPoll and doubling up to maxPoll, never sleeping past the holder's
// remaining lease. With notification it sleeps until a release, or at most
// the holder's remaining lease (maxNotified when unknown) as a safety net.
//
// On a lock with a wait queue (CapQueue) a waiter stays in line for
// queuePatience after each attempt, and so attempts again at least every
// queueRefresh; a waiter that dies leaves the queue, or gives back a
// reservation made for it, within queuePatience.
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

// releaseTimeout bounds the release of a lock whose attempt ended in an
// unknown state.
const releaseTimeout = 5 * time.Second

// attemptUntil tries to take the lock until it does, or, if wait is set,
// until ctx ends. It returns the grant and when the successful attempt
// started.
//
// Where the lock has a wait queue, a waiting Mutex joins it: a release then
// reserves the lock for the first waiter in line and wakes only that one,
// which takes it with its next attempt. A waiter that gives up leaves the
// queue, and gives back a reservation it did not take.
//
// A waiting Mutex whose attempt fails with an unknown outcome tries again
// (polling) for up to rideOut after the store last answered it, if its
// owner is its own: an attempt that then succeeds shows in its hold count
// whether the failed ones took the lock, and trim gives those holds back.
// The first attempt's failure, or a shared owner's, ends the call at once.
func (m *Mutex) attemptUntil(ctx context.Context, ttl time.Duration, wait bool) (g Grant, start time.Time, err error) {
	var sub *subscription
	defer func() { sub.close() }()
	queue, queued := m.lock.(Queueable)
	queued = queued && wait && Supports(m.lock, CapQueue)
	if wait {
		sub = rejoin(m.lock, m.waiterID(queued))
	}
	if queued {
		defer func() {
			if err != nil {
				m.dequeue(ctx, queue)
			}
		}()
	}
	poll := minPoll
	var answered time.Time // when the store last answered an attempt
	var failed error       // the last failed attempt since then
	for {
		var woken <-chan struct{}
		if sub != nil {
			woken = sub.next()
		}
		start = m.clock.Now()
		if queued {
			g, err = queue.TryLockQueued(ctx, m.owner, ttl, queuePatience)
		} else {
			g, err = m.lock.TryLock(ctx, m.owner, ttl)
		}
		if err != nil {
			if !m.canRideOut(ctx, wait, answered, err) {
				return Grant{}, start, m.abandon(ctx, err)
			}
			failed = err
			if err := sleep(ctx, m.clock, jitter(poll), woken); err != nil {
				return Grant{}, start, m.abandon(ctx, failed)
			}
			poll = min(poll*2, maxPoll)
			continue
		}
		answered = start
		if g.Acquired && failed != nil {
			if g, err = m.trim(ctx, g); err != nil {
				return Grant{}, start, m.abandon(ctx, err)
			}
		}
		failed = nil // a refusal shows that no failed attempt took the lock
		if g.Acquired && !late(m.clock, g, start, ttl) {
			return g, start, nil
		}
		if g.Acquired {
			// The lease ran out before the reply came: another owner may
			// hold the lock already. Give the stale hold back.
			if err := m.release(ctx); err != nil {
				return Grant{}, start, fmt.Errorf("%w: the lease ran out before the store answered; releasing: %w", ErrNotAcquired, err)
			}
			if !wait {
				return Grant{}, start, fmt.Errorf("%w: the lease ran out before the store answered", ErrNotAcquired)
			}
			continue
		}
		if !wait {
			return Grant{}, start, ErrNotAcquired
		}
		if sub == nil && (queued || Supports(m.lock, CapWatch)) {
			// Subscribe, then try again at once: a release (or the
			// reservation) between the first attempt and the subscription
			// would otherwise be missed. A waiter in the queue watches
			// only its turn: every release while it waits is handed to a
			// waiter.
			sub = subscribe(ctx, m.lock, m.waiterID(queued))
			continue
		}
		var delay time.Duration
		if sub.active() {
			delay = bounded(g.Remaining, maxNotified)
		} else {
			delay = bounded(g.Remaining, poll)
			poll = min(poll*2, maxPoll)
		}
		if queued {
			delay = min(delay, queueRefresh)
		}
		if err := sleep(ctx, m.clock, jitter(delay), woken); err != nil {
			return Grant{}, start, err
		}
	}
}

// canRideOut reports whether a waiting Mutex tries again after an attempt
// that failed with err.
func (m *Mutex) canRideOut(ctx context.Context, wait bool, answered time.Time, err error) bool {
	return wait && !m.sharedOwner && ctx.Err() == nil && IsUnknown(err) &&
		!answered.IsZero() && m.clock.Now().Sub(answered) < rideOut
}

// trim gives back the holds that failed attempts took, which the hold
// count of a successful attempt shows: a Mutex with an owner of its own
// holds the lock once. A failure leaves the extra holds to expire with
// the lease.
func (m *Mutex) trim(ctx context.Context, g Grant) (Grant, error) {
	for ; g.Holds > 1; g.Holds-- {
		if err := m.lock.Unlock(ctx, m.owner); err != nil {
			return g, fmt.Errorf("giving back a hold that a failed attempt took: %w", err)
		}
	}
	return g, nil
}

// waiterID is what a waiter of this Mutex subscribes to: its owner's turns
// when it waits in the lock's queue, else the lock's releases ("").
func (m *Mutex) waiterID(queued bool) string {
	if queued {
		return m.owner
	}
	return ""
}

// dequeue takes the Mutex's owner out of the lock's wait queue after a wait
// that did not end in a hold, also after ctx has ended. A failure is left
// alone: the queue entry, or a reservation, lapses with the patience.
func (m *Mutex) dequeue(ctx context.Context, q Queueable) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	_ = q.Dequeue(rctx, m.owner)
}

// abandon handles an attempt that failed with err. When the attempt's outcome
// is unknown it may have taken the lock, so the lock is released. A Mutex
// whose owner is shared with others (WithOwner) cannot tell its own hold from
// theirs and leaves the lock to expire with its lease instead.
func (m *Mutex) abandon(ctx context.Context, err error) error {
	unknown := IsUnknown(err)
	if ctx.Err() != nil {
		err = fmt.Errorf("%w (%w)", waitEnded(ctx), err)
	}
	if !unknown || m.sharedOwner {
		return err
	}
	if uerr := m.release(ctx); uerr != nil {
		return fmt.Errorf("%w; releasing after it: %w", err, uerr)
	}
	return err
}

// release drops one hold of the Mutex's owner, also after ctx has ended. A
// lock that is not held is no error.
func (m *Mutex) release(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), releaseTimeout)
	defer cancel()
	if err := m.lock.Unlock(rctx, m.owner); err != nil && !errors.Is(err, ErrNotHeld) {
		return err
	}
	return nil
}

// late reports whether a grant's lease had run out by the time its reply
// arrived, counting from the start of the attempt.
func late(c Clock, g Grant, start time.Time, ttl time.Duration) bool {
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

// sleep waits for d on c, a wake-up on woken, or the end of ctx.
func sleep(ctx context.Context, c Clock, d time.Duration, woken <-chan struct{}) error {
	t := newTimer(c, d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-woken:
		return nil
	case <-ctx.Done():
		return waitEnded(ctx)
	}
}
