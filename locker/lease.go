package locker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/distlock/distlock/driver"
)

// Lease is one hold of a lock, returned by Mutex.Lock and Mutex.TryLock.
// Call Unlock when done, also after the lock was lost: until then the Mutex
// stays taken for the other goroutines of this process.
type Lease struct {
	m     *Mutex
	token uint64
	holds int
	ttl   time.Duration
	// renewal is the watchdog's entry; nil for a fixed lease.
	renewal *renewal

	mu  sync.Mutex
	err error // why the hold ended; nil while it lasts
	// done is Done's channel, made by the first Done: a program that
	// holds a million locks rarely asks every one of them.
	done chan struct{}
	// deadline is the local, conservative end of the lease, at which the
	// Store's timer ends it, renewed or not: Done closes by Deadline even
	// when a renewal hangs. Once the Store tracks the lease, it is written
	// holding both mu and the Store's mu, and read holding either.
	deadline time.Time
	// expiryIndex is the lease's place in the Store's expiries, -1 when
	// not there; guarded by the Store's mu.
	expiryIndex int
	unlocked    bool
	// watchers are the contexts of Context, cancelled when the hold ends.
	watchers    map[int]context.CancelCauseFunc
	nextWatcher int
}

func newLease(m *Mutex, g driver.Grant, start time.Time, ttl time.Duration, renew bool) *Lease {
	l := &Lease{m: m, token: g.Token, holds: g.Holds, ttl: ttl, expiryIndex: -1}
	// The timer and the first renewal may run before the assignments.
	l.mu.Lock()
	defer l.mu.Unlock()
	l.deadline = start.Add(validity(g, ttl))
	if !m.s.track(l) {
		// The Store closed after the attempt: the lease ends at once.
		l.err = fmt.Errorf("%w: %w", ErrLost, ErrClosed)
		return l
	}
	if renew {
		l.renewal = startRenewal(l, start)
	}
	return l
}

// renewalHold is how long after the start of its call a renewal of d is
// held by the Mutex's clock: d less the driver's drift (driver.Drifter),
// and never less than nothing.
func (s *Store) renewalHold(d time.Duration) time.Duration {
	if s.drifter == nil {
		return d
	}
	return max(d-s.drifter.Drift(d), 0)
}

// validity is how long after the start of its attempt a grant of ttl is
// known to hold.
func validity(g driver.Grant, ttl time.Duration) time.Duration {
	if g.Validity > 0 {
		return g.Validity
	}
	return ttl
}

// Token returns the hold's fencing token. Tokens rise strictly on every
// free-to-held transition of the lock and stay the same on re-entry: a
// resource that rejects tokens lower than one it has seen turns away holders
// whose lease has passed.
func (l *Lease) Token() uint64 { return l.token }

// Holds returns the owner's hold count when this hold was taken: 1, or more
// on re-entry.
func (l *Lease) Holds() int { return l.holds }

// Owner returns the owner identity the lock is held under.
func (l *Lease) Owner() string { return l.m.owner }

// Done returns a channel that is closed when the hold ends: when it is
// unlocked, or when the lock is lost (the lease ran out, a renewal found it
// gone, or no renewal reached the store before the lease ended). It closes
// no later than Deadline, on watchdog leases too: a local timer ends the
// lease then, whatever renewals are still under way.
func (l *Lease) Done() <-chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.done == nil {
		if l.err != nil {
			return closedChan
		}
		l.done = make(chan struct{})
	}
	return l.done
}

// closedChan is the Done of a lease that ended before anyone asked.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// Err returns nil while the hold lasts, then ErrReleased after Unlock or an
// error wrapping ErrLost when the lock was lost.
func (l *Lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Deadline returns when the lease ends by the Mutex's clock (see driver.Clock),
// counted conservatively from the start of the attempt that took or last
// renewed it, less what the driver allows for clock drift (a combinator's:
// see driver.Grant.Validity and driver.Drifter).
func (l *Lease) Deadline() time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.deadline
}

