package conformance

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// closeLimit bounds how long Store.Close, and a wait it ends, may take: a
// driver's Close must not hang on its watches or on calls in flight.
const closeLimit = caseTimeout / 3

func testStoreClose(ctx context.Context, t *testing.T, s *suite) {
	b, st := s.client(ctx, t)
	other := s.backend(ctx, t)
	key, busy := s.key(t, ""), s.key(t, "/busy")

	m := s.mutex(t, st, key)
	watchdog, err := m.Lock(ctx)
	require.NoError(t, err)
	fixed, err := s.mutex(t, st, key+"/fixed").Lock(ctx, locker.WithLease(s.long))
	require.NoError(t, err)

	// A waiter for a lock another client holds, asleep when Close comes.
	holder := locker.NewOwner()
	acquire(ctx, t, other, busy, holder, s.long)
	waited := make(chan error, 1)
	waiter := s.mutex(t, st, busy)
	go func() {
		_, err := waiter.Lock(ctx, locker.WithLease(s.long))
		waited <- err
	}()
	time.Sleep(2 * s.unit)

	closed := make(chan error, 1)
	go func() { closed <- st.Close() }()
	var closeErr error
	select {
	case closeErr = <-closed:
	case <-time.After(closeLimit):
		t.Fatalf("Store.Close did not return within %v", closeLimit)
	}
	assert.Equal(t, closeErr, b.Close(), "Store.Close must return its driver's Close error")
	assert.Equal(t, closeErr, st.Close(), "Store.Close again must return the first call's result")

	for _, c := range []struct {
		name string
		l    *locker.Lease
	}{{"watchdog lease", watchdog}, {"fixed lease", fixed}} {
		select {
		case <-c.l.Done():
		default:
			t.Fatalf("a %s's Done is open after Store.Close returned", c.name)
		}
		assert.ErrorIs(t, c.l.Err(), locker.ErrLost, "a %s ended by Store.Close", c.name)
		assert.ErrorIs(t, c.l.Err(), locker.ErrClosed, "a %s ended by Store.Close", c.name)
		err := c.l.Extend(ctx, s.long)
		assert.ErrorIs(t, err, locker.ErrLost, "Extend of a %s after Store.Close", c.name)
		assert.ErrorIs(t, err, locker.ErrClosed, "Extend of a %s after Store.Close", c.name)
		err = c.l.Unlock(ctx)
		assert.ErrorIs(t, err, locker.ErrLost, "Unlock of a %s after Store.Close", c.name)
		assert.ErrorIs(t, err, locker.ErrClosed, "Unlock of a %s after Store.Close", c.name)
	}

	select {
	case err := <-waited:
		assert.ErrorIs(t, err, locker.ErrClosed, "a Lock waiting when its Store closed")
	case <-time.After(closeLimit):
		t.Fatalf("a Lock waiting when its Store closed did not return within %v", closeLimit)
	}

	// Everything after Close fails with ErrClosed, down to the driver.
	_, err = st.Mutex(key)
	assert.ErrorIs(t, err, locker.ErrClosed, "Store.Mutex after Close")
	_, err = m.TryLock(ctx, locker.WithLease(s.long))
	assert.ErrorIs(t, err, locker.ErrClosed, "Mutex.TryLock after Close")
	_, err = m.Lock(ctx, locker.WithLease(s.long))
	assert.ErrorIs(t, err, locker.ErrClosed, "Mutex.Lock after Close")
	if _, ok := b.(driver.Inspector); ok {
		_, err = m.Inspect(ctx)
		assert.ErrorIs(t, err, locker.ErrClosed, "Mutex.Inspect after Close")
	}
	if _, ok := b.(driver.ForceUnlocker); ok {
		_, err = m.ForceUnlock(ctx)
		assert.ErrorIs(t, err, locker.ErrClosed, "Mutex.ForceUnlock after Close")
	}
	_, err = b.TryLock(ctx, driver.Request{Key: key, Owner: locker.NewOwner(), TTL: s.long})
	assert.ErrorIs(t, err, driver.ErrClosed, "Store.Close must close its driver")

	require.NoError(t, other.Unlock(ctx, busy, holder))

	// A driver whose Close fails: the Store closes it once and returns its
	// error, on every call.
	failing := &plain{d: s.backend(ctx, t), closeErr: errors.New("conformance: the driver's Close failed")}
	fst := locker.NewStore(failing)
	assert.ErrorIs(t, fst.Close(), failing.closeErr, "Store.Close must return its driver's Close error")
	assert.ErrorIs(t, fst.Close(), failing.closeErr, "Store.Close again must return the first call's result")
	assert.EqualValues(t, 1, failing.closes.Load(), "Store.Close must close its driver once")
}
