package etcdlocker_test

import (
	"context"
	"math"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/internal/tcpproxy"
)

// Close cancels a call waiting for a server that stopped answering, whose
// outcome is then unknown, instead of waiting out its context or the call
// timeout.
func TestCloseEndsCallsInFlight(t *testing.T) {
	c := etcdtest.Start(t)
	u, err := url.Parse(c.Endpoints()[0])
	require.NoError(t, err)
	p, err := tcpproxy.Start(u.Host)
	require.NoError(t, err)
	defer p.Close()
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{p.Addr()}, DialTimeout: 2 * time.Second})
	require.NoError(t, err)
	defer cli.Close()
	b, err := etcdlocker.New(cli, etcdlocker.WithCallTimeout(time.Hour))
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

// Bad input fails in the kit's words; etcd's own limit comes after.
func TestBadInputInTheKitsWords(t *testing.T) {
	b := newBackend(t, etcdtest.Start(t))
	_, err := b.TryLock(context.Background(), driver.Request{Owner: "o", TTL: time.Second})
	assert.EqualError(t, err, driver.CheckKey("").Error())
	assert.EqualError(t, b.Unlock(context.Background(), "k", ""), driver.CheckOwner("k", "").Error())
	_, err = b.TryLock(context.Background(), driver.Request{Key: "k", Owner: "o", TTL: math.MaxInt64})
	assert.ErrorIs(t, err, driver.ErrInvalid)
	assert.Regexp(t, `^etcdlocker: invalid argument: lease .* longer`, err.Error())
}
