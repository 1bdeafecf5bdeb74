package redislocker

import (
	"context"
	"fmt"
	"time"

	"github.com/distlock/distlock/locker"
)

// The wait queue (locker.Queuer): see queueLua in scripts.go for how it is
// kept on the server.

var _ locker.Queuer = (*Backend)(nil)

// queued returns the keys of the scripts that may hand the lock off.
func (k keys) queued() []string { return []string{k.lock, k.fence, k.queue, k.waiters} }

// TryLockQueued implements locker.Queuer: TryLock that, when the lock is
// held or reserved by another owner, puts owner in the lock's queue (or
// keeps its place) for patience, counted by the server's clock.
func (b *Backend) TryLockQueued(ctx context.Context, key, owner string, ttl, patience time.Duration) (locker.Grant, error) {
	if patience <= 0 {
		return locker.Grant{}, fmt.Errorf("redislocker: trylock queued %s: %w: non-positive patience %v", quoted(key), locker.ErrInvalid, patience)
	}
	return b.tryLock(ctx, "trylock queued", key, owner, ttl, patience, 0)
}

// Dequeue implements locker.Queuer.
func (b *Backend) Dequeue(ctx context.Context, key, owner string) error {
	if err := b.begin("dequeue", key, owner, 0, false); err != nil {
		return err
	}
	defer b.exit()
	k := b.keys(key)
	reply, err := dequeueScript.run(ctx, b.client, k.queued(), owner, b.publish, millis(b.cfg.fenceLinger))
	if err != nil {
		return b.failed("dequeue", key, err)
	}
	if _, err := replyInt(reply); err != nil {
		return b.failed("dequeue", key, err)
	}
	return nil
}

// WatchTurn implements locker.Queuer. Each waiter has a channel of its
// own, on the backend's shared pub/sub connection; fn is also called each
// time that subscription becomes active.
func (b *Backend) WatchTurn(ctx context.Context, key, owner string, fn func()) (stop func(), err error) {
	if owner == "" {
		return nil, fmt.Errorf("redislocker: watch turn %s: %w: empty owner", quoted(key), locker.ErrInvalid)
	}
	if fn == nil {
		return nil, fmt.Errorf("redislocker: watch turn %s: %w: nil callback", quoted(key), locker.ErrInvalid)
	}
	return b.watch(ctx, "watch turn", key, func(k keys) string { return k.turns + owner }, fn)
}
