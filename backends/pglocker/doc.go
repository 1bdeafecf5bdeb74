// Package pglocker is distlock's PostgreSQL backend: locks kept as leases
// in a table of a database the program already uses, through a
// github.com/jackc/pgx/v5 pool.
//
// A lock is one row of the backend's table (DefaultTable, or WithTable),
// keyed by the lock's name, with its owner, hold count, fencing token and
// expiry. Every operation is one SQL statement, and so one transaction, on
// the server's clock (clock_timestamp()), that compares the owner in its
// WHERE clause: a lock is only ever changed by its owner, and no client
// decides from something it read before.
//
//   - TryLock inserts the row, or takes it over when its lease has run out,
//     with a new fencing token; re-enters the owner's live hold (one hold
//     more, the lease reset, the token kept); or changes nothing and reports
//     the holder's remaining lease.
//   - Unlock drops one hold, and at the last deletes the row and notifies
//     the table's channel; Expire resets the owner's lease; ExpireBatch
//     renews a whole batch in one UPDATE over arrays of keys, owners and
//     leases; Inspect reads a lock; ForceUnlock deletes it whoever holds it.
//
// The backend offers release notification (below), inspection, force
// unlock, batched renewal and Endpointer. PostgreSQL keeps no wait queue
// for it, so TryLock ignores Request.Patience.
//
// # The table
//
// The backend makes its table and sequence the first time a statement finds
// them missing, with these statements (Schema returns them for another
// table name), which a user whose role may not create tables runs once
// beforehand:
//
//	CREATE TABLE IF NOT EXISTS "distlock_locks" (
//		key        bytea PRIMARY KEY,
//		owner      bytea NOT NULL,
//		holds      integer NOT NULL,
//		token      bigint NOT NULL,
//		expires_at timestamptz NOT NULL
//	);
//	CREATE SEQUENCE IF NOT EXISTS "distlock_locks_token";
//
// The role then needs SELECT, INSERT, UPDATE and DELETE on the table and
// USAGE and SELECT on the sequence. Names and owners are bytes (bytea),
// since they are opaque strings of any bytes. Rows of released locks are
// deleted; a row whose lease ran out stays until the lock is taken again
// or force-unlocked. Where names are many and seldom reused, delete such
// rows now and then: a statement that compares the expiry never deletes
// a lock that is held, since it sees a taken-over row's new expiry
// (tokens are unaffected, the sequence keeps them):
//
//	DELETE FROM distlock_locks WHERE expires_at < now() - interval '1 hour';
//
// # Fencing tokens
//
// A free-to-held transition draws its token from the table's sequence
// (nextval), under an advisory lock on the lock's name for the statement's
// transaction, so that tokens rise strictly on every lock, also after its
// row was deleted; re-entry keeps the token. Tokens are shared by every lock
// of the table, and skip values (a sequence never goes back, and a refused
// attempt draws one too). When no one holds a lock, Inspect reports the
// sequence's last value, at least the last holder's token and below every
// later one.
//
// Request.Floor is ignored, and the backend is no driver.Fencer: raising a
// sequence to a floor (setval) is not atomic with other sessions' nextval,
// so a raise could take the sequence back below a token already drawn. A
// RedLock counts the backend among its members that do not fence.
//
// The backend is a driver.HoldUnlocker: UnlockHold drops the hold whose
// token it names, so that a release that reaches the server late (its
// client gave up on it, and released again on another connection) leaves
// the owner's later hold alone.
//
// # Lease granularity
//
// PostgreSQL's timestamps count microseconds: leases are rounded up to a
// microsecond, which is exact for distlock (driver.Granular is not needed).
// A lease runs from the moment the server ran the statement, by the
// server's clock, and so ends no earlier than the holder's own deadline,
// which runs from before the call.
//
// # Release notification
//
// Unlock's last hold and ForceUnlock notify the table's channel (NOTIFY,
// delivered when the statement commits) with the lock's name. The backend
// keeps one listening connection (LISTEN), opened with the pool's
// configuration but outside the pool, for all its watchers, from the first
// Watch until Close. When that connection is lost, it is made again with a
// backoff and every watcher is called once, since a release may have been
// missed meanwhile. An expiry is not notified: a waiter's sleep is bounded
// by the holder's remaining lease.
//
// # Shared locks
//
// The backend has no read-write locks or semaphores (driver.Sharer) yet:
// Store.RWMutex and Store.Semaphore fail with errors.ErrUnsupported.
//
// # What it survives
//
// A lease is a committed row: it survives a crash of the server when the
// server is durable (fsync on, synchronous_commit on, the default), and is
// lost with the commits a crash loses otherwise (synchronous_commit off
// loses the last ones, and the token sequence's last advances with them,
// so that tokens handed out before the crash may be handed out again:
// fencing then does not catch a stale holder either). On a failover to an asynchronous standby the last
// commits may be lost too, and a lock granted just before can be granted
// again: fencing tokens are what catches the stale holder, and the
// sequence's value on the standby may be behind as well. A synchronous
// standby (synchronous_commit on with synchronous_standby_names) keeps
// every acknowledged lease.
//
// # Errors
//
// Bad input gets driver.ErrInvalid (in the words of package driver's
// checks), calls after Close driver.ErrClosed, an Unlock or Expire by an
// owner that does not hold the lock driver.ErrNotHeld. A server that
// refuses the statement for a reason no retry fixes (a wrong password, a
// role without a privilege on the table or sequence, a read-only server or
// role (SQLSTATE 25006), a missing database, a table the role may not
// create, a lock name too long for the table's index (over about 2700
// bytes; locker.MaxNameLen is well below)) gets driver.ErrInvalid saying
// what to fix. A call that could make
// no connection, or that pgx knows sent nothing, gets driver.ErrUnavailable.
// Any other error (a connection lost or a context ended with the statement
// in flight) leaves the outcome unknown: the statement may have committed.
// Errors begin with "pglocker: " and say what went wrong, and only that:
// the Store adds the operation and the lock's name.
//
// Every call is bounded by the backend's call timeout (DefaultCallTimeout,
// or WithCallTimeout) and by Close, and pgx ends a query whose context ends.
//
// # URLs
//
// Importing the package registers the schemes "postgres" and "postgresql"
// with driver.Register, for locker.Open and driver.Open:
//
//	postgres://user:password@host:5432/database?sslmode=verify-full&table=locks&call_timeout=2s
//
// The URL is pgx's (pgxpool.ParseConfig): libpq's parameters (sslmode,
// connect_timeout, application_name, target_session_attrs, ...) and
// pgxpool's (pool_max_conns, ...), and the package's own, which are taken
// out first:
//
//   - table: the table of leases (WithTable), default distlock_locks;
//   - call_timeout: a Go duration bounding each call (WithCallTimeout).
//
// Any other parameter is an error wrapping driver.ErrInvalid, since pgx
// would send it to the server as a run-time setting. Errors never contain
// the password. A backend opened from a URL owns its pool and closes it on
// Close; one made with New over a caller's pool leaves that pool open.
package pglocker
