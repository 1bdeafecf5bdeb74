package locker

import "time"

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
