package driver

import "sync"

// Callback holds the function a Notifier or a Queuer was given and keeps
// the promise their contracts make about it: after Stop returns, the
// function is not called again. A backend keeps one Callback per Watch or
// WatchTurn and calls it from the goroutine that learns of releases.
type Callback struct {
	fn      func(Turn)
	mu      sync.Mutex
	stopped bool
}

// NewCallback returns a Callback for a Notifier's fn.
func NewCallback(fn func()) *Callback {
	return &Callback{fn: func(Turn) { fn() }}
}

// NewTurnCallback returns a Callback for a Queuer's fn, which is not
// told of notices (Turn.Behind).
func NewTurnCallback(fn func(Grant)) *Callback {
	return &Callback{fn: func(t Turn) {
		if t.Behind == 0 {
			fn(t.Grant)
		}
	}}
}

// NewTurnsCallback returns a Callback for a Passer's fn.
func NewTurnsCallback(fn func(Turn)) *Callback {
	return &Callback{fn: fn}
}

// Call runs the function unless Stop was called, with a zero Grant: a
// wake-up. Calls do not overlap.
func (c *Callback) Call() { c.Give(Grant{}) }

// Give runs the function with g unless Stop was called. Calls do not
// overlap.
func (c *Callback) Give(g Grant) { c.Tell(Turn{Grant: g}) }

// Tell runs the function with t unless Stop was called: a Queuer's fn
// gets t.Grant. Calls do not overlap.
func (c *Callback) Tell(t Turn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.stopped {
		c.fn(t)
	}
}

// Stop ends the calls. It waits for a call in progress, so it must not be
// called from the function itself.
func (c *Callback) Stop() {
	c.mu.Lock()
	c.stopped = true
	c.mu.Unlock()
}
