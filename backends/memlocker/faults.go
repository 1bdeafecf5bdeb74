package memlocker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/distlock/distlock/driver"
)

// Injected faults return these errors. ErrTimeout is the one whose operation
// ran: callers must treat the lock's state as unknown.
var (
	// ErrInjected is returned by calls failed with FailNext; they did not run.
	ErrInjected = errors.New("memlocker: injected failure")
	// ErrTimeout is returned by calls made with TimeoutNext: the operation
	// ran on the store but its reply was lost.
	ErrTimeout = errors.New("memlocker: reply lost after the operation ran")
	// ErrPartitioned is returned by every call while the client is
	// partitioned; the calls did not run, so it wraps driver.ErrUnavailable,
	// as a store that cannot be reached does.
	ErrPartitioned = fmt.Errorf("memlocker: partitioned from the store: %w", driver.ErrUnavailable)
)

// faults is a client's injected misbehaviour.
type faults struct {
	failNext    int
	failErr     error
	timeoutNext int
	latency     time.Duration
	partitioned bool
	stalled     chan struct{} // closed by Resume; nil unless stalled
}

// FailNext makes the client's next n calls fail with err (ErrInjected when
// err is nil) without running.
func (c *Client) FailNext(n int, err error) {
	if err == nil {
		err = ErrInjected
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults.failNext, c.faults.failErr = n, err
}

// TimeoutNext makes the client's next n calls run on the store and then
// return ErrTimeout, as when a reply is lost.
func (c *Client) TimeoutNext(n int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults.timeoutNext = n
}

// SetLatency delays each later call by d before it runs. A call whose
// context ends during the delay returns the context's error and does not
// run.
func (c *Client) SetLatency(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults.latency = d
}

// Stall makes the client's calls hang, as those to a store that stopped
// answering do: each waits, without running, until its context ends (and
// returns the context's error), Close (ErrClosed) or Resume, when it runs.
func (c *Client) Stall() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.faults.stalled == nil {
		c.faults.stalled = make(chan struct{})
	}
}

// Resume ends a Stall: the calls waiting on it run, as a store that
// answers again runs the commands sent to it meanwhile.
func (c *Client) Resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.faults.stalled != nil {
		close(c.faults.stalled)
		c.faults.stalled = nil
	}
}

// Partition cuts the client off the store: calls fail with ErrPartitioned
// and watchers hear nothing until Heal.
func (c *Client) Partition() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults.partitioned = true
}

// Heal ends a partition and calls every watcher of the client, release
// and turn watchers alike, since releases and grants may have been
// missed meanwhile.
func (c *Client) Heal() {
	c.mu.Lock()
	c.faults.partitioned = false
	ws := make([]*driver.Callback, 0, len(c.watchers))
	for w := range c.watchers {
		ws = append(ws, w)
	}
	c.mu.Unlock()
	notify(ws)
}

func (c *Client) isPartitioned() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.faults.partitioned
}

// call runs op on the store through the client's faults. It runs nothing
// after Close, and a call sleeping out a latency or a stall when Close
// comes returns ErrClosed at once, having run nothing.
func (c *Client) call(ctx context.Context, op string, run func()) error {
	if err := c.guard.Enter(); err != nil {
		return err
	}
	defer c.guard.Exit()
	c.mu.Lock()
	c.calls[op]++
	f := &c.faults
	if f.partitioned {
		c.mu.Unlock()
		return ErrPartitioned
	}
	if f.failNext > 0 {
		f.failNext--
		err := f.failErr
		c.mu.Unlock()
		return err
	}
	latency, stalled := f.latency, f.stalled
	lose := f.timeoutNext > 0
	if lose {
		f.timeoutNext--
	}
	c.mu.Unlock()

	var wake <-chan time.Time
	if latency > 0 {
		t := time.NewTimer(latency)
		defer t.Stop()
		wake = t.C
	}
	for wake != nil || stalled != nil {
		select {
		case <-wake:
			wake = nil
		case <-stalled:
			stalled = nil
		case <-ctx.Done():
			return ctx.Err()
		case <-c.guard.Halted():
			return driver.ErrClosed
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	run()
	if lose {
		return ErrTimeout
	}
	return nil
}
