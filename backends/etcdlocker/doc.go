// Package etcdlocker is distlock's etcd backend: locks kept in an etcd
// cluster through a go.etcd.io/etcd/client/v3 client.
//
// A lock is one key, the lock name under a prefix ("distlock/" unless
// WithPrefix says otherwise). Its value records the owner, the hold count
// and the lease length, and the key is bound to an etcd lease of its own:
// every acquisition grants a fresh lease, so a renewal of that lease can
// only ever lengthen the acquisition it was granted for. Every change is an
// etcd transaction guarded by the key's revisions, so a lock is only ever
// changed by its owner.
//
//   - TryLock creates the key bound to a new lease when it is absent, or,
//     when the same owner holds it, raises the hold count and moves the key
//     to the new lease (which resets the lease to the requested length).
//   - Unlock lowers the hold count, or deletes the key at zero and revokes
//     its lease.
//   - Expire renews the key's lease (KeepAliveOnce) and then checks that the
//     key is still bound to it; for a lease of another length it moves the
//     key to a new lease, since etcd cannot change a lease's TTL.
//
// The backend offers every optional capability: release notification
// (an etcd watch per key, shared by all waiters of the backend), inspection,
// force unlock and batched renewal.
//
// # Fencing tokens
//
// A hold's fencing token is the etcd revision at which its key was created
// (the key's CreateRevision): it rises with every new holder of any lock in
// the cluster and stays the same on re-entry. When no one holds a lock,
// Inspect reports the cluster's current revision, which is at least the
// last holder's token and below every later one.
//
// # Lease granularity
//
// etcd counts leases in whole seconds, so leases are rounded up to a whole
// second and Granularity reports one second. etcd also has a minimum lease,
// 1.5 election timeouts rounded up to a second: two seconds with etcd's
// default settings (1 s election timeout), one second with an election
// timeout of at most 666 ms. Shorter leases are raised to it; the backend
// learns the minimum from the server's grants. The holder's remaining lease
// (in a refused Grant and in Inspect) is rounded up to a whole second.
//
// When leadership changes, etcd's new leader restarts the countdown of
// every lease and adds an election timeout, so after a failover a lock can
// outlive its lease, never the other way round.
//
// # Errors
//
// Bad input gets locker.ErrInvalid, calls after Close locker.ErrClosed, an
// Unlock or Expire by an owner that does not hold the lock locker.ErrNotHeld.
// Any other error (a timeout, a lost connection, a context that ended while
// a transaction was in flight) means the outcome is unknown: the lock may or
// may not have changed. Such a call is never reported as "not acquired".
//
// The etcd client waits for a reachable server as long as a call's context
// lasts. A backend must not wait, so every call is also bounded by the
// backend's call timeout (DefaultCallTimeout, or WithCallTimeout).
//
// # URLs
//
// Importing the package registers the schemes "etcd" and "etcds" (TLS) with
// locker.Open:
//
//	etcd://[user:password@]host:port[,host:port...]/?prefix=locks/&dial_timeout=5s
//	etcds://host:port/?ca_file=/etc/etcd/ca.pem&cert_file=client.pem&key_file=client-key.pem
//
// See Open for the parameters. A backend opened from a URL owns its client
// and closes it on Close; a backend made with New over a caller's client
// never closes that client.
package etcdlocker
