// Package redlock combines independent lock stores into one lock that is
// held while a majority of them hold it (the Redlock algorithm), so that the
// lock survives the failure of a minority of the stores.
//
// A RedLock is a driver.Backend over member backends: key k on the RedLock
// means key k on every member. Programs use it as any store, through
// locker.NewStore, which waits for it, renews it with its watchdog and
// inspects it; and combinators compose: a RedLock of MultiLocks is
// redlock.New([]driver.Backend{ml1, ml2, ml3}). New says what each
// operation does; package combine holds the options.
//
//	rl, err := redlock.New([]driver.Backend{r1, r2, r3, r4, r5})
//	store := locker.NewStore(rl)
//	defer store.Close() // closes the RedLock, and with it the members
//	m, err := store.Mutex("orders/42")
//	lease, err := m.Lock(ctx)
//	...
//	defer lease.Unlock(context.Background())
//
// # Guarantees
//
// Mutual exclusion holds while no more than N-(N/2+1) members fail or
// restart without persistence inside the restart guard, and while the
// holder's clock and pauses stay within the drift allowance of the
// validity. A holder paused past its validity (garbage collection, a
// stopped VM) can still believe it holds the lock: protect resources with
// Lease.Token.
//
// # Waiting
//
// When a member keeps a wait queue (driver.Queuer: the Redis and
// in-memory backends do), the RedLock waits in line on one of them, its
// line member (the least by endpoint, so that every RedLock over the same
// stores picks the same one): waiters get the lock in the order they
// asked for it, a release wakes only the first of them, which takes the
// lock in one more round, and nobody takes it meanwhile, not even the
// holder that just released it and asks again. Where the members can
// also grant the lock to a waiter a release names (driver.Passer: Redis
// and memory), the hand-off takes no round of the waiter's own: the line
// member tells each holder who waits behind it (in the turn that brought
// it the lock, or when the first waiter joins the line later), the
// holder's release grants every member to that waiter, and the waiter
// holds the lock once a majority of those grants has reached it. A holder
// that got the lock without waiting, or a while (a quarter second) before
// the waiter came, no longer watches its turns, and hands over in two
// rounds. The line member decides
// the order only: a quorum without it is still a quorum, so a line member
// that is down, or held by another owner who holds no quorum, costs a
// waiter at most a refused attempt or two, and a waiter that another
// owner keeps from a quorum of the other members wakes at their releases.
// Processes that name the servers differently (a DNS alias, a proxy) may
// pick different line members: they exclude each other as always, but
// wait in separate lines and race between them, so name each server the
// same way everywhere for first-come order. Without such a member,
// waiters wake on any member's release notification and race.
//
// # Shared locks
//
// A RedLock serves read-write locks (locker's RWMutex) with the same
// guarantee, and semaphores only where a majority bounds their holders:
// holds of more than half the permits, in practice. New says why, and
// which semaphores it refuses; a MultiLock bounds every semaphore.
//
// # Errors
//
// Bad input (empty key or owner, non-positive lease) and bad configuration
// are errors wrapping driver.ErrInvalid, before any member is contacted.
// Calls after Close wrap driver.ErrClosed. A TryLock that could not decide
// returns an error wrapping driver.ErrUnavailable (see New), as do an
// Unlock, Expire or Fence that reached no member (every member's own
// error wraps ErrUnavailable: nothing was sent, nothing changed, and the
// call may be made again). Unlock and Expire return errors wrapping
// driver.ErrNotHeld when the quorum does not hold the lock. Any other
// error means the outcome is unknown; it names each member that failed
// and why.
//
// # Holder labels
//
// A holder's label (locker.WithLabel) travels in the owner identity, which
// every member keeps with its hold: Inspect on the RedLock, or on any one
// member's store, reports the same label.
package redlock
