package memcachelocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/memcachedtest"
	"github.com/distlock/distlock/internal/tcpproxy"
)

// Close waits for a call on a server that stopped answering for one
// memcached step at most (the client's Timeout), not for the call's
// context, and the call's outcome is unknown.
func TestCloseEndsCallsInFlight(t *testing.T) {
	s := memcachedtest.Start(t)
	p, err := tcpproxy.Start(s.Addr())
	require.NoError(t, err)
	defer p.Close()
	b, err := driver.Open(context.Background(), "memcache://"+p.Addr()+"/?timeout=300ms")
	require.NoError(t, err)
	_, err = b.TryLock(context.Background(), driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
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
	_, err = b.TryLock(context.Background(), driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	assert.ErrorIs(t, err, driver.ErrClosed)
}

// Bad input fails in the kit's words; memcached's own limit comes after.
func TestBadInputInTheKitsWords(t *testing.T) {
	s := memcachedtest.Start(t)
	b := newBackend(t, s)
	_, err := b.TryLock(context.Background(), driver.Request{Owner: "o", TTL: time.Second})
	assert.EqualError(t, err, driver.CheckKey("").Error())
	assert.EqualError(t, b.Expire(context.Background(), "k", "o", 0), driver.CheckLease("k", "o", 0).Error())
	_, err = b.TryLock(context.Background(), driver.Request{Key: "k", Owner: "o", TTL: 31 * 24 * time.Hour})
	assert.ErrorIs(t, err, driver.ErrInvalid)
	assert.Regexp(t, `^memcachelocker: invalid argument: lease .* longer`, err.Error())
}
