package locker

import "time"

// Clock tells a Mutex the time. A Mutex on a KeyLock times its leases
// (Lease.Done and Lease.Deadline), its watchdog's renewals and its waits by
// its backend's clock (see Clocked), so that a test can drive them all with
// the store's fake clock (memlocker.ManualClock) instead of sleeping.
// Contexts are not affected: their deadlines are the caller's, in real
// time.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// At calls f, once, when the clock reaches t; at once when it has
	// already. The time is absolute so that a clock moved by hand between
	// reading Now and setting a timer fires it all the same. f must not
	// block. stop cancels the call and reports whether it did so before f
	// was called.
	At(t time.Time, f func()) (stop func() bool)
}

// Clocked is an optional Backend capability: the backend's leases run on a
// clock other than the system's. A KeyLock reports its backend's clock, and
// a Mutex on a KeyLock runs on it; a Mutex on any other Lockable (a
// combinator) uses the system clock.
type Clocked interface {
	// Clock returns the clock the leases run on; nil means the system
	// clock.
	Clock() Clock
}

// systemClock is the real time.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) At(t time.Time, f func()) func() bool {
	return time.AfterFunc(time.Until(t), f).Stop
}

// clockOf returns the clock a Mutex on l runs on.
func clockOf(l Lockable) Clock {
	if k, ok := l.(*KeyLock); ok {
		if c := k.Clock(); c != nil {
			return c
		}
	}
	return systemClock{}
}

// clockTimer is a one-shot timer on a Clock, for select statements.
type clockTimer struct {
	C    <-chan struct{}
	stop func() bool
}

// newTimer returns a timer whose C is closed when c has moved d past now.
func newTimer(c Clock, d time.Duration) *clockTimer {
	fired := make(chan struct{})
	return &clockTimer{C: fired, stop: c.At(c.Now().Add(d), func() { close(fired) })}
}

// Stop stops the timer; C is then never closed.
func (t *clockTimer) Stop() { t.stop() }

// Clock implements Clocked: the backend's clock when it is Clocked, else
// nil (the system clock).
func (k *KeyLock) Clock() Clock {
	if c, ok := k.backend.(Clocked); ok {
		return c.Clock()
	}
	return nil
}
