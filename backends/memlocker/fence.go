package memlocker

import (
	"context"

	"github.com/distlock/distlock/driver"
)

// Fence implements driver.Fencer: it raises the token of owner's hold on key
// to at least token, and key's counter with it.
func (c *Client) Fence(ctx context.Context, key, owner string, token uint64) error {
	if err := driver.CheckToken(key, owner, token); err != nil {
		return err
	}
	var result error
	if err := c.call(ctx, "fence", func() { result = c.store.fence(key, owner, token) }); err != nil {
		return err
	}
	return result
}

func (s *Store) fence(key, owner string, token uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.live(key)
	if h == nil || h.owner != owner {
		return driver.ErrNotHeld
	}
	h.token = max(h.token, token)
	s.tokens[key] = max(s.tokens[key], token)
	return nil
}
