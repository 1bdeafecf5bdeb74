package locker

import (
	"context"
	"fmt"

	"github.com/distlock/distlock/driver"
)

// RWMutex is a distributed read-write lock: held by any number of readers,
// or by one writer. Each hold is a Lease with everything a Mutex's has: a
// fixed lease or the watchdog, Done when it is lost, a fencing token.
//
//   - A writer waiting for the lock holds off new readers, so that a stream
//     of readers cannot starve it; a reader that already holds the lock
//     (the same owner, see WithOwner) re-enters all the same. Waiting
//     readers do not hold off a writer: writers that ask again the moment
//     they release can keep readers waiting, as a stream of write holds
//     would a Mutex's waiters. Readers get in whenever no writer holds or
//     waits.
//   - There is no upgrade: a read hold blocks a write attempt of its own
//     owner until it is released. Downgrade turns a write hold into a read
//     hold without a moment in which the lock is free.
//   - A write hold's token rises on every acquisition of the write hold. A
//     read hold carries the token of the last write, so a resource can turn
//     away a stale writer and readers can tell which version they read.
//     Through a MultiLock or RedLock a read's token is at least the last
//     write's: a write attempt that failed may have raised it.
//
// Without WithOwner each acquisition has an owner of its own: goroutines of
// one process read together and exclude each other's writes through the
// store, like processes. With WithOwner every hold of the RWMutex has that
// owner, and its holds of one mode nest. An RWMutex is safe for concurrent
// use.
//
// A release names the hold it ends by its token where the driver can
// (driver.HoldUnlocker), so that one held up in the network, reaching the
// store after the owner took the lock again, cannot end the later hold.
// Read holds of one owner with no write between them share a token,
// though: with WithOwner such a late release of a read hold can end the
// owner's later read hold, and let a writer in beside it. Without
// WithOwner every read hold has an owner of its own, and a downgraded one
// the token of its write.
//
// A read-write lock is not the Mutex of the same name: the store keeps them
// apart. A store whose driver has no read-write locks (driver.Sharer) fails
// Store.RWMutex with an error wrapping errors.ErrUnsupported.
type RWMutex struct {
	name  string
	opts  []MutexOption
	read  *Store // over the driver's read view
	write *Mutex // over its write view
}

// RWMutex returns a read-write lock named name. It fails as Mutex does,
// and with an error wrapping errors.ErrUnsupported when the store has no
// read-write locks.
func (s *Store) RWMutex(name string, opts ...MutexOption) (*RWMutex, error) {
	if err := s.checkNew(name); err != nil {
		return nil, opError("new", name, err)
	}
	read, err := s.viewOf(driver.Share{Mode: driver.Read})
	if err != nil {
		return nil, opError("new", name, err)
	}
	write, err := s.viewOf(driver.Share{Mode: driver.Write})
	if err != nil {
		return nil, opError("new", name, err)
	}
	w, err := newMutex(write, name, opts)
	if err != nil {
		return nil, opError("new", name, err)
	}
	return &RWMutex{name: name, opts: opts, read: read, write: w}, nil
}

// Name returns the lock's name.
func (rw *RWMutex) Name() string { return rw.name }

// Lock waits for the write hold, as Mutex.Lock does for a Mutex.
func (rw *RWMutex) Lock(ctx context.Context, opts ...LockOption) (*Lease, error) {
	return rw.write.observe(ctx, "lock", true, opts)
}

// TryLock makes one attempt at the write hold, or waits up to the wait
// given by WithWait, as Mutex.TryLock does.
func (rw *RWMutex) TryLock(ctx context.Context, opts ...LockOption) (*Lease, error) {
	return rw.write.observe(ctx, "trylock", false, opts)
}

// RLock waits for a read hold: until no other owner holds or waits for the
// write hold.
func (rw *RWMutex) RLock(ctx context.Context, opts ...LockOption) (*Lease, error) {
	m, err := newMutex(rw.read, rw.name, rw.opts)
	if err != nil {
		return nil, opError("rlock", rw.name, err)
	}
	return m.observe(ctx, "rlock", true, opts)
}

// TryRLock makes one attempt at a read hold, or waits up to the wait given
// by WithWait.
func (rw *RWMutex) TryRLock(ctx context.Context, opts ...LockOption) (*Lease, error) {
	m, err := newMutex(rw.read, rw.name, rw.opts)
	if err != nil {
		return nil, opError("tryrlock", rw.name, err)
	}
	return m.observe(ctx, "tryrlock", false, opts)
}

// Downgrade turns the write hold write into a read hold, with no moment in
// which another writer could take the lock: it takes a read hold under the
// write hold (with opts, as RLock), then releases the write hold. The read
// hold carries the write hold's token.
//
// When the read hold cannot be taken (the write hold was lost), Downgrade
// returns the error and leaves write as it was. When the write hold's
// release fails, Downgrade returns the read Lease together with the
// release's error, as Lease.Unlock reports it: the read hold is the
// caller's either way.
func (rw *RWMutex) Downgrade(ctx context.Context, write *Lease, opts ...LockOption) (*Lease, error) {
	if write == nil || write.m != rw.write {
		return nil, opError("downgrade", rw.name, invalid("a lease that is not this RWMutex's write hold"))
	}
	if err := write.Err(); err != nil {
		return nil, opError("downgrade", rw.name, err)
	}
	m, err := newMutex(rw.read, rw.name, rw.opts)
	if err != nil {
		return nil, opError("downgrade", rw.name, err)
	}
	// The read hold is the writer's: the store lets an owner read under its
	// own write hold.
	m.owner, m.sharedOwner = rw.write.owner, rw.write.sharedOwner
	read, err := m.observe(ctx, "downgrade", false, opts)
	if err != nil {
		return nil, err
	}
	if err := write.Unlock(ctx); err != nil {
		return read, fmt.Errorf("%w (the read hold is taken)", err)
	}
	return read, nil
}

// Inspect returns the lock's state: its writer as Owner, and every hold in
// Holders. It fails with an error wrapping errors.ErrUnsupported when the
// store cannot be inspected.
func (rw *RWMutex) Inspect(ctx context.Context) (State, error) {
	return rw.write.Inspect(ctx)
}

// ForceUnlock deletes every hold of the lock, read and write, and reports
// whether there was one. It fails with an error wrapping
// errors.ErrUnsupported when the store cannot force-unlock.
func (rw *RWMutex) ForceUnlock(ctx context.Context) (bool, error) {
	return rw.write.ForceUnlock(ctx)
}
