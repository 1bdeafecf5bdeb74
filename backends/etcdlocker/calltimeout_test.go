package etcdlocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/internal/noserver"
	"github.com/distlock/distlock/locker"
)

func TestCallsEndWithoutAReachableServer(t *testing.T) {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{noserver.Addr(t)}})
	require.NoError(t, err)
	defer cli.Close()
	b, err := etcdlocker.New(cli, etcdlocker.WithCallTimeout(200*time.Millisecond))
	require.NoError(t, err)
	defer b.Close()

	ended := make(chan error, 1)
	go func() {
		// No deadline on the context: the backend's call timeout ends it.
		_, err := b.TryLock(context.Background(), driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Second})
		ended <- err
	}()
	select {
	case err := <-ended:
		require.Error(t, err)
		assert.NotErrorIs(t, err, locker.ErrNotAcquired, "an unreachable server is not a refusal")
		assert.ErrorIs(t, err, locker.ErrUnavailable, "nothing was sent to an unreachable server")
	case <-time.After(30 * time.Second):
		t.Fatal("TryLock waited for an unreachable server")
	}

	_, err = etcdlocker.New(cli, etcdlocker.WithCallTimeout(0))
	assert.ErrorIs(t, err, locker.ErrInvalid)
}

// The call timeout ends a call whose replies stall, though the caller's
// context has no deadline and the timeout sends none to the server: the
// call reports an unknown outcome, as a deadline would.
func TestTheCallTimeoutEndsAStalledCall(t *testing.T) {
	c := etcdtest.Start(t)
	p := proxied(t, c)
	cli, err := clientv3.New(etcdtest.ClientConfig("http://" + p.Addr()))
	require.NoError(t, err)
	defer cli.Close()
	b := newClientBackend(t, cli, etcdlocker.WithCallTimeout(300*time.Millisecond))
	r := driver.Request{Key: "k", Owner: locker.NewOwner(), TTL: time.Minute}
	g, err := b.TryLock(context.Background(), r)
	require.NoError(t, err)
	require.True(t, g.Acquired)

	p.StallReplies()
	ended := make(chan error, 1)
	go func() { ended <- b.Unlock(context.Background(), r.Key, r.Owner) }()
	select {
	case err := <-ended:
		assertUnknown(t, err, "a stalled Unlock")
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	case <-time.After(30 * time.Second):
		t.Fatal("the stalled Unlock outlived the call timeout")
	}
	p.Heal()
}
