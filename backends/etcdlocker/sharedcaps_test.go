package etcdlocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/etcdtest"
)

// heard waits for a call on ch.
func heard(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("no watcher call for %s", what)
	}
}

// A view's watchers hear of whatever may let a refused attempt in: a hold
// that ends (Unlock, ForceUnlock, expiry) and a waiter that leaves; not of
// acquisitions. The read and write views watch the same lock.
func TestShareWatch(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b, other := newBackend(t, c), newBackend(t, c)
	r, w := view(t, b, readShare), view(t, other, writeShare)
	calls := make(chan struct{}, 16)
	stop, err := r.(driver.Notifier).Watch(ctx, "k", func() { calls <- struct{}{} })
	require.NoError(t, err)
	defer stop()

	require.True(t, mustTry(ctx, t, w, request("k", "w")).Acquired)
	require.True(t, mustTry(ctx, t, w, request("k", "w")).Acquired)
	require.NoError(t, w.Unlock(ctx, "k", "w"))
	require.NoError(t, w.Unlock(ctx, "k", "w"))
	heard(t, calls, "an unlock")
	assert.Empty(t, calls, "acquiring and re-entering free nothing")

	require.True(t, mustTry(ctx, t, view(t, other, readShare), request("k", "r")).Acquired)
	waiting := request("k", "w")
	waiting.Patience = 10 * time.Second
	require.False(t, mustTry(ctx, t, w, waiting).Acquired)
	require.NoError(t, w.(driver.Dequeuer).Dequeue(ctx, "k", "w"))
	heard(t, calls, "a waiter leaving")
	held, err := w.(driver.ForceUnlocker).ForceUnlock(ctx, "k")
	require.NoError(t, err)
	assert.True(t, held)
	heard(t, calls, "a force unlock")

	short := request("k", "r")
	short.TTL = time.Second
	require.True(t, mustTry(ctx, t, r, short).Acquired)
	heard(t, calls, "an expiry")

	other2 := view(t, other, writeShare)
	stop()
	require.True(t, mustTry(ctx, t, other2, request("k", "w")).Acquired)
	require.NoError(t, other2.Unlock(ctx, "k", "w"))
	assert.Empty(t, calls, "a stopped watcher was called")
}

// ForceUnlock ends every hold in every mode and reports whether there was
// one; waiters keep their places.
func TestShareForceUnlock(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b := newBackend(t, c)
	sem := view(t, b, permits(1, 2))
	require.True(t, mustTry(ctx, t, sem, request("s", "a")).Acquired)
	require.True(t, mustTry(ctx, t, sem, request("s", "b")).Acquired)
	waiting := request("s", "w")
	waiting.Patience = 10 * time.Second
	require.False(t, mustTry(ctx, t, sem, waiting).Acquired)
	held, err := sem.(driver.ForceUnlocker).ForceUnlock(ctx, "s")
	require.NoError(t, err)
	assert.True(t, held)
	assert.ErrorIs(t, sem.Unlock(ctx, "s", "a"), driver.ErrNotHeld)
	assert.False(t, mustTry(ctx, t, sem, request("s", "x")).Acquired, "the waiter keeps its place")
	assert.True(t, mustTry(ctx, t, sem, waiting).Acquired)
	require.NoError(t, sem.Unlock(ctx, "s", "w"))
	held, err = sem.(driver.ForceUnlocker).ForceUnlock(ctx, "s")
	require.NoError(t, err)
	assert.False(t, held)
}

// Expire renews a hold in the view's mode, moving it off the shared lease
// to one of its own as the mutexes' Expire does, and refuses owners
// without such a hold; ExpireBatch renews each.
func TestShareExpire(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	b := newBackend(t, c)
	r, w := view(t, b, readShare), view(t, b, writeShare)
	short := request("k", "r")
	short.TTL = 2 * time.Second
	require.True(t, mustTry(ctx, t, r, short).Acquired)
	require.NoError(t, r.Expire(ctx, "k", "r", time.Minute))
	assert.ErrorIs(t, w.Expire(ctx, "k", "r", time.Minute), driver.ErrNotHeld, "r holds no write hold")
	errs := r.(driver.BatchExpirer).ExpireBatch(ctx, []driver.Renewal{
		{Key: "k", Owner: "r", TTL: time.Minute},
		{Key: "k", Owner: "nobody", TTL: time.Minute},
		{Key: "", Owner: "r", TTL: time.Minute},
	})
	require.Len(t, errs, 3)
	assert.NoError(t, errs[0])
	assert.ErrorIs(t, errs[1], driver.ErrNotHeld)
	assert.ErrorIs(t, errs[2], driver.ErrInvalid)
	time.Sleep(3 * time.Second) // past the first lease
	st, err := r.(driver.Inspector).Inspect(ctx, "k")
	require.NoError(t, err)
	require.Len(t, st.Holders, 1, "the renewed hold outlived its first lease")
	assert.Greater(t, st.Holders[0].Remaining, 50*time.Second)
	require.NoError(t, r.Unlock(ctx, "k", "r"))
}

