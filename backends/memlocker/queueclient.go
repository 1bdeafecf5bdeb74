package memlocker

import (
	"context"
	"fmt"
	"time"

	"github.com/distlock/distlock/locker"
)

// TryLockQueued implements locker.Queuer: TryLock that, when another owner
// holds key or has it reserved, puts owner in key's queue (or keeps its
// place there) until patience from now. A patience that is not positive is
// an error wrapping locker.ErrInvalid, and nothing is done.
func (c *Client) TryLockQueued(ctx context.Context, key, owner string, ttl, patience time.Duration) (locker.Grant, error) {
	if err := validate(key, owner, ttl); err != nil {
		return locker.Grant{}, err
	}
	if patience <= 0 {
		return locker.Grant{}, fmt.Errorf("%w: non-positive patience %v", locker.ErrInvalid, patience)
	}
	var g locker.Grant
	var n []*locker.Callback
	err := c.call(ctx, "trylockqueued", func() { g, n = c.store.tryLock(key, owner, ttl, patience) })
	notify(n)
	if err != nil {
		return locker.Grant{}, err
	}
	return g, nil
}

// Dequeue implements locker.Queuer: owner leaves key's queue, and a
// reservation of key for owner passes to the next waiter. A hold that owner
// took is left alone.
func (c *Client) Dequeue(ctx context.Context, key, owner string) error {
	if err := validate(key, owner, time.Second); err != nil {
		return err
	}
	var n []*locker.Callback
	err := c.call(ctx, "dequeue", func() { n = c.store.dequeue(key, owner) })
	notify(n)
	return err
}

// WatchTurn implements locker.Queuer: fn is called each time key is
// reserved for owner. While the client is partitioned its watchers hear
// nothing; when it heals they are all called, as after a reconnection.
func (c *Client) WatchTurn(ctx context.Context, key, owner string, fn func()) (func(), error) {
	if err := validate(key, owner, time.Second); err != nil {
		return nil, err
	}
	return c.watch(ctx, "watchturn", watched{key, owner}, fn)
}
