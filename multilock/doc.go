// Package multilock combines several stores into one lock that is held only
// while all of them hold it: the same key on several stores. For several
// keys held together (account:A and account:B, for a transfer), possibly on
// different stores, see locker.Keys, which follows the same rules.
//
// A MultiLock is a driver.Backend over member backends: key k on the
// MultiLock means key k on every member. Programs use it as any store,
// through locker.NewStore, which waits for it, renews it with its watchdog
// and inspects it; and combinators compose: a RedLock of MultiLocks is
// redlock.New([]driver.Backend{ml1, ml2, ml3}). New says what each
// operation does; package combine holds the options.
//
//	ml, err := multilock.New([]driver.Backend{east, west})
//	store := locker.NewStore(ml)
//	defer store.Close() // closes the MultiLock, and with it the members
//	m, err := store.Mutex("orders/42")
//	lease, err := m.Lock(ctx)
//
// # Waiting
//
// Every attempt asks one member first, the gate (the least by endpoint,
// then key), and the others only once the gate granted it. When the gate
// keeps a wait queue (driver.Queuer: the Redis and in-memory backends do),
// the MultiLock waits in line there: waiters get the lock in the order
// they asked for it, and a release wakes only the first of them, which
// holds the gate from then on and takes the other members with its next
// attempt; a waiter that holds the gate and is refused by another member
// wakes at that member's release. Without a queue at the gate, waiters
// wake on any member's release notification and race at the gate.
//
// # Shared locks
//
// A MultiLock serves read-write locks (locker's RWMutex) and semaphores of
// any size: every holder holds every member, so each member's bound is the
// MultiLock's. New gives the rules.
//
// # Errors
//
// Bad input and bad configuration are errors wrapping driver.ErrInvalid,
// before any member is contacted; calls after Close wrap driver.ErrClosed;
// an attempt the members could not decide wraps driver.ErrUnavailable, as
// does an Unlock, Expire or Fence that reached no member (every member's
// own error wraps ErrUnavailable: nothing changed, and the call may be
// made again). Any error other than these and ErrNotHeld means the outcome
// is unknown; it names each member that failed and why.
//
// # Holder labels
//
// A holder's label (locker.WithLabel) travels in the owner identity, which
// every member keeps with its hold: Inspect on the MultiLock, or on any one
// member's store, reports the same label.
package multilock
