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
const (
	minPoll     = 5 * time.Millisecond
	maxPoll     = 500 * time.Millisecond
	maxNotified = 5 * time.Second
)

// releaseTimeout bounds the release of a lock whose attempt ended in an
// unknown state.
const releaseTimeout = 5 * time.Second

// attemptUntil tries to take the lock until it does, or, if wait is set,
// until ctx ends. It returns the grant and when the successful attempt
// started.
func (m *Mutex) attemptUntil(ctx context.Context, ttl time.Duration, wait bool) (Grant, time.Time, error) {
	var sub *subscription
	defer func() { sub.close() }()
	poll := minPoll
	for {
		var woken <-chan struct{}
		if sub != nil {
			woken = sub.next()
		}
		start := time.Now()
		g, err := m.lock.TryLock(ctx, m.owner, ttl)
		if err != nil {
			return Grant{}, start, m.abandon(ctx, err)
		}
		if g.Acquired && !late(g, start, ttl) {
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
		if sub == nil && Supports(m.lock, CapWatch) {
			// Subscribe, then try again at once: a release between the
			// first attempt and the subscription would otherwise be missed.
			sub = subscribe(ctx, m.lock)
			continue
		}
		var delay time.Duration
		if sub.active() {
			delay = bounded(g.Remaining, maxNotified)
		} else {
			delay = bounded(g.Remaining, poll)
			poll = min(poll*2, maxPoll)
		}
		if err := sleep(ctx, jitter(delay), woken); err != nil {
			return Grant{}, start, err
		}
	}
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
func late(g Grant, start time.Time, ttl time.Duration) bool {
	return time.Since(start) >= validity(g, ttl)
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

// sleep waits for d, a wake-up on woken, or the end of ctx.
func sleep(ctx context.Context, d time.Duration, woken <-chan struct{}) error {
	t := time.NewTimer(d)
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
