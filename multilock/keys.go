package multilock

import (
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorum"
	"github.com/distlock/distlock/locker"
)

// MultiKey is a lock over several keys, possibly on different stores, held
// while every key is: Redisson's main use of a MultiLock, such as locking
// account:A and account:B together for a transfer. It is a
// locker.Lockable, so locker.NewMutex(mk) gives it waiting, a watchdog and
// fencing tokens. Its methods, those of the embedded engine, are Name,
// TryLock, Unlock, Expire, Watch, Inspect, ForceUnlock and Granularity, so
// it also implements locker.Watchable, locker.Inspectable,
// locker.ForceUnlockable and driver.Granular. It follows the same rules as a
// MultiLock.
type MultiKey struct {
	*quorum.Lockable
}

var (
	_ locker.Lockable        = (*MultiKey)(nil)
	_ locker.Watchable       = (*MultiKey)(nil)
	_ locker.Inspectable     = (*MultiKey)(nil)
	_ locker.ForceUnlockable = (*MultiKey)(nil)
	_ driver.Granular        = (*MultiKey)(nil)
)

// Keys returns the lock over locks, named "multilock(k1, k2, ...)". The
// backends stay the caller's. Two locks that deadlock-prone code would take
// in different orders are safe here: every attempt asks for the keys
// without waiting (the first in a fixed order, then the rest at once) and
// releases them all when it fails, so no owner waits while holding part of
// the set.
//
// Keys fails with an error wrapping driver.ErrInvalid when locks is empty,
// a lock is nil, two locks are the same key on the same store, or an option
// is invalid.
func Keys(locks []*locker.KeyLock, opts ...Option) (*MultiKey, error) {
	l, err := quorum.BuildLockable(quorum.All, locks, opts)
	if err != nil {
		return nil, err
	}
	return &MultiKey{l}, nil
}
