package driver

import "sync"

// Callback holds the function a Notifier was given and keeps the promise
// the Notifier contract makes about it: after Stop returns, the function is
// not called again. A backend keeps one Callback per Watch and calls it from
// the goroutine that learns of releases.
type Callback struct {
	fn      func()
	mu      sync.Mutex
	stopped bool
}

// NewCallback returns a Callback for fn.
func NewCallback(fn func()) *Callback {
	return &Callback{fn: fn}
}

// Call runs the function unless Stop was called. Calls do not overlap.
func (c *Callback) Call() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped {
		c.fn()
	}
}

// Stop ends the calls. It waits for a call in progress, so it must not be
// called from the function itself.
func (c *Callback) Stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
}
