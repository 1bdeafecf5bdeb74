// Package memcachelocker is distlock's memcached backend: locks kept in
// memcached through a github.com/bradfitz/gomemcache client.
//
// # Read this first: memcached forgets
//
// memcached is a cache. It may evict a lock under memory pressure, and it
// loses every lock when it restarts. A lock that vanishes is free for the
// next owner while its holder still believes it holds it; the holder's
// Mutex finds out at its next renewal and closes the Lease's Done channel,
// but in between two owners may both act. Use fencing tokens for anything
// that matters, give memcached enough memory that locks are not evicted,
// and do not rely on a single memcached for mutual exclusion.
//
// In a RedLock a memcached member counts like any other: a member that
// evicted or lost a lock can grant it to a second client, so a quorum stays
// safe only while a majority of members still hold it. A member that
// restarted should not vote until a full lease has passed since the
// restart; this backend cannot report memcached's uptime to the RedLock
// (gomemcache has no "stats" call), so such a member counts at once.
//
// # How a lock is kept
//
// memcached keys are at most 250 bytes without spaces or control
// characters, while lock names are any bytes. A lock named n is the item
// prefix+"l:"+hex(SHA-256(n)), its fencing counter the item
// prefix+"t:"+hex(SHA-256(n)) (prefix is "distlock:" unless WithPrefix says
// otherwise). Two names collide only if SHA-256 does.
//
// The lock item records the owner, the hold count, the fencing token, the
// lease's end by the writer's clock and a random nonce identifying this
// acquisition. It is created with "add" and changed only with "cas" (check
// and set) after reading it, so a change never lands on an item that
// changed since it was read: nobody extends or releases a lock they do not
// hold. memcached has no conditional delete, so a release does not delete
// the item: it replaces it (with cas) by a tombstone, a short-lived item
// that TryLock treats as free and takes over with cas.
//
// The limits of this scheme: a tombstone is an item too, kept for a minute
// (it remembers the last token) unless evicted earlier, which changes
// nothing since a missing item is as free as a tombstone. cas identifiers
// start again when memcached restarts, so a call that read an item before a
// restart and sends its cas just after could in theory match a new item
// with the same identifier: a window of one round trip, during a restart
// that has lost every lock anyway. And memcached itself still deletes
// unconditionally: on expiry, eviction and restart.
//
// # Fencing tokens
//
// Tokens come from the per-lock counter ("incr"). To keep them rising across
// holders, a new holder first takes the lock with a token-less item, then
// increments the counter, then writes the token into its item with cas,
// which succeeds only while the same acquisition (same nonce) still holds
// the item; every earlier holder took its token before this item existed.
// A missing counter (never used, evicted, or lost in a restart) is seeded
// with the current time in microseconds, and never below the last token a
// tombstone remembers: tokens keep rising after a restart as long as fewer
// than a million tokens per second were issued on average since the counter
// was first seeded, and the clocks of the clients that seed counters do not
// lag. With several servers, a lock and its counter may live on different
// servers.
//
// # Leases
//
// memcached counts expiry in whole seconds against a clock that ticks once
// a second, so an item can expire up to a second before its nominal time.
// A lease of d is therefore stored with an expiry of ceil(d)+1 seconds: the
// lock lasts at least d and at most about d+2 s. Granularity reports one
// second. Leases over 30 days are refused (memcached would read them as
// absolute times). The remaining lease in a refused Grant and in Inspect is
// computed from the lease end that the holder's client recorded, by this
// client's clock.
//
// # Capabilities
//
// The backend offers inspection and force unlock. memcached cannot notify
// anyone of a release, so the backend is no driver.Notifier and a waiting
// Mutex polls; it has no wait queue (driver.Queuer), so TryLock ignores
// Request.Patience; and it renews many leases only as many cas calls, so it
// is no driver.BatchExpirer: the Store renews its leases with concurrent
// Expire calls. TryLock ignores Request.Floor (see driver.Fencer). It has
// no shared locks (driver.Sharer), so Store.RWMutex and Store.Semaphore
// fail with errors.ErrUnsupported. memcached expires whole items by its
// own clock: holders kept in one item (so that a cas counts them
// atomically) would have their leases ended by the clients' clocks, and a
// client whose clock runs ahead would end another's hold early; holders
// kept in items of their own cannot be counted atomically.
//
// # Errors
//
// Bad input gets driver.ErrInvalid (in the words of package driver's
// checks, then memcached's own limits), calls after Close driver.ErrClosed,
// an Unlock or Expire by an owner that does not hold the lock
// driver.ErrNotHeld. Other errors begin with "memcachelocker:" and say what
// went wrong, and only that: the Store adds the operation and the lock's
// name.
// A call whose first write could not even be sent, because no connection
// to the server could be made, gets driver.ErrUnavailable: nothing was
// changed. Any other error (a timeout, a lost connection, a context that ended
// between the steps of a call) means the outcome is unknown. gomemcache
// takes no context: each step is bounded by the client's Timeout, and the
// context is checked between steps. Close waits for the calls in flight,
// which stop at their next step: at most one Timeout.
//
// # URLs
//
// Importing the package registers the scheme "memcache" with
// driver.Register, for locker.Open and driver.Open:
//
//	memcache://host:port[,host:port...]/?prefix=locks:&timeout=500ms
//
// See OpenURL. A backend opened from a URL owns its client and closes it on
// Close; a backend made with New never closes the caller's client.
//
// # Holder labels
//
// A holder's label (locker.WithLabel) is part of its owner identity, which
// the lock item's value keeps: Inspect returns it with the owner, and
// Mutex.Inspect reports it as State.Label. Long names are hashed into item
// keys, so every name up to locker.MaxNameLen fits memcached's 250 bytes.
package memcachelocker
