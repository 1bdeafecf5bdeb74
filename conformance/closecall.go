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

// stalledCloseLimit bounds how long a driver's Close may wait for a call
// on a store that stopped answering: the call has no deadline of its own,
// so a Close that waited for it would never return. A bound, not a speed
// test: a driver may wait out its client's read timeout.
const stalledCloseLimit = 10 * time.Second

func testCloseDuringACall(ctx context.Context, t *testing.T, s *suite) {
	st, ok := s.h.(Staller)
	if !ok {
		t.Skip("the harness cannot stall a client")
	}
	b, err := s.h.NewBackend(ctx)
	require.NoError(t, err)
	key, o := s.key(t, ""), locker.NewOwner()
	g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: s.long})
	require.NoError(t, err)
	require.True(t, g.Acquired)

	require.NoError(t, st.Stall(b))
	defer func() { _ = st.Resume(b) }()
	errc := make(chan error, 1)
	go func() { errc <- b.Unlock(context.Background(), key, o) }()
	time.Sleep(100 * time.Millisecond) // the Unlock is in flight

	closed := make(chan error, 1)
	go func() { closed <- b.Close() }()
	select {
	case <-closed:
	case <-time.After(stalledCloseLimit):
		t.Fatalf("Close waited more than %v for a call to a store that does not answer", stalledCloseLimit)
	}
	select {
	case err := <-errc:
		assert.True(t, driver.IsUnknown(err) || err == nil || errors.Is(err, driver.ErrClosed),
			"a call cut short by Close has an unknown outcome: %v", err)
	case <-time.After(stalledCloseLimit):
		t.Fatal("the call outlived Close")
	}
	_, err = b.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: s.long})
	assert.ErrorIs(t, err, driver.ErrClosed, "TryLock after Close")
}
