package redislocker_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/internal/storetest"
	"github.com/distlock/distlock/locker"
)

// signal returns a callback that records calls on a channel.
func signal() (chan struct{}, func()) {
	c := make(chan struct{}, 64)
	return c, func() {
		select {
		case c <- struct{}{}:
		default:
		}
	}
}

func waitSignal(t *testing.T, c chan struct{}, within time.Duration, msg string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(within):
		t.Fatalf("%s: no call within %v", msg, within)
	}
}

func drainSignal(c chan struct{}) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// pubsubClients counts the server's connections in pub/sub mode.
func pubsubClients(t *testing.T, srv *redistest.Server) int {
	t.Helper()
	reply, err := srv.Do("CLIENT", "LIST")
	require.NoError(t, err)
	n := 0
	for line := range strings.SplitSeq(reply.(string), "\n") {
		for f := range strings.FieldsSeq(line) {
			if f == "flags=P" {
				n++
			}
		}
	}
	return n
}

func TestOneConnectionServesAllWatchers(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	b := newBackend(t, srv.Addr())
	releaser := newBackend(t, srv.Addr())

	const keys = 50
	var calls [keys]atomic.Int32
	var stops []func()
	for i := range keys {
		stop, err := b.Watch(ctx, fmt.Sprint("watched/", i), func() { calls[i].Add(1) })
		require.NoError(t, err)
		stops = append(stops, stop)
	}
	require.Eventually(t, func() bool {
		for i := range keys {
			if calls[i].Load() == 0 {
				return false
			}
		}
		return true
	}, 10*time.Second, 10*time.Millisecond, "each watcher is called once its subscription is confirmed")
	assert.Equal(t, 1, pubsubClients(t, srv), "one pub/sub connection for every watcher of the backend")

	// A release reaches the watcher of its own key only.
	for i := range keys {
		calls[i].Store(0)
	}
	o := locker.NewOwner()
	_, err := releaser.TryLock(ctx, driver.Request{Key: "watched/7", Owner: o, TTL: time.Minute})
	require.NoError(t, err)
	require.NoError(t, releaser.Unlock(ctx, "watched/7", o))
	require.Eventually(t, func() bool { return calls[7].Load() > 0 }, 5*time.Second, 5*time.Millisecond)
	for i := range keys {
		if i != 7 {
			assert.Zero(t, calls[i].Load(), "watcher %d heard another key's release", i)
		}
	}

	// So does a forced release.
	_, err = releaser.TryLock(ctx, driver.Request{Key: "watched/8", Owner: o, TTL: time.Minute})
	require.NoError(t, err)
	held, err := releaser.ForceUnlock(ctx, "watched/8")
	require.NoError(t, err)
	require.True(t, held)
	require.Eventually(t, func() bool { return calls[8].Load() > 0 }, 5*time.Second, 5*time.Millisecond,
		"ForceUnlock must notify the watchers")

	for _, stop := range stops {
		stop()
	}
	require.Eventually(t, func() bool {
		reply, err := srv.Do("PUBSUB", "NUMSUB", "distlock:{watched/7}:released")
		return err == nil && reply.([]any)[1] == int64(0)
	}, 10*time.Second, 10*time.Millisecond, "stopping the last watcher unsubscribes")
	stop, err := b.Watch(ctx, "after", func() {})
	require.NoError(t, err)
	stop()
	require.NoError(t, b.Close())
	_, err = b.Watch(ctx, "closed", func() {})
	assert.ErrorIs(t, err, locker.ErrClosed)
	require.Eventually(t, func() bool { return pubsubClients(t, srv) == 0 }, 10*time.Second, 10*time.Millisecond,
		"Close ends the pub/sub connection")
}

// TestWatcherCalledAfterReconnect cuts the watcher's connection, releases
// the lock while it is down, and heals: the watcher must be called, though
// the release message itself was lost.
func TestWatcherCalledAfterReconnect(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	b, proxy := proxiedBackend(t, srv)
	holder := newBackend(t, srv.Addr())
	const key = "reconnect"

	o := locker.NewOwner()
	_, err := holder.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: time.Minute})
	require.NoError(t, err)
	called, fn := signal()
	stop, err := b.Watch(ctx, key, fn)
	require.NoError(t, err)
	defer stop()
	waitSignal(t, called, 5*time.Second, "the subscription confirmation")

	proxy.Cut()
	time.Sleep(200 * time.Millisecond) // the subscriber sees the cut
	drainSignal(called)
	require.NoError(t, holder.Unlock(ctx, key, o))
	reply, err := srv.Do("PUBSUB", "NUMSUB", "distlock:{"+key+"}:released")
	require.NoError(t, err)
	require.EqualValues(t, 0, reply.([]any)[1], "nobody was subscribed when the release was published")

	proxy.Heal()
	waitSignal(t, called, 10*time.Second, "the watcher after the reconnection")
}

// TestWaiterAcquiresAfterCut makes a Mutex wait behind a long lease, cuts
// its connection, releases while it is cut, and heals: it acquires well
// before the holder's lease would have ended.
func TestWaiterAcquiresAfterCut(t *testing.T) {
	srv := redistest.Start(t)
	ctx := context.Background()
	b, proxy := proxiedBackend(t, srv)
	holderBackend := newBackend(t, srv.Addr())
	const key = "cut-waiter"

	holder, err := storetest.Of(t, holderBackend).Mutex(key)
	require.NoError(t, err)
	held, err := holder.Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)

	waiter, err := storetest.Of(t, b).Mutex(key)
	require.NoError(t, err)
	got := make(chan *locker.Lease, 1)
	errs := make(chan error, 1)
	go func() {
		l, err := waiter.Lock(ctx, locker.WithLease(time.Minute))
		if err != nil {
			errs <- err
			return
		}
		got <- l
	}()
	time.Sleep(300 * time.Millisecond) // the waiter is subscribed and asleep
	proxy.Cut()
	require.NoError(t, held.Unlock(ctx))
	time.Sleep(300 * time.Millisecond)
	proxy.Heal()
	select {
	case l := <-got:
		assert.Greater(t, l.Token(), held.Token())
		require.NoError(t, l.Unlock(ctx))
	case err := <-errs:
		t.Fatalf("the waiter failed: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("the waiter hangs after the connection was healed")
	}
}
