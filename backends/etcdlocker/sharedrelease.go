package etcdlocker

import (
	"context"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/driver"
)

// Unlock implements driver.Backend: it drops one of owner's holds in the
// view's mode, as the mutexes' Unlock does with their keys; with the last,
// the hold's key is deleted, which wakes the lock's watchers.
func (v *view) Unlock(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	ctx, call, err := v.b.call(ctx)
	if err != nil {
		return err
	}
	defer call.End()
	return failed(v.b.unlock(ctx, v.keys(key).hold(v.letter, owner), owner, 0))
}

// Expire implements driver.Backend for owner's hold in the view's mode, as
// the mutexes' Expire does.
func (v *view) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	return v.ExpireBatch(ctx, []driver.Renewal{{Key: key, Owner: owner, TTL: ttl}})[0]
}

// ExpireBatch implements driver.BatchExpirer for holds in the view's mode,
// as the mutexes' ExpireBatch does.
func (v *view) ExpireBatch(ctx context.Context, renewals []driver.Renewal) []error {
	return v.b.expireBatch(ctx, renewals, v.holdKey)
}

// holdKey is the key of the hold r renews.
func (v *view) holdKey(r driver.Renewal) string { return v.keys(r.Key).hold(v.letter, r.Owner) }

// Dequeue implements driver.Dequeuer: it takes owner off the lock's wait
// list (a waiting writer, or a semaphore's waiter), which wakes the lock's
// watchers. It changes nothing when owner does not wait.
func (v *view) Dequeue(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	ctx, call, err := v.b.call(ctx)
	if err != nil {
		return err
	}
	defer call.End()
	resp, err := v.b.cli.Delete(ctx, v.keys(key).waiter(owner), clientv3.WithPrevKV())
	if err != nil {
		return failed(err)
	}
	for _, kv := range resp.PrevKvs {
		v.b.unboundKV(ctx, kv)
	}
	return nil
}

// ForceUnlock implements driver.ForceUnlocker: it deletes every hold of the
// lock, in every mode, whoever holds it, and reports whether there was
// one. Waiters keep their places: they wait for the lock, which is now
// free for them.
func (v *view) ForceUnlock(ctx context.Context, key string) (bool, error) {
	if err := driver.CheckKey(key); err != nil {
		return false, err
	}
	ctx, call, err := v.b.call(ctx)
	if err != nil {
		return false, err
	}
	defer call.End()
	resp, err := v.b.cli.Delete(ctx, v.keys(key).holds(), clientv3.WithPrefix(), clientv3.WithPrevKV())
	if err != nil {
		return false, failed(err)
	}
	for _, kv := range resp.PrevKvs {
		v.b.hints.forget(string(kv.Key), "")
		v.b.unboundKV(ctx, kv)
	}
	return len(resp.PrevKvs) > 0, nil
}

// Watch implements driver.Notifier: one etcd watch of every key of the
// lock, shared by all of the backend's watchers of it, calls fn when a
// key is deleted (a hold ends, a waiter leaves or runs out of patience),
// as the mutexes' Watch does.
func (v *view) Watch(ctx context.Context, key string, fn func()) (func(), error) {
	if err := driver.CheckKey(key); err != nil {
		return nil, err
	}
	return v.b.watch(ctx, watchTarget{key: v.keys(key).base, prefix: true}, fn)
}
