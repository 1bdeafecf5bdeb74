// Package redislocker is distlock's Redis backend: locks on a standalone
// Redis, a Sentinel-managed master or a Redis Cluster, through a go-redis
// v9 client the program passes in (New) or a URL (locker.Open, driver.Open).
//
// # Data model
//
// A lock named name is a hash "prefix:{name}" with one field, "s", that
// packs the lock's state (see scripts.go): the holder and its hold count,
// when the lease ends by the server's clock, the last fencing token handed
// out, and when the hash expires. The hash outlives the lease by the fence
// linger (WithFenceLinger), so it keeps the fencing counter between holds;
// a lease ends when the server's clock passes it, as Redis ends a key's
// expiry, and the next script to look finds the lock free. The channel
// "prefix:{name}:released" gets a message at every release. The name inside the braces is escaped (bytes
// outside printable ASCII, '{', '}' and '%' become %XX), so any name makes a
// well-formed hash tag, different names never share keys, and a Cluster
// keeps a lock's keys and channel in one slot. A key "prefix:booted" (on a
// Cluster one per slot in use, "prefix:{slot-…}:booted") records the
// server's boot time for Grant.Uptime. Waiters queue in
// "prefix:{name}:queue" (their order) and "prefix:{name}:waiting" (when
// each one's patience lapses, and the lease it asked for), and learn of the
// grant of the lock on the channel "prefix:{name}:turn:OWNER". Every operation is one Lua script (EVALSHA,
// falling back to EVAL after a restart or SCRIPT FLUSH).
//
// # Guarantees
//
// Leases are exact to the millisecond. Fencing tokens rise strictly from
// holder to holder and stay the same on re-entry: a new token is the larger
// of the last one plus one and the server's clock in microseconds, so tokens
// keep rising when the counter is lost (a restart without persistence, a
// failover to a replica that missed it), as long as the servers' clocks
// agree and do not step back. What Redis cannot give, this package does not claim: replication is
// asynchronous, so a failover can lose a lock that was acknowledged to its
// holder, unless WithReplicaAck made the acquisition wait for replicas (and
// even then only the acknowledging replicas have it); a restart without
// persistence loses every lock, and so does a server that evicts keys
// under memory pressure (a maxmemory-policy other than noeviction: every
// key of a lock has an expiry, so the volatile policies evict them too).
// Protect the resource with the fencing token.
//
// A grant for a fresh acquisition reports in Grant.Uptime how long the
// server has kept its lock data: its uptime after a restart without
// persistence (which loses the locks), and the time since it first served
// locks when it persists them. RedLock's restart guard reads it.
//
// Release notification (driver.Notifier) uses one pub/sub connection per
// backend on a standalone server (SUBSCRIBE/PUBLISH), and one per hash slot
// in use on a Cluster (sharded pub/sub, SSUBSCRIBE/SPUBLISH, Redis 7 or
// later). After a lost connection the backend resubscribes and calls every
// watcher once, since releases may have been missed.
//
// Waiting is fair (driver.Queuer): a Mutex that waits joins the lock's
// queue, and a release grants the lock to the first waiter still in line,
// with the lease it asked for, and tells only that one, through its own
// turn channel, instead of waking every waiter to race for it. The message
// carries the grant's token, so the waiter holds the lock without another
// call: a hand-off costs the release's round trip and the message. A
// waiter stays in line for a patience it renews at each attempt (the Mutex
// uses 3 s and tries again at least every second); one that dies drops out
// when its patience lapses, and a grant made to it lapses with its lease. A lease that runs out with
// nobody releasing it publishes nothing: the next attempt on the free lock
// hands it to the first waiter. Scripts run on the master only, so a
// failover can lose the queue like any lock; waiters then fall back to
// their periodic attempts and queue again.
//
// Renewals (driver.BatchExpirer) of many locks go out as batch scripts in
// one pipeline: one round trip per server.
//
// # Shared locks
//
// The Backend is a driver.Sharer: Share hands out views of its read-write
// locks and semaphores, with the semantics driver.Sharer documents and
// the capabilities of the mutexes but the queue (Notifier, Dequeuer,
// Inspector, ForceUnlocker, BatchExpirer, Fencer, HoldUnlocker,
// Endpointer). The read-write lock name is the hash "prefix:{name}:rw" and
// the sorted set "prefix:{name}:rw:leases"; the semaphore name is
// "prefix:{name}:sem", "prefix:{name}:sem:leases" and its wait list
// "prefix:{name}:sem:queue". They carry the mutex's hash tag, so on a
// Cluster a shared lock lives in its mutex's slot, but no name of the
// mutex: the mutex, the read-write lock and the semaphore of one name are
// three locks. The hash holds each owner's hold count and token per mode,
// the lock's token counter and what the scripts need to decide; the
// sorted set holds when each hold's lease, and each waiter's patience,
// ends, by the server's clock (TIME), since Redis expires keys but not
// their fields. Every operation is one script, and acquiring a read hold
// uncontended is one round trip, as a mutex's.
//
// Leases and patience end by the server's clock, exact to the millisecond;
// every script drops those that have ended before it decides. The sorted
// set (and queue) expire by themselves at the furthest end of a lease or
// patience in them, and go at once with the last hold or waiter; the hash
// then keeps only the token counter, and outlives the last lease by the
// fence linger, and by up to an eighth of it more, as a mutex's counter
// does. Tokens rise as a mutex's do: a write hold's, and a semaphore
// hold's, is the larger of the counter plus one, the server's clock in µs
// and Request.Floor; a read hold carries the counter. Grants report the
// server's uptime for new holds, as for mutexes. The release channels are
// "prefix:{name}:rw:released" and "prefix:{name}:sem:released", on the
// backend's pub/sub connection: they announce every hold that ends by
// Unlock or ForceUnlock, every waiter that leaves, and the leases and
// patience an attempt finds ended; a lease that runs out is not announced
// when it does, and a refused grant's Remaining bounds a waiter's sleep.
// WithReplicaAck applies to shared holds as to mutexes.
//
// # Clients
//
// New takes the program's own client, which Close leaves open (unless
// WithOwnedClient). Context deadlines bound calls only when the client has
// ContextTimeoutEnabled; otherwise its ReadTimeout does. A context
// cancelled before its deadline (or one without a deadline: a request's,
// a signal's) ends a call that waits on a stalled server only at the
// ReadTimeout (5s by default): go-redis sets a connection's deadline from
// the context's deadline and does not watch its cancellation. Where that
// is too long, set a shorter ReadTimeout (read_timeout in a URL). The
// backend does not run each call on a goroutine of its own to return
// sooner: on a 2-core machine that cost 40µs a lock+unlock cycle
// (BENCHMARKS.md). Waiting for a lock, between calls, ends with the
// context at once. A redis.Ring is not
// supported: its shards are independent stores (combine them with package
// redlock instead).
//
// # URLs
//
// Importing the package registers these schemes with driver.Register, for
// locker.Open and driver.Open:
//
//	redis://[user:password@]host:port[/db][?params]
//	rediss://...                          (TLS)
//	redis+cluster://[user:password@]host:port[,host:port...][?params]
//	rediss+cluster://...                  (TLS)
//	redis+sentinel://[user:password@]host:port[,host:port...]/master[/db][?params]
//	rediss+sentinel://...                 (TLS)
//
// The host list of redis+cluster names seed nodes; that of redis+sentinel
// names the sentinels, and the first path element the monitored master.
// The user and password are those of the Redis servers (for a Sentinel
// setup, of the master and replicas; the sentinels are reached without a
// password: make the client yourself with redis.NewFailoverClient when
// they need one). A host without a port gets 6379.
//
// This package's own parameters are:
//
//	prefix=P                 key prefix (WithPrefix; default "distlock")
//	replica_ack=N            replicas that must acknowledge an acquisition (WithReplicaAck)
//	replica_ack_timeout=D    how long to wait for them (a Go duration, default 100ms)
//	fence_linger=D           how long fencing counters outlive their lock (WithFenceLinger)
//	ca_file=F                rediss only: PEM file of the CA that signs the servers' certificates
//	cert_file=F, key_file=F  rediss only: PEM files of a client certificate and its key (both or neither)
//
// These TLS parameters are named as etcdlocker's. A client opened from a
// URL also recognises, at its first call, rediss against a server without
// TLS (within a second, not after a dial timeout per go-redis attempt),
// redis against a TLS port, and a server that refuses the client with its
// reason (-DENIED, protected mode): all driver.ErrInvalid.
//
// # ACL
//
// The scripts and the backend use no command of ACL category @dangerous
// but INFO, which the trylock script reads (under redis.pcall, before it
// writes) only for Grant.Uptime; refused, the uptime is unknown (0). The
// minimal user is
//
//	ACL SETUSER locks on >password ~distlock:* &distlock:* +@all -@dangerous
//
// with the backend's prefix for "distlock". A user denied the keys fails on
// the first call with driver.ErrInvalid (NOPERM), before anything is
// written.
//
// Every other parameter goes to go-redis's own URL parser (redis.ParseURL,
// redis.ParseClusterURL, redis.ParseFailoverURL: dial_timeout, read_timeout,
// pool_size, ...), which rejects unknown ones; so does this package. A
// password may not be given as a parameter. Clients opened from a URL honour
// context deadlines (ContextTimeoutEnabled) and are closed by the backend's
// Close. Errors never contain the password.
//
// # Errors
//
// Refused acquisitions are not errors (Grant.Acquired is false). Unlock and
// Expire by a non-holder return driver.ErrNotHeld; bad input driver.ErrInvalid,
// in the words of package driver's checks (and then Redis's own bound on
// Request.Floor, 2^53); calls after Close driver.ErrClosed. Misconfiguration
// the server reports before running a command is driver.ErrInvalid, saying
// what to fix: a wrong or missing password (WRONGPASS, NOAUTH), a missing
// ACL permission (NOPERM), a server refusing the client (DENIED, protected
// mode), a Cluster node reached without redis+cluster (MOVED, ASK,
// CROSSSLOT), and, for clients opened from a URL, rediss against a server
// without TLS or redis against a TLS port. A server that cannot be reached
// (the dial failed: nothing was sent) is driver.ErrUnavailable. An
// acquisition that too few replicas acknowledged returns ErrReplicaAck,
// after releasing the hold. Any other error (a timeout, a lost connection, a server error)
// leaves the outcome unknown: the operation may have run. The backend never
// lets go-redis retry a script, which could count a hold twice. Errors other
// than the kit's and the bare sentinels begin with "redislocker:" and say
// what went wrong, and only that: the Store adds the operation and the
// lock's name.
//
// Close cancels the calls in flight and waits for them. A command already
// written is not interrupted: it ends by its context's deadline or the
// client's ReadTimeout, which bound Close's wait.
//
// # Holder labels
//
// A holder's label (locker.WithLabel) is part of its owner identity, the
// field of the lock hash: Inspect returns it with the owner, and
// Mutex.Inspect reports it as State.Label. It costs the label's bytes in
// every command that names the owner.
package redislocker
