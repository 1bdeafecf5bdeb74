package locker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/distlock/distlock/driver"
)

// Mutex is a distributed lock as a program holds it. It is safe for
// concurrent use: goroutines sharing a Mutex exclude each other as with
// sync.Mutex, without extra calls to the store. Each successful Lock or
// TryLock returns a *Lease for that hold.
//
// A context passed to a Mutex method bounds the wait and the calls to the
// store, never the life of the lock: a lock outlives the context it was taken
// with until Lease.Unlock or the end of its lease.
type Mutex struct {
	s             *Store
	name          string
	owner         string
	sharedOwner   bool
	label         string
	labelSet      bool
	watchdogLease time.Duration
	// clock times the Mutex's leases, renewals and waits: its store's.
	clock driver.Clock
	// sem holds one token while a Lease of this Mutex is live, or while a
	// background cleanup of its last call runs.
	sem chan struct{}
	tel *mutexTelemetry // nil: no telemetry (WithTelemetry)

	mu       sync.Mutex
	cleaning chan struct{} // closed when the running cleanup ends; nil if none
}

// newMutex returns a Mutex for the lock named name on s, whose name has
// been checked. Its errors are the callers' to wrap.
func newMutex(s *Store, name string, opts []MutexOption) (*Mutex, error) {
	m := &Mutex{
		s:             s,
		name:          name,
		owner:         NewOwner(),
		watchdogLease: DefaultWatchdogLease,
		clock:         s.clock,
		sem:           make(chan struct{}, 1),
	}
	for _, opt := range opts {
		if err := opt(m); err != nil {
			return nil, err
		}
	}
	if err := s.checkLease(m.watchdogLease, "watchdog lease"); err != nil {
		return nil, err
	}
	switch {
	case !m.sharedOwner:
		if !m.labelSet {
			m.label = defaultLabel()
		}
		m.owner = labelled(m.owner, m.label)
	case m.labelSet:
		m.owner = labelled(m.owner, m.label)
	}
	if len(m.owner) > maxOwnerLen {
		return nil, invalid(fmt.Sprintf("owner and label of %d bytes, longer than %d", len(m.owner), maxOwnerLen))
	}
	if s.tel != nil {
		m.tel = newMutexTelemetry(s.tel, name)
	}
	return m, nil
}

// Name returns the lock's name.
func (m *Mutex) Name() string { return m.name }

// Owner returns the Mutex's owner identity.
func (m *Mutex) Owner() string { return m.owner }

// Lock waits until it holds the lock, the context ends, or the wait given by
// WithWait runs out. It returns an error wrapping ErrNotAcquired when the
// wait ended first (and the context's error when that was the reason).
func (m *Mutex) Lock(ctx context.Context, opts ...LockOption) (*Lease, error) {
	return m.observe(ctx, "lock", true, opts)
}

// TryLock makes one attempt to take the lock, or waits up to the wait given
// by WithWait. It returns an error wrapping ErrNotAcquired when another owner
// holds the lock.
func (m *Mutex) TryLock(ctx context.Context, opts ...LockOption) (*Lease, error) {
	return m.observe(ctx, "trylock", false, opts)
}

func (m *Mutex) acquire(ctx context.Context, op string, wait bool, opts []LockOption) (*Lease, error) {
	var s lockSettings
	for _, opt := range opts {
		if err := opt(&s); err != nil {
			return nil, opError(op, m.Name(), err)
		}
	}
	if err := m.s.usable(); err != nil {
		return nil, opError(op, m.name, err)
	}
	ttl, renew := s.lease, false
	if ttl == 0 {
		ttl, renew = m.watchdogLease, true
	}
	if err := m.s.checkLease(ttl, "lease"); err != nil {
		return nil, opError(op, m.Name(), err)
	}
	if err := ctx.Err(); err != nil {
		return nil, opError(op, m.Name(), fmt.Errorf("%w: nothing was sent: %w", ErrUnavailable, err))
	}
	if s.waitSet {
		wait = s.wait > 0
	}
	if wait {
		m.tel.addWaiters(ctx, 1)
		defer m.tel.addWaiters(ctx, -1)
	}
	// The wait budget bounds the wait; the caller's context also bounds the
	// attempts and the cleanup after a failed wait.
	waitCtx := ctx
	if wait && s.waitSet {
		// A zero wait is one attempt, with no wait to bound.
		var cancel context.CancelFunc
		waitCtx, cancel = context.WithTimeoutCause(ctx, s.wait, errWaitOver)
		defer cancel()
	}
	if err := m.enter(waitCtx, wait); err != nil {
		return nil, opError(op, m.Name(), err)
	}
	m.account(+1)
	g, start, undo, err := m.attemptUntil(ctx, waitCtx, ttl, wait)
	if err != nil {
		m.account(-1)
		m.finish(ctx, undo, start.Add(ttl))
		return nil, opError(op, m.Name(), err)
	}
	return newLease(m, g, start, ttl, renew), nil
}

