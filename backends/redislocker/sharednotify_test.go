package redislocker_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
)

// quiet checks that c gets no call for a while.
func quiet(t *testing.T, c chan struct{}, msg string) {
	t.Helper()
	select {
	case <-c:
		t.Fatalf("%s: a call", msg)
	case <-time.After(200 * time.Millisecond):
	}
}

// watchOf subscribes to key on v, waits for the call that confirms the
// subscription, and stops it when the test ends.
func watchOf(t *testing.T, v driver.Backend, key string) chan struct{} {
	t.Helper()
	c, fn := signal()
	stop, err := v.(driver.Notifier).Watch(context.Background(), key, fn)
	require.NoError(t, err)
	t.Cleanup(stop)
	waitSignal(t, c, 5*time.Second, "subscribed")
	return c
}

// TestSharedReleaseNotification: the watchers of a shared lock hear of
// every hold that ends and every waiter that leaves, on the lock's own
// channel: the mutex of the same name, and the other kind, hear nothing.
func TestSharedReleaseNotification(t *testing.T) {
	srv := redistest.Start(t)
	b := newBackend(t, srv.Addr())
	read, write := rwViews(t, b)
	sem := share(t, b, driver.Share{Mode: driver.Permits, Limit: 1, Permits: 1})
	other := newBackend(t, srv.Addr())
	otherRead, _ := rwViews(t, other)
	ctx := context.Background()
	const key = "notify"
	r1, r2, w := locker.NewOwner(), locker.NewOwner(), locker.NewOwner()

	rw := watchOf(t, write, key)
	mutex := watchOf(t, b, key)
	semaphore := watchOf(t, sem, key)

	require.True(t, try(t, otherRead, driver.Request{Key: key, Owner: r1}).Acquired)
	require.True(t, try(t, otherRead, driver.Request{Key: key, Owner: r2}).Acquired)
	try(t, otherRead, driver.Request{Key: key, Owner: r2})
	quiet(t, rw, "acquisitions")
	require.NoError(t, otherRead.Unlock(ctx, key, r2))
	quiet(t, rw, "a hold count falls")
	require.NoError(t, otherRead.Unlock(ctx, key, r2))
	waitSignal(t, rw, 5*time.Second, "a read hold ended, although another is left")

	require.False(t, try(t, write, driver.Request{Key: key, Owner: w, Patience: time.Minute}).Acquired)
	require.NoError(t, read.(driver.Dequeuer).Dequeue(ctx, key, w))
	waitSignal(t, rw, 5*time.Second, "a waiting writer left")
	_, err := read.(driver.ForceUnlocker).ForceUnlock(ctx, key)
	require.NoError(t, err)
	waitSignal(t, rw, 5*time.Second, "a force unlock")

	require.True(t, try(t, read, driver.Request{Key: key, Owner: r1, TTL: 200 * time.Millisecond}).Acquired)
	require.True(t, try(t, read, driver.Request{Key: key, Owner: r2}).Acquired)
	time.Sleep(250 * time.Millisecond)
	quiet(t, rw, "a lease runs out")
	require.False(t, try(t, write, driver.Request{Key: key, Owner: w, Patience: time.Minute}).Acquired)
	waitSignal(t, rw, 5*time.Second, "an attempt found that a lease ran out")
	require.NoError(t, read.Unlock(ctx, key, r2))
	waitSignal(t, rw, 5*time.Second, "the last read hold ended")
	require.True(t, try(t, write, driver.Request{Key: key, Owner: w, Patience: time.Minute}).Acquired)
	waitSignal(t, rw, 5*time.Second, "the waiting writer took the lock: a waiter left")
	require.NoError(t, write.Unlock(ctx, key, w))
	waitSignal(t, rw, 5*time.Second, "the write hold ended")
	quiet(t, mutex, "the mutex of the same name")
	quiet(t, semaphore, "the semaphore of the same name")

	// A semaphore's next waiter hears when the first one takes its
	// permits, and when an attempt finds that a lease ran out.
	require.True(t, try(t, sem, driver.Request{Key: key, Owner: r1, TTL: 300 * time.Millisecond}).Acquired)
	require.False(t, try(t, sem, driver.Request{Key: key, Owner: r2, Patience: time.Minute}).Acquired)
	require.False(t, try(t, sem, driver.Request{Key: key, Owner: w, Patience: time.Minute}).Acquired)
	quiet(t, semaphore, "waiters joined")
	time.Sleep(350 * time.Millisecond)
	require.True(t, try(t, sem, driver.Request{Key: key, Owner: r2}).Acquired)
	waitSignal(t, semaphore, 5*time.Second, "the lease ran out, and the first waiter took the permits")
	require.NoError(t, sem.Unlock(ctx, key, r2))
	waitSignal(t, semaphore, 5*time.Second, "the release")
	quiet(t, rw, "the read-write lock of the same name")
}

