package quorum

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// Lockable is a combinator over different keys, as a locker.Lockable: each
// member is a key on a backend (for example account:A and account:B, for a
// transfer), and the lock is held when the needed members are.
type Lockable struct {
	engine
	name string
	ts   []target
}

var (
	_ locker.Lockable        = (*Lockable)(nil)
	_ locker.Watchable       = (*Lockable)(nil)
	_ locker.Inspectable     = (*Lockable)(nil)
	_ locker.ForceUnlockable = (*Lockable)(nil)
	_ driver.Granular        = (*Lockable)(nil)
)

// NewLockable returns the combinator of kind over locks with settings s.
// It fails with ErrInvalid when there are no locks, a lock is nil, or two
// locks are the same key on the same store.
func NewLockable(kind Kind, locks []*locker.KeyLock, s Settings) (*Lockable, error) {
	if len(locks) == 0 {
		return nil, fmt.Errorf("%s: %w: no locks", kind.name, driver.ErrInvalid)
	}
	ts := make([]target, len(locks))
	names := make([]string, len(locks))
	for i, l := range locks {
		if l == nil {
			return nil, fmt.Errorf("%s: %w: lock %d is nil", kind.name, driver.ErrInvalid, i+1)
		}
		b := l.Backend()
		names[i] = l.Name()
		ts[i] = target{
			b:      b,
			key:    l.Name(),
			label:  fmt.Sprintf("lock %d (%q on %s)", i+1, l.Name(), describe(b)),
			fencer: has(b, capFence),
			rtt:    new(rtt),
		}
	}
	if err := checkIndependent(ts); err != nil {
		return nil, fmt.Errorf("%s: %w", kind.name, err)
	}
	return &Lockable{
		engine: newEngine(kind, s, ts),
		name:   kind.name + "(" + strings.Join(names, ", ") + ")",
		ts:     ts,
	}, nil
}

// BuildLockable is NewLockable with kind's default settings changed by
// opts.
func BuildLockable[O ~func(*Settings) error](kind Kind, locks []*locker.KeyLock, opts []O) (*Lockable, error) {
	s, err := Apply(kind, opts)
	if err != nil {
		return nil, err
	}
	return NewLockable(kind, locks, s)
}

// Name implements locker.Lockable: the kind and the keys, e.g.
// "multilock(account:A, account:B)".
func (l *Lockable) Name() string { return l.name }

// Granularity implements driver.Granular: the coarsest member's.
func (l *Lockable) Granularity() time.Duration { return l.gran }

// TryLock implements locker.Lockable, as Backend.TryLock does for one key.
func (l *Lockable) TryLock(ctx context.Context, owner string, ttl time.Duration) (driver.Grant, error) {
	return l.tryLock(ctx, l.name, l.ts, owner, ttl)
}

// Unlock implements locker.Lockable, as Backend.Unlock does for one key.
func (l *Lockable) Unlock(ctx context.Context, owner string) error {
	return l.unlock(ctx, l.name, l.ts, owner)
}

// Expire implements locker.Lockable, as Backend.Expire does for one key.
func (l *Lockable) Expire(ctx context.Context, owner string, ttl time.Duration) error {
	return l.expire(ctx, l.name, l.ts, owner, ttl)
}

// Watch implements locker.Watchable, as Backend.Watch does for one key.
func (l *Lockable) Watch(ctx context.Context, fn func()) (func(), error) {
	return l.watch(ctx, l.name, l.ts, fn)
}

// Inspect implements locker.Inspectable, as Backend.Inspect does for one
// key.
func (l *Lockable) Inspect(ctx context.Context) (driver.State, error) {
	return l.inspect(ctx, l.name, l.ts)
}

// ForceUnlock implements locker.ForceUnlockable, as Backend.ForceUnlock
// does for one key.
func (l *Lockable) ForceUnlock(ctx context.Context) (bool, error) {
	return l.forceUnlock(ctx, l.name, l.ts)
}
