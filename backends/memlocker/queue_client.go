package memlocker

import (
	"context"

	"github.com/distlock/distlock/driver"
)

// Dequeue implements driver.Queuer: owner leaves key's queue, and a
// reservation of key for owner passes to the next waiter. A hold that owner
// took is left alone.
func (c *Client) Dequeue(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	var n []*driver.Callback
	err := c.call(ctx, "dequeue", func() { n = c.store.dequeue(key, owner) })
	notify(n)
	return err
}

// WatchTurn implements driver.Queuer: fn is called each time key is
// reserved for owner. While the client is partitioned its watchers hear
// nothing; when it heals they are all called, as after a reconnection.
func (c *Client) WatchTurn(ctx context.Context, key, owner string, fn func()) (func(), error) {
	if err := driver.CheckOwner(key, owner); err != nil {
		return nil, err
	}
	return c.watch(ctx, "watchturn", watched{key: key, owner: owner}, fn)
}