// errWaitOver is the cause of a context ended by WithWait.
var errWaitOver = errors.New("wait ran out")

// enter takes the Mutex's local token, waiting if wait is set. A call
// that does not wait still waits, within ctx, for the background cleanup
// of the Mutex's previous call (see finish): the token is not another
// goroutine's then, only the store's answer is late.
func (m *Mutex) enter(ctx context.Context, wait bool) error {
	for {
		select {
		case m.sem <- struct{}{}:
			return nil
		default:
		}
		done := m.cleaningDone()
		if done == nil && !wait {
			return fmt.Errorf("%w: held by another goroutine of this Mutex", ErrNotAcquired)
		}
		if done == nil {
			select {
			case m.sem <- struct{}{}:
				return nil
			case <-m.s.done:
				return fmt.Errorf("%w: the wait ended", ErrClosed)
			case <-ctx.Done():
				return waitEnded(ctx)
			}
		}
		select {
		case <-done:
		case <-m.s.done:
			return fmt.Errorf("%w: the wait ended", ErrClosed)
		case <-ctx.Done():
			return fmt.Errorf("%w: the release after this Mutex's previous call is still in progress (%w)", ErrUnavailable, context.Cause(ctx))
		}
	}
}

// waitEnded explains why the wait for a lock ended.
func waitEnded(ctx context.Context) error {
	if cause := context.Cause(ctx); errors.Is(cause, errWaitOver) {
		return fmt.Errorf("%w: %w", ErrNotAcquired, cause)
	}
	return fmt.Errorf("%w: %w", ErrNotAcquired, ctx.Err())
}

// Inspect returns the lock's state. It fails with an error wrapping
// errors.ErrUnsupported when the store cannot be inspected.
func (m *Mutex) Inspect(ctx context.Context) (State, error) {
	if m.s.inspector == nil {
		return State{}, opError("inspect", m.name, unsupported("inspection"))
	}
	if err := m.s.usable(); err != nil {
		return State{}, opError("inspect", m.name, err)
	}
	ds, err := m.s.inspector.Inspect(ctx, m.name)
	return stateOf(ds), opError("inspect", m.name, err)
}

// IsLocked reports whether any owner holds the lock.
func (m *Mutex) IsLocked(ctx context.Context) (bool, error) {
	st, err := m.Inspect(ctx)
	return st.Held, err
}

// HoldCount returns how many holds this Mutex's owner has on the lock: 0
// when another owner holds it or nobody does.
func (m *Mutex) HoldCount(ctx context.Context) (int, error) {
	st, err := m.Inspect(ctx)
	if err != nil || st.Owner != m.owner {
		return 0, err
	}
	return st.Holds, nil
}

// ForceUnlock deletes the lock whoever holds it, and reports whether it was
// held. The holder's Lease learns of the loss at its next renewal. It fails
// with an error wrapping errors.ErrUnsupported when the store cannot
// force-unlock.
func (m *Mutex) ForceUnlock(ctx context.Context) (bool, error) {
	if m.s.forcer == nil {
		return false, opError("forceunlock", m.name, unsupported("force unlock"))
	}
	if err := m.s.usable(); err != nil {
		return false, opError("forceunlock", m.name, err)
	}
	ok, err := m.s.forcer.ForceUnlock(ctx, m.name)
	return ok, opError("forceunlock", m.name, err)
}
