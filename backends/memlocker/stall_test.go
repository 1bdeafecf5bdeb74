package memlocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// A stalled client's calls wait without running: one whose context ends
// returns its error, one still waiting at Resume runs then, and Close ends
// the others with ErrClosed.
func TestStallHoldsCallsUntilResume(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	other := c.Store().Client()
	c.Stall()

	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err := c.TryLock(short, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.ErrorIs(t, err, context.DeadlineExceeded)
	st, err := other.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.False(t, st.Held, "a call its context ended did not run")

	errc := make(chan error, 1)
	go func() {
		_, err := c.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
		errc <- err
	}()
	require.Eventually(t, func() bool { return c.Calls("trylock") == 2 }, 10*time.Second, time.Millisecond)
	select {
	case err := <-errc:
		t.Fatalf("a stalled call returned: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	c.Resume()
	require.NoError(t, <-errc, "the waiting call runs at Resume")
	st, err = other.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.True(t, st.Held)

	c.Stall()
	go func() { errc <- c.Unlock(ctx, "k", "o") }()
	require.Eventually(t, func() bool { return c.Calls("unlock") == 1 }, 10*time.Second, time.Millisecond)
	require.NoError(t, c.Close())
	require.ErrorIs(t, <-errc, driver.ErrClosed)
	st, err = other.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.True(t, st.Held, "a call ended by Close did not run")
}
