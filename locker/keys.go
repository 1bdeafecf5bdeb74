package locker

import (
	"fmt"

	"github.com/distlock/distlock/internal/quorum"
)

// Key names one lock of a multi-key Mutex (see Keys): the lock Name on
// Store.
type Key struct {
	Store *Store
	Name  string
}

// Keys returns a Mutex over several locks, possibly on different stores,
// that is held while every one of them is: Redisson's main use of a
// MultiLock, such as locking account:A and account:B together for a
// transfer. It is named "multilock(k1, k2, ...)" and takes opts as
// Store.Mutex does.
//
// Locks that deadlock-prone code would take in different orders are safe
// here: every attempt asks for the locks without waiting, the first in a
// fixed order (by store, then name) alone and then the rest at once, and
// releases them all when it fails, so no owner waits while holding part
// of the set, and simultaneous attempts on free locks always have a
// winner. It follows the rules of multilock.New (attempts, validity,
// releases, Unlock, renewals, fencing tokens), with the locks in the place
// of the members. Its Mutex inspects when every lock's store inspects,
// force-unlocks when every one force-unlocks, and is woken by the release
// of any lock whose store notifies.
//
// The Mutex has a Store of its own over the key stores' drivers, which it
// shares with nobody; the key stores stay the caller's, and once one is
// closed, the Mutex's leases are lost at their next renewal and its calls
// fail.
//
// Keys fails with an error wrapping ErrInvalid when keys is empty, a key
// has no store (nil, or made from a nil driver) or no name, the same name
// appears twice on one store, or an option is invalid; and with ErrClosed
// when a key's store is closed.
func Keys(keys []Key, opts ...MutexOption) (*Mutex, error) {
	members := make([]quorum.Member, len(keys))
	for i, k := range keys {
		if k.Store == nil {
			return nil, opError("new", "multilock", invalid(fmt.Sprintf("key %d has no store", i+1)))
		}
		if err := k.Store.usable(); err != nil {
			return nil, opError("new", "multilock", fmt.Errorf("key %d (%q): %w", i+1, k.Name, err))
		}
		members[i] = quorum.Member{Backend: k.Store.d, Key: k.Name}
	}
	d, err := quorum.NewKeys(quorum.All, members, quorum.DefaultSettings(quorum.All))
	if err != nil {
		return nil, opError("new", "multilock", err)
	}
	s := NewStore(d)
	m, err := s.Mutex(fmt.Sprint(d), opts...)
	if err != nil {
		_ = s.Close() // closes nothing of the key stores'
		return nil, err
	}
	return m, nil
}
