package memlocker

import (
	"context"

	"github.com/distlock/distlock/driver"
)

// Dequeue implements driver.Queuer: owner leaves key's queue, and a grant
// of key to owner that it has not claimed passes to the next waiter. A
// hold that owner claimed is left alone.
func (c *Client) Dequeue(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	var n notice
	err := c.call(ctx, "dequeue", func() { n = c.store.dequeue(key, owner) })
	n.send()
	return err
}

// WatchTurn implements driver.Queuer: fn is given each grant of key to
// owner. While the client is partitioned its watchers hear nothing; when
// it heals they are all called with a zero Grant, as after a
// reconnection.
func (c *Client) WatchTurn(ctx context.Context, key, owner string, fn func(driver.Grant)) (func(), error) {
	if err := driver.CheckOwner(key, owner); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, driver.Invalid("nil callback")
	}
	return c.watch(ctx, "watchturn", watched{key: key, owner: owner}, func(t driver.Turn) { fn(t.Grant) })
}
