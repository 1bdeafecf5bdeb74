package locker

import (
	"context"

	"github.com/distlock/distlock/driver"
)

// Semaphore is a distributed semaphore of a fixed number of permits, each
// leased to the owner that acquired it: an owner that dies gives its
// permits back when its lease ends. Each acquisition is a Lease with
// everything a Mutex's has: a fixed lease or the watchdog, Done when it is
// lost, and a fencing token that rises with every acquisition.
//
// The number of permits is kept with the semaphore while any is held or
// waited for: a Semaphore made with another number fails its acquisitions
// with ErrInvalid meanwhile, and changes nothing. Waiting is first come,
// first served, so a large request is not starved by small ones.
//
// Without WithOwner each acquisition has an owner of its own. With
// WithOwner every acquisition of the Semaphore has that owner, and they
// nest: one owner's permits are taken once, and its holds count up. A
// Semaphore is safe for concurrent use.
//
// A semaphore is not the Mutex or RWMutex of the same name: the store keeps
// them apart. A store whose driver has no semaphores (driver.Sharer) fails
// Store.Semaphore with an error wrapping errors.ErrUnsupported.
type Semaphore struct {
	s       *Store
	name    string
	permits int
	opts    []MutexOption
}

// Semaphore returns the semaphore named name, of permits permits. It fails
// as Mutex does, with ErrInvalid when permits is not positive or more than
// driver.MaxPermits, and with an error wrapping errors.ErrUnsupported when
// the store has no semaphores.
func (s *Store) Semaphore(name string, permits int, opts ...MutexOption) (*Semaphore, error) {
	if err := s.checkNew(name); err != nil {
		return nil, opError("new", name, err)
	}
	// The view whose holds take every permit is the one every store and
	// combinator that has semaphores allows (see redlock.New).
	all := driver.Share{Mode: driver.Permits, Limit: permits, Permits: permits}
	if err := driver.CheckShare(all); err != nil {
		return nil, opError("new", name, err)
	}
	v, err := s.viewOf(all)
	if err != nil {
		return nil, opError("new", name, err)
	}
	if _, err := newMutex(v, name, opts); err != nil {
		return nil, opError("new", name, err)
	}
	return &Semaphore{s: s, name: name, permits: permits, opts: opts}, nil
}

// Name returns the semaphore's name.
func (sm *Semaphore) Name() string { return sm.name }

// Permits returns the semaphore's number of permits.
func (sm *Semaphore) Permits() int { return sm.permits }

// Acquire waits for n permits, as Mutex.Lock waits for a lock. It fails
// with ErrInvalid when n is not positive or more than Permits.
func (sm *Semaphore) Acquire(ctx context.Context, n int, opts ...LockOption) (*Lease, error) {
	return sm.acquire(ctx, "acquire", true, n, opts)
}

// TryAcquire makes one attempt at n permits, or waits up to the wait given
// by WithWait, as Mutex.TryLock does.
func (sm *Semaphore) TryAcquire(ctx context.Context, n int, opts ...LockOption) (*Lease, error) {
	return sm.acquire(ctx, "tryacquire", false, n, opts)
}

func (sm *Semaphore) acquire(ctx context.Context, op string, wait bool, n int, opts []LockOption) (*Lease, error) {
	m, err := sm.mutex(n)
	if err != nil {
		return nil, opError(op, sm.name, err)
	}
	return m.observe(ctx, op, wait, opts)
}

// mutex returns a Mutex whose holds take n permits.
func (sm *Semaphore) mutex(n int) (*Mutex, error) {
	sh := driver.Share{Mode: driver.Permits, Limit: sm.permits, Permits: n}
	if err := driver.CheckShare(sh); err != nil {
		return nil, err
	}
	v, err := sm.s.viewOf(sh)
	if err != nil {
		return nil, err
	}
	return newMutex(v, sm.name, sm.opts)
}

// Inspect returns the semaphore's state: its holders, the permits each
// takes, and its number of permits while in use. It fails with an error
// wrapping errors.ErrUnsupported when the store cannot be inspected.
func (sm *Semaphore) Inspect(ctx context.Context) (State, error) {
	m, err := sm.mutex(sm.permits)
	if err != nil {
		return State{}, opError("inspect", sm.name, err)
	}
	return m.Inspect(ctx)
}

// ForceUnlock deletes every hold of the semaphore, and reports whether
// there was one. It fails with an error wrapping errors.ErrUnsupported when
// the store cannot force-unlock.
func (sm *Semaphore) ForceUnlock(ctx context.Context) (bool, error) {
	m, err := sm.mutex(sm.permits)
	if err != nil {
		return false, opError("forceunlock", sm.name, err)
	}
	return m.ForceUnlock(ctx)
}
