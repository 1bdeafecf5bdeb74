// Package driver is the contract between distlock and a lock store: what a
// store's driver implements, the optional capabilities it may add, the URL
// registry, and a small kit that does what every driver needs. Programs do
// not use it; they hold a *locker.Store made from a driver.
//
// # What a driver is
//
// A driver is a Backend: a client of one store (a Redis, an etcd cluster, a
// memcached, a process's memory). Every method is one atomic attempt on the
// store. A driver never waits for a lock, never retries and never sleeps:
// waiting, retrying, renewing leases, noticing their loss and wrapping
// errors with the operation and the lock's name are the Store's work, done
// once for every driver.
//
// A driver never reports success for something that did not happen: a
// Grant with Acquired true means the store holds the lock for the owner
// now, and a nil error from Unlock or Expire means the store did it. When a
// driver cannot know whether an operation ran (the reply was lost, the
// context ended with the command in flight), it returns an error that wraps
// none of the sentinels: IsUnknown reports it, and the Store treats the
// lock as possibly taken and gives it back. ErrUnavailable means that
// nothing was sent (no connection could be made), so nothing needs giving
// back; a driver returns it only when it is sure of that. ErrInvalid means
// bad input or a misconfiguration no retry fixes, ErrNotHeld an Unlock or
// Expire by an owner that does not hold the lock, ErrClosed a call after
// Close. Every call returns by its context's deadline.
//
// # Capabilities
//
// Beyond Backend, a driver implements what its store can do: Notifier
// (release notification), Queuer (a first-come wait queue), Passer (a
// release that grants the lock to a waiter it names, for combinators that
// hand over in one round), Inspector,
// ForceUnlocker, BatchExpirer (renewing many leases in one round trip),
// Fencer (raising a hold's token, for combinators), HoldUnlocker (an
// Unlock that names its hold by token, so that a release held up in the
// network drops no later hold), Granular (leases
// counted in coarse units), Endpointer (which server it talks to),
// Clocked (leases on a clock other than the system's), Drifter (the
// drift a renewal's lease allows for, as a combinator's grants do), and
// Sharer (read-write locks and semaphores, served as views that are Backends
// themselves, so that the Store and the combinators use them unchanged). The Store finds each
// by a type assertion on the driver, once, when it is made; a missing
// capability makes the Store fall back (polling instead of notification,
// Expire calls instead of a batch) or return an error wrapping
// errors.ErrUnsupported (Unsupported). There is nothing else to declare.
//
// Because a capability is a method set, a type that wraps a Backend must
// implement exactly the capabilities it means to pass on. Do not embed a
// Backend in a wrapper unless you mean to pass all its capabilities: the
// embedded methods are promoted, and bypass whatever the wrapper overrides.
//
// # The kit
//
// The kit makes drivers agree without each writing the same code:
//
//   - CheckRequest, CheckLease, CheckOwner and CheckKey reject bad
//     arguments with ErrInvalid in the same words on every store. A driver
//     calls them first, before it sends anything, and adds its store's own
//     limits after them.
//   - Guard is a close guard: calls after Close get ErrClosed, Close ends
//     what calls in flight wait on (the contexts of Start, and what its
//     cut function closes) and waits for them before it releases what they
//     use, once. Start also bounds a call by the driver's call timeout.
//   - ExpireAll renews a batch of leases through BatchExpirer, or through
//     Expire calls, a few at a time, when the driver has no batch of its own.
//     It is the one renewal fallback: a driver whose store cannot renew in
//     one round trip leaves BatchExpirer out and lets the Store use it.
//   - Callback keeps a Notifier's promise that a watcher is not called after
//     its stop returns.
//   - Invalid and Unsupported make the errors of ErrInvalid and
//     errors.ErrUnsupported with what is wrong.
//
// # The registry
//
// Register makes a driver available under a URL scheme, for Open and
// locker.Open: a driver package calls it from init, so that a program
// imports the package for its side effect, as with database/sql drivers.
// An Opener rejects query parameters it does not know and never puts the
// URL's password into errors (RedactURL). Schemes lists what is registered;
// Open with an unknown scheme lists them.
//
// # Writing a backend
//
// Package memlocker (backends/memlocker) is the worked example: an
// in-memory store whose Client is a complete driver with every capability.
// Read it beside these steps: client.go holds the Backend methods and
// Close, store.go the store's state and the operations on it, inspect.go,
// watch.go, queue.go and queue_client.go, fence.go and describe.go the
// capabilities, open.go the URL scheme, and conformance_test.go the
// harness.
//
// 1. The type. Define the driver type with a Guard field, and assert what
// it implements, so that the compiler checks the method sets:
//
//	type Client struct {
//		guard driver.Guard
//		...
//	}
//
//	var (
//		_ driver.Backend   = (*Client)(nil)
//		_ driver.Inspector = (*Client)(nil)
//	)
//
// 2. The checks and the guard. Every method starts with the kit's check for
// its arguments, then the store's own limits, then guard.Enter, whose
// ErrClosed it returns as it is; the call ends with guard.Exit:
//
//	func (c *Client) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
//		if err := driver.CheckRequest(r); err != nil {
//			return driver.Grant{}, err
//		}
//		if err := c.guard.Enter(); err != nil {
//			return driver.Grant{}, err
//		}
//		defer c.guard.Exit()
//		...
//	}
//
// TryLock checks with CheckRequest; Expire, and each renewal of
// ExpireBatch, with CheckLease; Unlock, Dequeue, WatchTurn and Fence with
// CheckOwner; Watch, Inspect and ForceUnlock with CheckKey.
//
// 3. TryLock. Take r.Key for r.Owner with a lease of r.TTL if the key is
// free: the hold count is 1 and the fencing token is new, higher than every
// token the key had before on this store. If r.Owner already holds the key,
// re-enter it: the hold count rises by one, the lease is reset to r.TTL and
// the token stays the same. If another owner holds it, change nothing and
// return a Grant with Acquired false and, when the store knows it, the
// holder's remaining lease in Remaining, rounded up to at least a
// nanosecond (0 means unknown). Being refused is not an error. A store
// without tokens returns 0; a store that forgets its locks when it
// restarts reports its uptime in Grant.Uptime. r.Patience matters only to a
// Queuer, r.Floor only to a store that can raise its counter (see Request);
// others ignore them.
//
// 4. Unlock and Expire. Unlock drops one hold of owner's; at zero the key is
// deleted and watchers are told. Expire resets the lease to ttl. Both
// compare the owner atomically on the store, and return ErrNotHeld,
// changing nothing, when owner does not hold the key: never extend or
// delete another owner's lock.
//
// 5. Granularity. A store that counts leases in coarse units rounds every
// lease up, never down, and reports the unit as Granular; the Store then
// refuses shorter leases than it can keep.
//
// 6. Errors. Return the sentinels for what callers branch on, and every
// other failure as an error that says what went wrong, once, and only
// that: the Store wraps it with the operation and the lock's name
// (distlock: trylock "k": ...). The drivers of this module pass the kit's
// errors and the bare sentinels on as they are, and begin every error of
// their own with their package's name (redislocker: READONLY ...), so that
// the reader of a combinator's error knows which store said what. Classify
// carefully: ErrUnavailable only when nothing was sent; a timeout or a lost
// connection after sending is unknown.
//
// 7. Close. Close turns new calls away, ends the calls in flight or waits
// for them, and then releases the client, once: call guard.Close(cut,
// release). A call in flight may block on a server that stopped answering,
// and Close must still return promptly: bind the calls' contexts to the
// guard (Start and Call.End, at the cost of a context per call), or close
// their connections in cut, and where the store's client cannot be
// interrupted, say in the doc what bounds the wait. Close does not release locks: they
// expire with their leases.
//
// 8. Capabilities. Add what the store can do natively, with the contracts
// written on each interface. A Notifier calls each watcher through a
// Callback, outside the driver's locks, and calls it also when releases may
// have been missed (after a reconnection); spurious calls are allowed,
// missed ones are not. A BatchExpirer renews in one round trip per server;
// a driver that would loop over Expire implements no BatchExpirer.
//
// 9. A URL scheme. Register an Opener in init. It parses the URL, refuses
// unknown parameters and malformed values with ErrInvalid, and makes a
// driver that owns its client (and closes it on Close):
//
//	func init() { driver.Register("mem", openURL) }
//
// 10. The conformance suite. Package conformance holds the whole contract as
// one test. Write a Harness that makes independent clients of one store
// (each its own connections, all seeing the same locks) and reports the
// store's granularity, and run the suite with one line:
//
//	func TestConformance(t *testing.T) {
//		conformance.Run(t, func(ctx context.Context, t *testing.T) (conformance.Harness, error) {
//			return newHarness(ctx, t)
//		})
//	}
//
// The harness may add what lets the suite test faults: Partitioner (cut a
// client off and heal it), Staller (make a client's calls hang), Unreachable
// (a client of an address where no store listens). Subtests of a capability
// the driver or the harness lacks are skipped, with the capability's name.
// Tests start real servers themselves; backends/memlocker/conformance_test.go
// is the smallest harness, and backends/redislocker/harness_test.go one over
// real servers behind a TCP proxy.
package driver
