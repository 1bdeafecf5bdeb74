package memlocker

import "fmt"

// Endpoint identifies the client's store: clients of one Store report the
// same endpoint, clients of different stores different ones. Combinators
// (packages multilock and redlock) use it to refuse the same store twice.
func (c *Client) Endpoint() string {
	return fmt.Sprintf("mem:%p", c.store)
}
