package memlocker

import (
	"fmt"
	"time"

	"github.com/distlock/distlock/driver"
)

// Endpoint implements driver.Endpointer: clients of one Store report the
// same endpoint, clients of different stores different ones, so that
// combinators (packages multilock and redlock) can refuse the same store
// twice.
func (c *Client) Endpoint() string {
	return fmt.Sprintf("mem:%p", c.store)
}

// Granularity implements driver.Granular: a millisecond, or the store's
// WithGranularity.
func (c *Client) Granularity() time.Duration {
	if g := c.store.granularity; g > 0 {
		return g
	}
	return time.Millisecond
}

// Clock implements driver.Clocked: the store's clock (WithClock), or nil
// for the system clock. A Mutex on the client runs on it.
func (c *Client) Clock() driver.Clock { return c.store.clock }
