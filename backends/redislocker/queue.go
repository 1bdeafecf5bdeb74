package redislocker

import (
	"context"

	"github.com/distlock/distlock/driver"
)

// The wait queue (driver.Queuer): see queueLua in scripts.go for how it is
// kept on the server.

var _ driver.Queuer = (*Backend)(nil)

// Dequeue implements driver.Queuer.
func (b *Backend) Dequeue(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	if err := b.guard.Enter(); err != nil {
		return err
	}
	defer b.guard.Exit()
	k := b.keys(key)
	reply, err := dequeueScript.run(ctx, b.client, k.queued, owner, b.publishArg, b.lingerArg)
	if err != nil {
		return b.failed(err)
	}
	if _, err := replyInt(reply); err != nil {
		return b.failed(err)
	}
	return nil
}

// WatchTurn implements driver.Queuer. Each waiter has a channel of its
// own, on the backend's shared pub/sub connection; fn is also called each
// time that subscription becomes active.
func (b *Backend) WatchTurn(ctx context.Context, key, owner string, fn func()) (stop func(), err error) {
	if err := driver.CheckOwner(key, owner); err != nil {
		return nil, err
	}
	return b.watch(ctx, key, func(k *keys) string { return k.turns + owner }, fn)
}
