package locker

import (
	"context"
	"time"

	"github.com/distlock/distlock/driver"
)

// Lockable is one lock: a key on a Backend (see Key), or a combination of
// members (packages multilock and redlock). A Mutex locks any Lockable the
// same way. Methods follow the Backend contract: each is one attempt that
// never waits or retries.
//
// The deadline of the context passed to TryLock, if any, is what remains of
// the caller's wait budget; combinators may divide it among their members.
type Lockable interface {
	// Name identifies the lock in errors and logs.
	Name() string
	// TryLock is Backend.TryLock on this lock.
	TryLock(ctx context.Context, owner string, ttl time.Duration) (Grant, error)
	// Unlock is Backend.Unlock on this lock.
	Unlock(ctx context.Context, owner string) error
	// Expire is Backend.Expire on this lock.
	Expire(ctx context.Context, owner string, ttl time.Duration) error
}

// Watchable is an optional Lockable capability: release notification, as in
// Notifier.
type Watchable interface {
	Watch(ctx context.Context, fn func()) (stop func(), err error)
}

// Queueable is an optional Lockable capability: a first-come wait queue,
// as in Queuer.
type Queueable interface {
	TryLockQueued(ctx context.Context, owner string, ttl, patience time.Duration) (Grant, error)
	Dequeue(ctx context.Context, owner string) error
	WatchTurn(ctx context.Context, owner string, fn func()) (stop func(), err error)
}

// Inspectable is an optional Lockable capability: reading the lock's state.
type Inspectable interface {
	Inspect(ctx context.Context) (driver.State, error)
}

// ForceUnlockable is an optional Lockable capability: deleting the lock
// whoever holds it. It reports whether the lock was held.
type ForceUnlockable interface {
	ForceUnlock(ctx context.Context) (bool, error)
}

// KeyLock is the Lockable for one key on one Backend. It passes the
// Backend's optional capabilities through: its Watch, Inspect and
// ForceUnlock return ErrUnsupported-wrapping errors when the Backend lacks
// them, so check with Supports before relying on one.
type KeyLock struct {
	backend Backend
	key     string
}

// Key returns the lock named key on b. It fails with ErrInvalid when b is nil,
// or key is empty or longer than MaxNameLen.
func Key(b Backend, key string) (*KeyLock, error) {
	if b == nil {
		return nil, invalid("nil backend")
	}
	if key == "" {
		return nil, invalid("empty lock name")
	}
	if err := checkName(key); err != nil {
		return nil, err
	}
	return &KeyLock{backend: b, key: key}, nil
}

// Backend returns the backend the key lives on.
func (k *KeyLock) Backend() Backend { return k.backend }

// Name returns the key.
func (k *KeyLock) Name() string { return k.key }

// TryLock implements Lockable.
func (k *KeyLock) TryLock(ctx context.Context, owner string, ttl time.Duration) (Grant, error) {
	return k.backend.TryLock(ctx, driver.Request{Key: k.key, Owner: owner, TTL: ttl})
}

// Unlock implements Lockable.
func (k *KeyLock) Unlock(ctx context.Context, owner string) error {
	return k.backend.Unlock(ctx, k.key, owner)
}

// Expire implements Lockable.
func (k *KeyLock) Expire(ctx context.Context, owner string, ttl time.Duration) error {
	return k.backend.Expire(ctx, k.key, owner, ttl)
}

// Watch implements Watchable when the backend is a Notifier.
func (k *KeyLock) Watch(ctx context.Context, fn func()) (func(), error) {
	n, ok := k.backend.(Notifier)
	if !ok {
		return nil, unsupported("release notification")
	}
	return n.Watch(ctx, k.key, fn)
}

// TryLockQueued implements Queueable when the backend is a Queuer.
func (k *KeyLock) TryLockQueued(ctx context.Context, owner string, ttl, patience time.Duration) (Grant, error) {
	if _, ok := k.backend.(Queuer); !ok {
		return Grant{}, unsupported("wait queue")
	}
	return k.backend.TryLock(ctx, driver.Request{Key: k.key, Owner: owner, TTL: ttl, Patience: patience})
}

// Dequeue implements Queueable when the backend is a Queuer.
func (k *KeyLock) Dequeue(ctx context.Context, owner string) error {
	q, ok := k.backend.(Queuer)
	if !ok {
		return unsupported("wait queue")
	}
	return q.Dequeue(ctx, k.key, owner)
}

// WatchTurn implements Queueable when the backend is a Queuer.
func (k *KeyLock) WatchTurn(ctx context.Context, owner string, fn func()) (func(), error) {
	q, ok := k.backend.(Queuer)
	if !ok {
		return nil, unsupported("wait queue")
	}
	return q.WatchTurn(ctx, k.key, owner, fn)
}

// Inspect implements Inspectable when the backend is an Inspector.
func (k *KeyLock) Inspect(ctx context.Context) (driver.State, error) {
	in, ok := k.backend.(Inspector)
	if !ok {
		return driver.State{}, unsupported("inspection")
	}
	return in.Inspect(ctx, k.key)
}

// ForceUnlock implements ForceUnlockable when the backend is a
// ForceUnlocker.
func (k *KeyLock) ForceUnlock(ctx context.Context) (bool, error) {
	f, ok := k.backend.(ForceUnlocker)
	if !ok {
		return false, unsupported("force unlock")
	}
	return f.ForceUnlock(ctx, k.key)
}

// Granularity reports the backend's lease granularity.
func (k *KeyLock) Granularity() time.Duration { return Granularity(k.backend) }

// Supports reports whether l offers capability c: for a KeyLock, whether its
// backend implements the matching optional interface; for any other
// Lockable, whether it implements the Lockable capability interface. A
// backend or lock that is a CapabilityReporter has the last word.
func Supports(l Lockable, c Capability) bool {
	var v any = l
	ok := lockHas(l, c)
	if k, isKey := l.(*KeyLock); isKey {
		v = k.backend
		ok = backendHas(k.backend, c)
	}
	if r, isReporter := v.(CapabilityReporter); ok && isReporter {
		return r.Supports(c)
	}
	return ok
}

func backendHas(b Backend, c Capability) (ok bool) {
	switch c {
	case CapWatch:
		_, ok = b.(Notifier)
	case CapInspect:
		_, ok = b.(Inspector)
	case CapForceUnlock:
		_, ok = b.(ForceUnlocker)
	case CapQueue:
		_, ok = b.(Queuer)
	}
	return ok
}

func lockHas(l Lockable, c Capability) (ok bool) {
	switch c {
	case CapWatch:
		_, ok = l.(Watchable)
	case CapInspect:
		_, ok = l.(Inspectable)
	case CapForceUnlock:
		_, ok = l.(ForceUnlockable)
	case CapQueue:
		_, ok = l.(Queueable)
	}
	return ok
}

// Capability names an optional capability of a lock.
type Capability int

// The optional capabilities.
const (
	CapWatch       Capability = iota + 1 // release notification
	CapInspect                           // inspection
	CapForceUnlock                       // force unlock
	CapQueue                             // first-come wait queue
)
