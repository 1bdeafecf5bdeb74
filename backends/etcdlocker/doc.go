// Package etcdlocker is distlock's etcd backend: locks kept in an etcd
// cluster through a go.etcd.io/etcd/client/v3 client.
//
// A lock is one key, the lock name under a prefix ("distlock/" unless
// WithPrefix says otherwise). Its value records the owner, the hold count,
// the lease length and whether the key's lease is shared, and the key is
// bound to an etcd lease. Every change is an etcd transaction guarded by
// the key's revisions, so a lock is only ever changed by its owner.
//
//   - TryLock binds the key to one of the backend's shared leases (below)
//     when the key is absent, or, when the same owner holds it, raises the
//     hold count and moves the key to such a lease (which resets the lease
//     to the requested length). Once the backend has a shared lease of the
//     length asked for, that is one transaction.
//   - Unlock lowers the hold count, or deletes the key at zero, in one
//     transaction guarded by the revision of the backend's own last write
//     of the key (a key changed since is read in the same transaction).
//   - Expire renews a lease of the key's own (KeepAliveOnce) and then
//     checks that the key is still bound to it; a key on a shared lease, or
//     on a lease of another length, moves to a new lease of its own.
//
// # Shared leases
//
// An etcd lease takes a consensus write to grant and another to revoke, so
// a lease per acquisition would double the writes of a lock and unlock,
// which take one each. Instead the
// backend grants a lease per lease length and binds the keys it locks with
// that length to it, for a tenth of the lease after the grant (at most a
// second); when the backend locks often it grants the next one ahead, in
// the background. A hold on a shared lease therefore ends up to that much
// earlier than the length asked for, and the Grant says so
// (driver.Grant.Validity), so the Mutex's deadline stays on the safe side.
//
// Nobody renews a shared lease: that would lengthen every other hold bound
// to it, so Expire first moves the key to a lease of its own, which only
// ever lengthens that key's hold. Nobody revokes a shared lease either,
// except the backend that granted it, after it stopped handing it out and
// saw every key it bound to it deleted or moved by its own writes; a lease
// it cannot account for (a transaction whose outcome is unknown, a key
// deleted by another client) runs out by itself. Leases of keys' own are
// revoked, in the background, once their key is deleted or moved. Close
// revokes the leases no lock uses and stops the background work; a lease
// still bound to a held lock stays until it runs out. (Versions of this
// backend from before shared leases take a key on a shared lease for a
// foreign one and refuse to touch it, but their ForceUnlock revokes its
// lease.)
//
// The backend offers every optional capability of a mutex: release notification
// (an etcd watch per key, shared by all waiters of the backend), inspection,
// force unlock and batched renewal (one read, one keep-alive stream and one
// check for all the leases due). etcd keeps no wait queue, so TryLock
// ignores Request.Patience, and revisions are the tokens, so it ignores
// Request.Floor.
//
// # Shared locks
//
// The backend is a driver.Sharer: its views keep read-write locks and
// semaphores with the semantics of driver.Sharer, in keys of their own
// under the prefix. The keys of a shared lock begin with its base, the
// prefix, a NUL byte, "rw" or "sem", and the name with '%' and '/'
// escaped; under the base, a key per owner and mode of hold ("h/r/",
// "h/w/" or "h/p/" and the owner), carrying the hold count (and a
// semaphore hold's permits and limit) and bound to a lease as a mutex's
// key is; a key per waiting writer or semaphore waiter ("q/" and the
// owner), bound to a lease of its patience, whose creation revision is its
// place in line; and the token key ("t"). A mutex whose name begins with a
// NUL byte could meet these keys: such names are best avoided.
//
// An attempt is a transaction whose conditions are the rule that lets it
// in, checked by etcd as it commits: no key under "h/" for a write hold; no
// key under "h/w/" or "q/" for a read hold (or the owner's own write hold,
// for a downgrade). The first one assumes nothing is in the way, and so an
// uncontended hold costs one transaction, as a mutex's does (a write or
// semaphore hold, when no other client moved the token counter since the
// backend last saw it, see below); when its conditions fail it reads the
// lock instead, and the next transaction acts on what it read: an
// acquisition, a re-entry guarded by the hold's revision, a refusal, or a
// place on the wait list. Free permits are no condition etcd can check, so
// a semaphore hold is conditioned on no hold created since the read, and
// unless the owner is first in line (its place unchanged), no waiter
// either. That is safe because keys leave a lock without a write of
// the lock's own only when a hold ends or a waiter leaves or runs out of
// patience, which never refuses anyone: what left since the read only
// frees the lock. Every key of a semaphore carries its limit, and a key is
// only created while another of the same limit that the attempt read is
// still there, or while the semaphore is unused, so they all carry the
// same. An attempt whose conditions keep failing (other owners keep
// changing the lock) gives up after a few rounds, not acquired, with a
// Remaining of a tenth of a second.
//
// Shared locks count their tokens themselves, in the token key, which
// outlives the holds (so a lock's token key stays in etcd after the lock
// is used): a write or semaphore acquisition writes the counter plus one,
// or Request.Floor if higher, to the token key and to its hold's key, in a
// transaction conditioned on the token key's revision as last seen (the
// backend remembers it, so that its next acquisition needs no read), and a
// read hold reads the counter. The views are driver.Fencers: Fence raises
// the counter, and the hold's token, in one guarded transaction. Watchers
// of a view follow every key of the lock and are called when one is
// deleted. Inspect asks etcd for the remaining lease of every lease the
// holds are bound to, up to 16 at once; so does a refused attempt, for
// those in the way.
//
// # Fencing tokens
//
// A mutex hold's fencing token is the etcd revision at which its key was
// created (the key's CreateRevision): it rises with every new holder of any
// lock in the cluster and stays the same on re-entry. When no one holds a
// mutex, Inspect reports the cluster's current revision, which is at least
// the last holder's token and below every later one. (Shared locks count
// their own tokens: see above.)
//
// # Lease granularity
//
// etcd counts leases in whole seconds, so leases are rounded up to a whole
// second and Granularity reports one second. etcd also has a minimum lease,
// 1.5 election timeouts rounded up to a second: two seconds with etcd's
// default settings (1 s election timeout), one second with an election
// timeout of at most 666 ms. Shorter leases are raised to it; the backend
// learns the minimum from the server's grants. The holder's remaining lease
// (in a refused Grant and in Inspect) is rounded up to a whole second. A
// hold on a shared lease lasts the rounded lease less the lease's age, at
// most a tenth of it, when it was taken.
//
// When leadership changes, etcd's new leader restarts the countdown of
// every lease and adds an election timeout, so after a failover a lock can
// outlive its lease, never the other way round.
//
// # Errors
//
// Bad input gets driver.ErrInvalid (in the words of package driver's
// checks, then etcd's own limits), calls after Close driver.ErrClosed, an
// Unlock or Expire by an owner that does not hold the lock driver.ErrNotHeld.
// A request larger than etcd accepts (a very long lock name) is
// driver.ErrInvalid too. Other errors begin with "etcdlocker:" and say what
// went wrong, and only that: the Store adds the operation and the lock's
// name. A call made while the client has no connection to
// any server, and cannot make one, fails at once with driver.ErrUnavailable:
// nothing was sent. Any other error (a timeout, a lost connection, a context that ended while
// a transaction was in flight) means the outcome is unknown: the lock may or
// may not have changed. Such a call is never reported as "not acquired".
//
// The etcd client waits for a reachable server as long as a call's context
// lasts. A backend must not wait, so every call is also bounded by the
// backend's call timeout (DefaultCallTimeout, or WithCallTimeout). Close
// cancels the calls in flight, whose outcome is then unknown, and waits for
// them: it does not wait out a server that does not answer.
//
// # URLs
//
// Importing the package registers the schemes "etcd" and "etcds" (TLS) with
// driver.Register, for locker.Open and driver.Open:
//
//	etcd://[user:password@]host:port[,host:port...]/?prefix=locks/&dial_timeout=5s
//	etcds://host:port/?ca_file=/etc/etcd/ca.pem&cert_file=client.pem&key_file=client-key.pem
//
// See Open for the parameters. A backend opened from a URL owns its client
// and closes it on Close; a backend made with New over a caller's client
// never closes that client.
//
// # Holder labels
//
// A holder's label (locker.WithLabel) is part of its owner identity, which
// the lock key's value keeps: Inspect returns it with the owner, and
// Mutex.Inspect reports it as State.Label. Names and owners are bounded by
// locker.MaxNameLen and 256 bytes, well within etcd's request limit.
package etcdlocker
