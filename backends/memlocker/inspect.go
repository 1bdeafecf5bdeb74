package memlocker

import (
	"context"

	"github.com/distlock/distlock/driver"
)

// Inspect implements driver.Inspector.
func (c *Client) Inspect(ctx context.Context, key string) (driver.State, error) {
	if err := driver.CheckKey(key); err != nil {
		return driver.State{}, err
	}
	var st driver.State
	err := c.call(ctx, "inspect", func() { st = c.store.inspect(key) })
	return st, err
}

// ForceUnlock implements driver.ForceUnlocker: the key is freed for the
// next waiter in its queue, or its watchers hear of the release.
func (c *Client) ForceUnlock(ctx context.Context, key string) (bool, error) {
	if err := driver.CheckKey(key); err != nil {
		return false, err
	}
	var held bool
	var n notice
	err := c.call(ctx, "forceunlock", func() { held, n = c.store.forceUnlock(key) })
	n.send()
	return held, err
}