// Unlock releases this hold and stops its renewal before it returns. On
// re-entered locks it drops one hold. It returns an error wrapping
// ErrNotHeld when called twice, and wrapping ErrLost when the lease had
// ended before Unlock (Done closed, or Deadline passed), whatever the
// store still held: what is left there is deleted all the same. An error
// wrapping ErrUnavailable means the release was not sent, and any other
// error that the store's state is unknown: the release is then retried in
// the background until it succeeds or the lease would have run out, except
// after an unknown outcome for a shared owner (WithOwner), whose hold then
// ends with its lease, since a second Unlock could drop another Mutex's
// hold of the owner. On a store that names holds by token
// (driver.HoldUnlocker: every backend of this module for its mutexes,
// Redis and memlocker for their shared locks too), the release and its
// retries drop this Lease's hold only: one held up in the network that
// reaches the store after the owner locked again leaves the later hold.
// (etcd's shared locks need no token: their release compares the hold's
// key as it was.)
func (l *Lease) Unlock(ctx context.Context) error {
	l.mu.Lock()
	if l.unlocked {
		l.mu.Unlock()
		return opError("unlock", l.m.Name(), ErrNotHeld)
	}
	l.unlocked = true
	lost, deadline := l.err, l.deadline
	l.mu.Unlock()

	l.stopRenewal()
	err := l.m.storeUnlock(ctx, l.token)
	if lost == nil && !l.m.clock.Now().Before(deadline) {
		lost = fmt.Errorf("%w: the lease ran out", ErrLost)
	}
	l.end(ErrReleased)
	l.m.account(-1)
	undo := cleanup{token: l.token}
	switch {
	case errors.Is(err, ErrUnavailable):
		undo.holds, undo.unsent = 1, true // not sent: the hold is still there
	case IsUnknown(err):
		undo.holds = 1
	}
	l.m.handOff(l.m.retryable(undo), deadline)
	switch {
	case lost != nil && errors.Is(err, ErrNotHeld):
		err = fmt.Errorf("%w: %w", lost, err)
	case lost != nil && err != nil:
		err = fmt.Errorf("%w; deleting what is left: %w", lost, err)
	case lost != nil:
		err = lost
	}
	return opError("unlock", l.m.Name(), err)
}

// Extend resets the lease to d from now. On a watchdog lease the watchdog
// goes on renewing afterwards with its own lease. It returns an error
// wrapping ErrLost, and closes Done, when the store no longer holds the lock
// for this owner.
func (l *Lease) Extend(ctx context.Context, d time.Duration) error {
	if err := l.m.s.checkLease(d, "lease"); err != nil {
		return opError("extend", l.m.Name(), err)
	}
	l.mu.Lock()
	unlocked, lost := l.unlocked, l.err
	l.mu.Unlock()
	switch {
	case unlocked:
		return opError("extend", l.m.Name(), ErrNotHeld)
	case lost != nil:
		return opError("extend", l.m.Name(), lost)
	}
	start := l.m.clock.Now()
	err := l.m.storeExpire(ctx, d)
	if errors.Is(err, ErrNotHeld) {
		l.end(fmt.Errorf("%w: the store no longer holds it", ErrLost))
		return opError("extend", l.m.Name(), fmt.Errorf("%w: %w", ErrLost, err))
	}
	if err != nil {
		return opError("extend", l.m.Name(), err)
	}
	if err := l.renewed(start, d); err != nil {
		return opError("extend", l.m.Name(), err)
	}
	if l.renewal != nil {
		l.renewal.advance(start.Add(d / 3))
	}
	return nil
}

// renewed records a successful renewal of d started at start, and returns
// the error the lease ended with when it had ended first. A reply that
// comes after the deadline does not revive the lease: Done may have
// closed, and another owner may have held the lock meanwhile.
func (l *Lease) renewed(start time.Time, d time.Duration) error {
	l.mu.Lock()
	if err := l.err; err != nil {
		l.mu.Unlock()
		return err
	}
	if !l.m.s.moveExpiry(l, start.Add(l.m.s.renewalHold(d))) {
		l.mu.Unlock()
		l.end(l.ranOut())
		return l.Err()
	}
	l.mu.Unlock()
	return nil
}

// expire ends a lease whose deadline passed (see Store.expireDue).
func (l *Lease) expire() {
	l.mu.Lock() // newLease may still be setting the renewal
	reason := l.ranOut()
	l.mu.Unlock()
	l.end(reason)
}

// ranOut is why a lease ends at its deadline.
func (l *Lease) ranOut() error {
	if l.renewal != nil {
		return fmt.Errorf("%w: the lease ran out before a renewal reached the store", ErrLost)
	}
	return fmt.Errorf("%w: the lease ran out", ErrLost)
}

// end closes Done with reason, once, and takes a watchdog lease out of its
// scheduler.
func (l *Lease) end(reason error) {
	l.mu.Lock()
	if l.err != nil {
		l.mu.Unlock()
		return
	}
	l.err = reason
	l.m.tel.holdEnded(l, reason)
	if l.done != nil {
		close(l.done)
	}
	watchers := l.watchers
	l.watchers = nil
	l.mu.Unlock()
	for _, cancel := range watchers {
		cancel(reason)
	}
	l.m.s.untrack(l)
	if l.renewal != nil {
		l.renewal.drop()
	}
}

func (l *Lease) stopRenewal() {
	if l.renewal != nil {
		l.renewal.stop()
	}
}
