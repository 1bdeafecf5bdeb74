package locker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

func TestStoreCloseEndsItsLeasesAndWaits(t *testing.T) {
	ctx := context.Background()
	shared := memlocker.NewStore()
	s := locker.NewStore(shared.Client())
	m, err := s.Mutex("k")
	require.NoError(t, err)
	renewed, err := m.Lock(ctx) // a watchdog lease
	require.NoError(t, err)
	n, err := s.Mutex("n")
	require.NoError(t, err)
	fixed, err := n.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)

	// A waiter on a lock another process holds.
	other, err := locker.NewStore(shared.Client()).Mutex("w")
	require.NoError(t, err)
	held, err := other.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	defer held.Unlock(ctx)
	w, err := s.Mutex("w")
	require.NoError(t, err)
	waited := make(chan error, 1)
	go func() {
		_, err := w.Lock(ctx)
		waited <- err
	}()
	time.Sleep(50 * time.Millisecond)

	require.NoError(t, s.Close())
	for _, l := range []*locker.Lease{renewed, fixed} {
		select {
		case <-l.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("Close did not end a live lease")
		}
		assert.ErrorIs(t, l.Err(), locker.ErrLost)
		assert.ErrorIs(t, l.Err(), locker.ErrClosed)
	}
	select {
	case err := <-waited:
		assert.ErrorIs(t, err, locker.ErrClosed)
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not end a waiting Lock")
	}

	_, err = s.Mutex("k")
	assert.ErrorIs(t, err, locker.ErrClosed)
	_, err = m.TryLock(ctx)
	assert.ErrorIs(t, err, locker.ErrClosed)
	_, err = m.Inspect(ctx)
	assert.ErrorIs(t, err, locker.ErrClosed)
	assert.NoError(t, s.Close(), "a second Close returns the first one's result")
}

// failingClose is a driver whose Close fails.
type failingClose struct{ driver.Backend }

func (failingClose) Close() error { return errors.New("close refused") }

func TestStoreCloseReturnsTheDriversError(t *testing.T) {
	s := locker.NewStore(failingClose{memlocker.New()})
	err := s.Close()
	require.ErrorContains(t, err, "close refused")
	assert.Equal(t, err, s.Close(), "Close closes the driver once")
}

func TestStoreFromANilDriverIsInvalid(t *testing.T) {
	s := locker.NewStore(nil)
	_, err := s.Mutex("k")
	require.ErrorIs(t, err, locker.ErrInvalid)
	assert.NoError(t, s.Close())
}

// lockOnly passes on a mem client's locking only: no inspection, no force
// unlock, no notification, no queue.
type lockOnly struct{ driver.Backend }

func TestMissingCapabilitiesAreUnsupported(t *testing.T) {
	ctx := context.Background()
	m := newMutex(t, lockOnly{memlocker.New()}, "k")
	_, err := m.Inspect(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	_, err = m.ForceUnlock(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported)
	// Locking works all the same.
	l, err := m.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	require.NoError(t, l.Unlock(ctx))
}

func TestStoreRejectsBadNames(t *testing.T) {
	s := storetest.Of(t, memlocker.New())
	for _, name := range []string{"", string(make([]byte, locker.MaxNameLen+1))} {
		_, err := s.Mutex(name)
		assert.ErrorIs(t, err, locker.ErrInvalid, "name of %d bytes", len(name))
	}
}

// Mutexes of different Stores do not account together even with one owner:
// each Store is a process of its own.
func TestSharedOwnersAccountPerStore(t *testing.T) {
	ctx := context.Background()
	shared := memlocker.NewStore()
	owner := locker.NewOwner()
	a, err := locker.NewStore(shared.Client()).Mutex("k", locker.WithOwner(owner))
	require.NoError(t, err)
	la, err := a.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	b, err := locker.NewStore(shared.Client()).Mutex("k", locker.WithOwner(owner))
	require.NoError(t, err)
	lb, err := b.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 1, lb.Holds(), "a hold no live Lease of the Store accounts for is given back")
	assert.Greater(t, lb.Token(), la.Token(), "and a fresh one taken")
	require.NoError(t, lb.Unlock(ctx))
	assert.ErrorIs(t, la.Unlock(ctx), locker.ErrNotHeld)
}

// slowWatch is a mem client whose Watch does not return until release is
// closed, as a subscription to a store that stopped answering.
type slowWatch struct {
	*memlocker.Client
	release chan struct{}
	stopped chan struct{}
}

func (s slowWatch) Watch(ctx context.Context, key string, fn func()) (func(), error) {
	<-s.release
	return func() { close(s.stopped) }, nil
}

// slowWatchStore returns a Store over a slowWatch, whose lock "k" another
// client holds for the test, so that a Lock on it subscribes.
func slowWatchStore(t *testing.T) (*locker.Store, slowWatch) {
	t.Helper()
	ctx := context.Background()
	shared := memlocker.NewStore()
	holder, err := locker.NewStore(shared.Client()).Mutex("k")
	require.NoError(t, err)
	held, err := holder.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	t.Cleanup(func() { _ = held.Unlock(ctx) })
	d := slowWatch{Client: shared.Client(), release: make(chan struct{}), stopped: make(chan struct{})}
	return locker.NewStore(struct {
		driver.Backend
		driver.Notifier
	}{d, d}), d
}

func TestStoreCloseDoesNotWaitForAWatchBeingSetUp(t *testing.T) {
	ctx := context.Background()
	s, d := slowWatchStore(t)
	m, err := s.Mutex("k")
	require.NoError(t, err)
	waited := make(chan error, 1)
	go func() {
		_, err := m.Lock(ctx)
		waited <- err
	}()
	time.Sleep(50 * time.Millisecond) // the waiter is subscribing

	closed := make(chan error, 1)
	go func() { closed <- s.Close() }()
	select {
	case err := <-closed:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Close waited for a watch the store did not answer")
	}
	close(d.release)
	select {
	case <-d.stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("a watch that came back after Close was not stopped")
	}
	assert.ErrorIs(t, <-waited, locker.ErrClosed)
}

// A waiter whose subscription the store does not set up returns by its
// deadline all the same, and the watch, once it comes back with nobody
// left to use it, is stopped.
func TestAWaitIsBoundWhileItsWatchIsSetUp(t *testing.T) {
	ctx := context.Background()
	s, d := slowWatchStore(t)
	defer s.Close()
	m, err := s.Mutex("k")
	require.NoError(t, err)
	start := time.Now()
	_, err = m.Lock(ctx, locker.WithWait(200*time.Millisecond))
	require.ErrorIs(t, err, locker.ErrNotAcquired)
	assert.Less(t, time.Since(start), 2*time.Second, "the wait must end by its budget")

	time.Sleep(400 * time.Millisecond) // past the subscription's linger
	close(d.release)
	select {
	case <-d.stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("a watch that came back after its waiters left was not stopped")
	}
}
