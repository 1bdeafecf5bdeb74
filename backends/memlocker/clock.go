package memlocker

import (
	"container/heap"
	"sync"
	"time"

	"github.com/distlock/distlock/driver"
)

// Clock tells a Store the time. Leases expire by it, and Mutexes on the
// store's clients time their leases, renewals and waits by it (see
// Client.Clock).
type Clock = driver.Clock

// ManualClock is a Clock that moves only when told, so tests can run a lease
// out, or have the watchdog renew it, without sleeping. It is safe for
// concurrent use.
type ManualClock struct {
	mu     sync.Mutex
	now    time.Time
	timers manualTimers
	seq    uint64 // orders timers due at the same time by creation
}

// NewManualClock returns a clock stopped at start.
func NewManualClock(start time.Time) *ManualClock {
	return &ManualClock{now: start}
}

// Now returns the clock's time.
func (c *ManualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// At implements driver.Clock: f is called by the Advance that moves the
// clock to when, or in a goroutine of its own at once when the clock is
// there already.
func (c *ManualClock) At(when time.Time, f func()) (stop func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !when.After(c.now) {
		go f()
		return func() bool { return false }
	}
	t := &manualTimer{when: when, seq: c.seq, f: f}
	c.seq++
	heap.Push(&c.timers, t)
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if t.index < 0 {
			return false
		}
		heap.Remove(&c.timers, t.index)
		return true
	}
}

// Advance moves the clock forward by d (backward when d is negative, to
// simulate a clock jump). Moving forward, it calls the functions of the
// timers that fall due, in the order of their times, each with the clock
// set to its time, before it returns: a lease's Done is closed once
// Advance passes its Deadline. Work that a timer only starts, such as a
// watchdog renewal, which runs in the watchdog's goroutine, may still be
// under way when Advance returns.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	target := c.now.Add(d)
	for len(c.timers) > 0 && !c.timers[0].when.After(target) {
		t := heap.Pop(&c.timers).(*manualTimer)
		if t.when.After(c.now) {
			c.now = t.when
		}
		c.mu.Unlock()
		t.f()
		c.mu.Lock()
	}
	if d < 0 || target.After(c.now) {
		c.now = target
	}
	c.mu.Unlock()
}

// manualTimer is a pending call of a ManualClock.
type manualTimer struct {
	when  time.Time
	seq   uint64
	f     func()
	index int // in the heap; -1 once fired or stopped
}

// manualTimers is a min-heap of timers by time, then creation.
type manualTimers []*manualTimer

func (q manualTimers) Len() int { return len(q) }
func (q manualTimers) Less(i, j int) bool {
	if !q[i].when.Equal(q[j].when) {
		return q[i].when.Before(q[j].when)
	}
	return q[i].seq < q[j].seq
}
func (q manualTimers) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}

func (q *manualTimers) Push(x any) {
	t := x.(*manualTimer)
	t.index = len(*q)
	*q = append(*q, t)
}

func (q *manualTimers) Pop() any {
	old := *q
	t := old[len(old)-1]
	old[len(old)-1] = nil
	t.index = -1
	*q = old[:len(old)-1]
	return t
}