// An uncontended read hold, write hold or hold of an unused semaphore
// costs one transaction, as a mutex does, and so does its release; a
// re-entry, a semaphore others hold, or a counter another client moved,
// costs one more (the first transaction reads the lock when refused).
func TestShareCalls(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	clock := newManualClock() // the shared lease stays young
	counter := newCallCounter()
	b := newClientBackend(t, counter.client(t, c), clock.option())
	r, w, sem := view(t, b, readShare), view(t, b, writeShare), view(t, b, permits(1, 2))
	require.True(t, mustTry(ctx, t, b, request("warm", "o")).Acquired, "the shared lease is granted")

	txns := func(what string, want int, f func(context.Context)) {
		t.Helper()
		counter.reset()
		f(critical(ctx))
		assert.Equal(t, map[string]int{txnMethod: want}, counter.critical(), what)
	}
	for _, v := range []driver.Backend{r, w, sem} {
		txns("an uncontended hold", 1, func(ctx context.Context) { require.True(t, mustTry(ctx, t, v, request("k", "o")).Acquired) })
		txns("a re-entry", 2, func(ctx context.Context) { require.True(t, mustTry(ctx, t, v, request("k", "o")).Acquired) })
		txns("an unlock", 2, func(ctx context.Context) {
			require.NoError(t, v.Unlock(ctx, "k", "o"))
			require.NoError(t, v.Unlock(ctx, "k", "o"))
		})
	}
	other := view(t, newBackend(t, c), writeShare)
	require.True(t, mustTry(ctx, t, other, request("k", "p")).Acquired)
	require.NoError(t, other.Unlock(ctx, "k", "p"))
	txns("a write hold after another client's", 2, func(ctx context.Context) { require.True(t, mustTry(ctx, t, w, request("k", "o")).Acquired) })
	require.NoError(t, w.Unlock(ctx, "k", "o"))
	require.True(t, mustTry(ctx, t, r, request("k", "o1")).Acquired)
	txns("a second reader", 1, func(ctx context.Context) { require.True(t, mustTry(ctx, t, r, request("k", "o2")).Acquired) })
	require.True(t, mustTry(ctx, t, sem, request("s", "o1")).Acquired)
	txns("a semaphore others hold", 2, func(ctx context.Context) { require.True(t, mustTry(ctx, t, sem, request("s", "o2")).Acquired) })
}

// Replies lost in the network leave the outcome of a view's calls unknown;
// a partition that lets nothing through is ErrUnavailable.
func TestShareLostReplies(t *testing.T) {
	ctx := testContext(t, time.Minute)
	c := etcdtest.Start(t)
	p := proxied(t, c)
	lb, err := driver.Open(ctx, "etcd://"+p.Addr()+"/?dial_timeout=1s")
	require.NoError(t, err)
	defer lb.Close()
	b := lb.(*etcdlocker.Backend)
	r, sem := view(t, b, readShare), view(t, b, permits(1, 1))
	require.True(t, mustTry(ctx, t, r, request("k", "o")).Acquired)

	p.StallReplies()
	short := func() context.Context { return testContext(t, 700*time.Millisecond) }
	for _, v := range []driver.Backend{r, view(t, b, writeShare), sem} {
		_, err = v.TryLock(short(), request("k", "o2"))
		assertUnknown(t, err, "TryLock")
	}
	assertUnknown(t, r.Unlock(short(), "k", "o"), "Unlock")
	assertUnknown(t, r.Expire(short(), "k", "o", time.Minute), "Expire")
	assertUnknown(t, sem.(driver.Dequeuer).Dequeue(short(), "k", "o"), "Dequeue")
	_, err = r.(driver.Inspector).Inspect(short(), "k")
	assertUnknown(t, err, "Inspect")
	_, err = r.(driver.ForceUnlocker).ForceUnlock(short(), "k")
	assertUnknown(t, err, "ForceUnlock")
	p.Heal()
	require.Eventually(t, func() bool {
		g, err := r.TryLock(ctx, request("k", "o3"))
		return err == nil && g.Acquired
	}, 20*time.Second, 100*time.Millisecond, "the backend must recover after the heal")
}
