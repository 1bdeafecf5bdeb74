package driver

import "sync"

// Callback holds the function a Notifier or a Queuer was given and keeps
// the promise their contracts make about it: after Stop returns, the
// function is not called again. A backend keeps one Callback per Watch or
// WatchTurn and calls it from the goroutine that learns of releases.
type Callback struct {
	fn      func(Grant)
	mu      sync.Mutex
	stopped bool
}

// NewCallback returns a Callback for a Notifier's fn.
func NewCallback(fn func()) *Callback {
	return &Callback{fn: func(Grant) { fn() }}
}

// NewTurnCallback returns a Callback for a Queuer's fn.
func NewTurnCallback(fn func(Grant)) *Callback {
	return &Callback{fn: fn}
}

// Call runs the function unless Stop was called, with a zero Grant: a
// wake-up. Calls do not overlap.
func (c *Callback) Call() { c.Give(Grant{}) }

// Give runs the function with g unless Stop was called. Calls do not
// overlap.
func (c *Callback) Give(g Grant) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped {
		c.fn(g)
	}
}

// Stop ends the calls. It waits for a call in progress, so it must not be
// called from the function itself.
func (c *Callback) Stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
}
