package memlocker

import (
	"context"
	"time"

	"github.com/distlock/distlock/driver"
)

// Watch implements driver.Notifier: fn is called whenever a hold of key in
// the view's namespace ends (an Unlock, ForceUnlock, or a lease the store
// finds run out) or a waiter leaves (by acquiring, Dequeue, or a patience
// the store finds run out). Like the client's leases, those of shared
// locks are kept lazily: the store finds what ran out at the next call on
// the key. While the client is partitioned its watchers hear nothing; when
// it heals they are all called.
func (v *view) Watch(ctx context.Context, key string, fn func()) (func(), error) {
	if err := driver.CheckKey(key); err != nil {
		return nil, err
	}
	return v.c.watchReleases(ctx, watched{space: v.space, key: key}, fn)
}

// Dequeue implements driver.Dequeuer: owner stops waiting for key (as a
// writer of a read-write lock, or on a semaphore's wait list). A hold
// that owner took is left alone.
func (v *view) Dequeue(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	return v.do(ctx, "dequeue", func() []*driver.Callback {
		return v.c.store.sharedDequeue(v.lock(key), owner)
	})
}

// Inspect implements driver.Inspector: the state of the whole lock, every
// mode and holder.
func (v *view) Inspect(ctx context.Context, key string) (driver.State, error) {
	if err := driver.CheckKey(key); err != nil {
		return driver.State{}, err
	}
	var st driver.State
	err := v.do(ctx, "inspect", func() (n []*driver.Callback) {
		st, n = v.c.store.sharedInspect(v.lock(key))
		return n
	})
	return st, err
}

// ForceUnlock implements driver.ForceUnlocker: every hold of key ends, in
// every mode; waiters keep their places.
func (v *view) ForceUnlock(ctx context.Context, key string) (bool, error) {
	if err := driver.CheckKey(key); err != nil {
		return false, err
	}
	var held bool
	err := v.do(ctx, "forceunlock", func() (n []*driver.Callback) {
		held, n = v.c.store.sharedForceUnlock(v.lock(key))
		return n
	})
	return held, err
}

// Fence implements driver.Fencer: it raises the token of owner's hold in
// the view's mode to at least token, and the lock's counter with it.
func (v *view) Fence(ctx context.Context, key, owner string, token uint64) error {
	if err := driver.CheckToken(key, owner, token); err != nil {
		return err
	}
	return v.answer(ctx, "fence", func() ([]*driver.Callback, error) {
		return v.c.store.sharedFence(v.lock(key), v.hold(owner), token)
	})
}

// Granularity implements driver.Granular, as the client's.
func (v *view) Granularity() time.Duration { return v.c.Granularity() }

// Endpoint implements driver.Endpointer: the client's endpoint.
func (v *view) Endpoint() string { return v.c.Endpoint() }

// Clock implements driver.Clocked: the store's clock, as the client's.
func (v *view) Clock() driver.Clock { return v.c.Clock() }
