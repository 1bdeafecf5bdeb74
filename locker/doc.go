// Package locker is what programs use of distlock: a Store, the lock store
// as a program holds it, and the locks it hands out: Mutex, RWMutex and
// Semaphore.
//
// A Store is made from a driver (package driver: one per lock store, in
// backends/..., or a combinator such as redlock) or opened from a URL. It
// finds what its driver can do once, validates input, wraps errors with the
// operation and the lock's name, and owns what its Mutexes share: a
// watchdog that renews their leases in batches, one release subscription
// per lock for all their waiters, and the live holds of shared owners. A
// Mutex adds what a program needs on top of one attempt: waiting, wait and
// lease budgets, a lease whose loss is signalled through Lease.Done, local
// exclusion between goroutines, re-entry through an explicit owner
// identity, fencing tokens and inspection.
//
//	store, err := locker.Open(ctx, "redis://localhost:6379/0")
//	defer store.Close()
//	m, err := store.Mutex("orders/42")
//	lease, err := m.Lock(ctx)
//	if err != nil { ... }
//	defer lease.Unlock(context.Background())
//	select {
//	case <-lease.Done(): // the lock was lost: stop writing
//	default:
//	}
//
// Keys makes one Mutex over several locks, possibly on several Stores, held
// while all of them are.
//
// RWMutex (many readers or one writer) and Semaphore (a number of permits,
// each acquisition leased to an owner of its own) give the same leases as a
// Mutex: every hold is a Lease, renewed by the watchdog or fixed, lost
// through Done, fenced by its token. They need a driver with shared locks
// (driver.Sharer); the Store serves each kind through a view of the driver
// that is itself a driver, so waiting, renewal and cleanup work for them
// as for a Mutex.
//
// # Waiting
//
// A waiting Mutex (Lock, or TryLock with WithWait) joins the lock's queue
// where the store keeps one (driver.Queuer): each release then hands the
// lock to the first waiter still in line and wakes only that waiter, so
// waiters are served in the order they asked. Otherwise it sleeps until a
// release notification (driver.Notifier), or polls with jittered backoff,
// never sleeping past the holder's remaining lease. Waiters of one Store
// share their subscriptions. A wait rides out attempts that fail with ErrUnavailable or
// an unknown outcome for a few seconds once the store has answered it, and
// gives back any hold such an attempt took.
//
// # Clocks
//
// A Mutex times its leases (Lease.Deadline, and Done closing at it, renewed
// or not), its watchdog's renewals and its waits by its Store's clock: the
// driver's when it is a driver.Clocked, such as a memlocker store with a
// ManualClock, so that tests drive the store and the Mutex with one fake
// clock; the system clock otherwise. Context deadlines are always real
// time.
//
// # Guarantees
//
// A lease is a promise that holds only while the holder's clock and the
// store's clock agree and the holder is not paused. A process paused past its
// lease (garbage collection, a stopped VM) can still believe it holds the
// lock. Protected resources should therefore check Lease.Token: tokens rise
// strictly on every free-to-held transition of a lock, so a resource that
// rejects writes carrying a token lower than one it has seen is safe against
// such stale holders.
//
// # Errors
//
// Callers branch with errors.Is on the sentinels; every backend and
// combinator answers the same way:
//
//   - ErrNotAcquired: another owner holds the lock (and the wait, if any,
//     ran out). The store answered; it never means the store was slow.
//   - ErrUnavailable: the stores could not decide (unreachable before
//     anything was sent, a quorum that failed or timed out, a restart
//     guard, a grant that came after its lease). Nothing is held; retry.
//   - ErrInvalid: bad input or misconfiguration (see MaxNameLen and
//     MinLease); no retry fixes it.
//   - ErrLost: the lease ended before Unlock or Extend.
//   - ErrNotHeld, ErrReleased, ErrClosed: as documented on each.
//
// Any other error is an unknown outcome (IsUnknown): the call may have run.
// A Mutex then gives back what the call may have taken, within the call's
// context and a grace of at most 100 ms past it, or else in the background,
// so that every call returns by its context's deadline whatever the store
// does. Errors returned by a Mutex are wrapped in an *OpError naming the
// operation and the lock.
//
// # Stale holds
//
// A Mutex re-enters only holds that a live Lease of its Store accounts for
// (a Store is one process's view of the store). A hold can outlive what the
// process knows of it: an Unlock whose
// outcome was unknown may not have run, and a failover can promote a
// replica that still has a released hold. An acquisition that finds more
// holds than the process accounts for gives the stale ones back and takes
// a fresh hold with a fresh token; Mutexes sharing an owner (WithOwner)
// nest on the holds they know are live.
//
// # Observability
//
// A Mutex made WithTelemetry reports through the OpenTelemetry APIs (the
// program brings the SDK) and log/slog; without it, or without providers,
// it reports nothing and costs nothing. Metrics, all under "distlock.":
//
//   - distlock.acquisitions {acquisition}: Lock and TryLock calls by
//     distlock.result: acquired, not_acquired, unavailable (ErrUnavailable
//     or ErrClosed), invalid, unknown.
//   - distlock.wait.duration (s): how long those calls took, by result.
//   - distlock.hold.duration (s): acquisition to Unlock (result released)
//     or loss (lost).
//   - distlock.leases.lost {lease}; distlock.locks.held {lock}, the live
//     holds; distlock.waiters {waiter}, the calls waiting now (Lock, and
//     TryLock with a wait).
//   - distlock.renewals {renewal} by result (renewed, lost, failed), and
//     distlock.renewal.batches {batch}, the watchdog's rounds.
//   - distlock.store.duration (s): store calls by distlock.operation
//     (trylock, unlock, expire, expire_batch, dequeue) and result (ok,
//     not_acquired, not_held, unavailable, invalid, closed, unknown, ...).
//
// Spans: "distlock.lock" or "distlock.trylock" per call, covering the
// wait, with an error status when no lock was taken; its store calls are
// "distlock.store.<operation>" client spans below it, and a wait that rides
// through a failed store call records a "distlock.store.retry" event. A
// lost lease is a short span "distlock.lease.lost", linked to the call
// that took the lease. Store calls outside a recording span (renewals) are
// measured but not traced. Attributes come from fixed lists; the lock's
// name is added (as distlock.lock.name, cut to 200 bytes) only
// WithLockNameAttribute. Log records, at Warn: a lease lost and why, a
// renewal failing, a wait riding through a store failure, an acquisition
// the stores could not decide (naming the members and why); at Info: a
// cleanup left to the background.
package locker
