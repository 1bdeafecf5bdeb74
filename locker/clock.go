package locker

import (
	"time"

	"github.com/distlock/distlock/driver"
)

// systemClock is the real time.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) At(t time.Time, f func()) func() bool {
	return time.AfterFunc(time.Until(t), f).Stop
}

// clockTimer is a one-shot timer on a driver.Clock, for select statements.
type clockTimer struct {
	C    <-chan struct{}
	stop func() bool
}

// newTimer returns a timer whose C is closed when c has moved d past now.
func newTimer(c driver.Clock, d time.Duration) *clockTimer {
	fired := make(chan struct{})
	return &clockTimer{C: fired, stop: c.At(c.Now().Add(d), func() { close(fired) })}
}

// Stop stops the timer; C is then never closed.
func (t *clockTimer) Stop() { t.stop() }
