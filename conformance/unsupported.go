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

// testUnsupported checks what a Store makes of a driver with no optional
// capability: inspection and force unlock fail with errors.ErrUnsupported,
// and locking, waiting (by polling) and renewal (one Expire per lease) work
// through the Backend methods alone.
func testUnsupported(ctx context.Context, t *testing.T, s *suite) {
	key := s.key(t, "")
	b := s.backend(ctx, t)
	lease := max(3*s.unit, 1200*time.Millisecond)
	m := s.mutex(t, s.plainStore(ctx, t), key, locker.WithWatchdogLease(lease))
	waiter := s.mutex(t, s.plainStore(ctx, t), key)

	l, err := m.Lock(ctx)
	require.NoError(t, err)
	unsupported(ctx, t, m, "on a driver that hides the capability")
	assert.True(t, isHeld(ctx, t, b, key), "a ForceUnlock without the capability must change nothing")

	time.Sleep(2 * lease)
	select {
	case <-l.Done():
		t.Fatalf("the watchdog let the lease go without batched renewal: %v", l.Err())
	default:
	}
	assert.True(t, isHeld(ctx, t, b, key), "the watchdog must renew by Expire without batched renewal")

	got := make(chan *locker.Lease, 1)
	go func() {
		wl, err := waiter.Lock(ctx, locker.WithLease(s.long))
		assert.NoError(t, err, "a waiter without release notification")
		got <- wl
	}()
	time.Sleep(2 * s.unit)
	require.NoError(t, l.Unlock(ctx))
	select {
	case wl := <-got:
		require.NotNil(t, wl)
		assert.Greater(t, wl.Token(), l.Token())
		require.NoError(t, wl.Unlock(ctx))
	case <-time.After(caseTimeout / 3):
		t.Fatalf("a waiter without release notification did not acquire within %v of the release", caseTimeout/3)
	}

	// The driver itself, where it lacks a capability.
	_, inspects := b.(driver.Inspector)
	_, forces := b.(driver.ForceUnlocker)
	if inspects && forces {
		return
	}
	direct := s.mutex(t, s.store(ctx, t), key)
	if !inspects {
		_, err := direct.Inspect(ctx)
		assert.ErrorIs(t, err, errors.ErrUnsupported, "Mutex.Inspect on a driver without inspection")
	}
	if !forces {
		_, err := direct.ForceUnlock(ctx)
		assert.ErrorIs(t, err, errors.ErrUnsupported, "Mutex.ForceUnlock on a driver without force unlock")
	}
}

// unsupported checks that m's inspection and force unlock fail with
// errors.ErrUnsupported.
func unsupported(ctx context.Context, t *testing.T, m *locker.Mutex, where string) {
	t.Helper()
	_, err := m.Inspect(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported, "Mutex.Inspect %s", where)
	_, err = m.IsLocked(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported, "Mutex.IsLocked %s", where)
	_, err = m.HoldCount(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported, "Mutex.HoldCount %s", where)
	_, err = m.ForceUnlock(ctx)
	assert.ErrorIs(t, err, errors.ErrUnsupported, "Mutex.ForceUnlock %s", where)
}

// plainStore returns a Store over a new client seen through plain, closed
// when the subtest ends.
func (s *suite) plainStore(ctx context.Context, t *testing.T) *locker.Store {
	t.Helper()
	st := locker.NewStore(&plain{d: s.backend(ctx, t)})
	t.Cleanup(func() { _ = st.Close() })
	return st
}