// TestSharedNotificationOnACluster: on a Cluster the shared locks' channels
// are shard channels of the lock's slot.
func TestSharedNotificationOnACluster(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	b := newClusterBackend(t, cluster.Addrs())
	read, _ := rwViews(t, b)
	other, _ := rwViews(t, newClusterBackend(t, cluster.Addrs()))
	ctx := context.Background()
	for _, key := range []string{"a", "b", "c", "{odd}"} {
		c := watchOf(t, read, key)
		o := locker.NewOwner()
		require.True(t, try(t, other, driver.Request{Key: key, Owner: o}).Acquired)
		require.NoError(t, other.Unlock(ctx, key, o))
		waitSignal(t, c, 5*time.Second, "a release of "+key)
	}
}

// TestSharedLocksOnACluster: shared locks of names in many slots, with
// the operations that touch them all at once (batch renewal), on a
// Cluster.
func TestSharedLocksOnACluster(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	b := newClusterBackend(t, cluster.Addrs())
	read, write := rwViews(t, b)
	sem := share(t, b, driver.Share{Mode: driver.Permits, Limit: 2, Permits: 1})
	ctx := context.Background()
	o, other := locker.NewOwner(), locker.NewOwner()
	var renewals []driver.Renewal
	for i := range 20 {
		key := fmt.Sprint("cluster/", i)
		g := try(t, read, driver.Request{Key: key, Owner: o, TTL: time.Second})
		require.True(t, g.Acquired)
		require.Positive(t, g.Uptime, "the uptime marker of the slot")
		require.False(t, try(t, write, driver.Request{Key: key, Owner: other, Patience: time.Minute}).Acquired)
		require.False(t, try(t, read, driver.Request{Key: key, Owner: other}).Acquired, "a writer waits")
		require.True(t, try(t, sem, driver.Request{Key: key, Owner: o}).Acquired)
		renewals = append(renewals, driver.Renewal{Key: key, Owner: o, TTL: time.Minute})
	}
	for _, v := range []driver.Backend{read, sem} {
		for i, err := range v.(driver.BatchExpirer).ExpireBatch(ctx, renewals) {
			require.NoError(t, err, "renewal %d", i)
		}
	}
	for _, r := range renewals {
		st, err := read.(driver.Inspector).Inspect(ctx, r.Key)
		require.NoError(t, err)
		require.Len(t, st.Holders, 1)
		require.Greater(t, st.Remaining, 50*time.Second)
		require.NoError(t, write.(driver.Dequeuer).Dequeue(ctx, r.Key, other))
		require.NoError(t, read.Unlock(ctx, r.Key, o))
		wg := try(t, write, driver.Request{Key: r.Key, Owner: other})
		require.True(t, wg.Acquired)
		require.NoError(t, write.(driver.Fencer).Fence(ctx, r.Key, other, wg.Token+1))
		held, err := sem.(driver.ForceUnlocker).ForceUnlock(ctx, r.Key)
		require.NoError(t, err)
		require.True(t, held)
	}
}
