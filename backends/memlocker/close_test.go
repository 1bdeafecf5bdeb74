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

// Close ends a call sleeping out an injected latency, without running it,
// and waits for it before it stops the watchers.
func TestCloseEndsCallsInFlight(t *testing.T) {
	c := memlocker.New()
	c.SetLatency(time.Hour)
	errc := make(chan error, 1)
	go func() {
		_, err := c.TryLock(context.Background(), driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
		errc <- err
	}()
	require.Eventually(t, func() bool { return c.Calls("trylock") == 1 }, 10*time.Second, time.Millisecond)
	require.NoError(t, c.Close())
	require.ErrorIs(t, <-errc, driver.ErrClosed)
	st, err := c.Store().Client().Inspect(context.Background(), "k")
	require.NoError(t, err)
	assert.False(t, st.Held, "a call ended by Close did not run")
	assert.NoError(t, c.Close(), "closing twice")
}

// Bad input fails in the kit's words, before the call counts.
func TestBadInputInTheKitsWords(t *testing.T) {
	c := memlocker.New()
	_, err := c.TryLock(context.Background(), driver.Request{Owner: "o", TTL: time.Second})
	assert.EqualError(t, err, driver.CheckKey("").Error())
	assert.EqualError(t, c.Unlock(context.Background(), "k", ""), driver.CheckOwner("k", "").Error())
	assert.Zero(t, c.Calls("trylock")+c.Calls("unlock"))
}
