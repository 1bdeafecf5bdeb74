// Package memlocker is distlock's in-memory reference backend, for tests and
// examples, and the worked example of a driver (see package driver,
// "Writing a backend"). It has the exact semantics the conformance suite expects
// (re-entry, expiry, fencing tokens, release notification, inspection,
// force unlock, batched renewal, a first-come wait queue), an injectable
// clock so tests move time without sleeping, and per-client fault
// injection: failed calls, latency, stalls (calls that wait until
// Resume), replies lost after the operation ran, and partitions.
//
// A Store is the server; each Client is one connection to it with faults of
// its own. Locks live only in the process's memory.
//
// # Clock
//
// A store built WithClock(c) expires its leases by c, and its clients
// report c (Client.Clock, the driver.Clocked capability), so the Mutexes
// of a locker.Store made from one run on c as well: lease deadlines and
// Done, the watchdog's renewals and the sleeps of a waiting Lock. With a ManualClock a
// test moves all of them together, without sleeping: Advance calls the
// timers that fall due, in order, before it returns, so a lease's Done is
// closed once Advance passes its Deadline. What a timer only starts runs in
// its own goroutine and may still be under way when Advance returns: a
// watchdog renewal (wait for Lease.Deadline to move on), or the next
// attempt of a waiter. Context deadlines stay in real time, and so does
// everything that only bounds how long goroutines linger.
//
// # Wait queue
//
// Clients implement driver.Queuer: each key has a first-come queue of
// waiters, joined by a TryLock whose driver.Request has a positive
// Patience, and asking for the lease of its TTL. When a key with waiters
// becomes free (a final Unlock, ForceUnlock, a grant given back by Dequeue,
// or an attempt that finds the lease ran out), the entries whose patience
// has lapsed are dropped from the head of the queue and the key is granted
// to the first one left: held by that owner with one unclaimed hold, a new
// fencing token, and the lease it asked for. Only that owner's WatchTurn
// watchers are called, with the grant. With nobody left in line the key is
// simply freed, and its Watch watchers hear of the release. A plain TryLock
// (no Patience) never joins the queue but respects it: on a free key whose
// queue has another owner first, it grants the key to that owner and is
// refused. An entry that lapses further back in the queue stays until it
// reaches the head; its owner keeps its place if it calls again before
// then.
//
// Like leases, queues are kept lazily: nothing happens at the moment a
// lease or a patience runs out. The next attempt on the key notices and
// hands the key on. Restart loses the queues with the locks.
//
// Clients implement driver.Passer too: a grant's turn (WatchTurns) tells
// the floor of the waiter's last attempt and the waiter then first in
// line; a waiter with a floor that joins an empty line is told to the
// holder's WatchTurns (Turn.Behind); and UnlockTo's final release grants
// the key to the waiter it names, out of its place in line, unless that
// waiter has no patience left or left the key (Leave) within the time it
// gave; then it releases as Unlock does. Leave's marks run on the store's
// clock, and Restart loses them too.
//
// # Shared locks
//
// Clients implement driver.Sharer, as its reference: Client.Share hands
// out views of the store's read-write locks and semaphores, each kind in a
// namespace apart from the mutexes and from the other, with every rule of
// the driver.Sharer doc (readers share, a writer excludes, no upgrade,
// downgrade, waiting writers keep new readers out, semaphores with a
// stored limit and a first-come wait list). A view's calls are its
// client's, through the client's faults; its Close closes the client.
// Unlike the mutexes, shared locks honour Request.Floor, as the Sharer
// contract asks. Their leases, waiting writers and wait lists are kept
// lazily too: the next call on the key finds what ran out, and its
// watchers hear of it then. ForceUnlock ends every hold, in every mode;
// waiters keep their places. Restart forgets the shared locks with the
// mutexes.
//
// # URLs
//
// Importing the package registers the "mem" scheme with driver.Register,
// for locker.Open and driver.Open:
//
//	mem://NAME
//
// opens a new Client of the store called NAME in this process; every Open of
// the same NAME reaches the same Store, so Mutexes of Stores opened from one
// URL contend, and different names are independent stores (NAME may be empty).
// The stores live as long as the process: a mem URL never reaches another
// process. The URL takes no user, port, path, query parameter or fragment;
// any of them is an error wrapping driver.ErrInvalid.
//
// # Holder labels
//
// A holder's label (locker.WithLabel) is part of its owner identity, which
// the store keeps with the hold: Inspect returns it with the owner, and
// Mutex.Inspect reports it as State.Label.
//
// # Errors
//
// Bad arguments fail with the words of package driver's checks (an error
// wrapping driver.ErrInvalid), before the call counts or runs; calls after
// Close fail with driver.ErrClosed. Injected faults return ErrInjected (or
// the error given to FailNext), ErrPartitioned, which ran nothing and so
// wraps driver.ErrUnavailable, as an unreachable store's error does, and
// ErrTimeout, whose operation ran: its outcome is unknown to the caller.
// Request.Floor sets no token: tokens count up from 1 on every key, so
// that tests can predict them. Only UnlockTo's grant honours a floor, its
// successor's (see driver.Passer).
package memlocker
