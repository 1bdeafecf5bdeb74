package redislocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
)

// Close waits for a call on a server that stopped answering no longer than
// the client's ReadTimeout, and the call's outcome is unknown.
func TestCloseEndsCallsInFlight(t *testing.T) {
	srv := redistest.Start(t)
	b, p := proxiedBackend(t, srv)
	_, err := b.TryLock(context.Background(), driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	require.NoError(t, err)

	p.StallReplies()
	errc := make(chan error, 1)
	go func() { errc <- b.Unlock(context.Background(), "k", "o") }()
	time.Sleep(100 * time.Millisecond) // the Unlock is in flight
	require.NoError(t, b.Close())
	select {
	case err := <-errc:
		assert.True(t, driver.IsUnknown(err) || err == driver.ErrClosed, "%v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the call outlived Close")
	}
	_, err = b.Inspect(context.Background(), "k")
	assert.ErrorIs(t, err, driver.ErrClosed)
}

// Bad input fails in the kit's words; Redis's own bound comes after. An
// answer of the store's is the bare sentinel: the Store names the call.
func TestBadInputInTheKitsWords(t *testing.T) {
	b := newBackend(t, redistest.Start(t).Addr())
	ctx := context.Background()
	_, err := b.TryLock(ctx, driver.Request{Owner: "o", TTL: time.Second})
	assert.EqualError(t, err, driver.CheckKey("").Error())
	assert.EqualError(t, b.Expire(ctx, "k", "o", 0), driver.CheckLease("k", "o", 0).Error())
	_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Second, Floor: 1 << 60})
	assert.ErrorIs(t, err, driver.ErrInvalid)
	assert.Regexp(t, `^redislocker: invalid argument: floor`, err.Error())
	assert.Equal(t, driver.ErrNotHeld, b.Unlock(ctx, "k", "nobody"))
}
