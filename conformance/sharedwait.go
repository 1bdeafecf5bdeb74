package conformance

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/locker"
)

// waiter is an acquisition waiting in a goroutine of its own for what
// another holds; it must not succeed before the test says it released.
type waiter struct {
	released atomic.Bool
	got      chan *locker.Lease
}

// startWaiter runs acquire, the wait of what, in a goroutine.
func startWaiter(t *testing.T, what string, acquire func() (*locker.Lease, error)) *waiter {
	w := &waiter{got: make(chan *locker.Lease, 1)}
	go func() {
		l, err := acquire()
		assert.NoError(t, err, what)
		assert.True(t, w.released.Load(), "%s acquired before the release", what)
		w.got <- l
	}()
	return w
}

// release says that what the waiter waits for is about to be released.
func (w *waiter) release() { w.released.Store(true) }

// acquired returns the waiter's lease, which it must have within limit.
func (w *waiter) acquired(t *testing.T, what string, limit time.Duration) *locker.Lease {
	t.Helper()
	select {
	case l := <-w.got:
		require.NotNil(t, l, what)
		return l
	case <-time.After(limit):
		t.Fatalf("%s did not acquire within %v of the release", what, limit)
		return nil
	}
}
