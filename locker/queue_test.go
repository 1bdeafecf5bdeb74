package locker_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/locker"
)

// queued reports whether a waiter on client c has joined the queue and is
// asleep: its first attempt joined, and its second, made once it had
// subscribed to its turn, was refused too.
func queued(c *memlocker.Client) func() bool {
	return func() bool { return c.Calls("trylockqueued") >= 2 }
}

func TestQueuedWaitersAreServedInArrivalOrder(t *testing.T) {
	ctx := context.Background()
	store := memlocker.NewStore()
	holder, err := newMutex(t, store.Client(), "k").Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)

	const waiters = 5
	var (
		mu    sync.Mutex
		order []int
		wg    sync.WaitGroup
	)
	for i := range waiters {
		c := store.Client() // a client each, as processes would have
		m := newMutex(t, c, "k")
		wg.Go(func() {
			l, err := m.Lock(ctx, locker.WithLease(time.Minute))
			if !assert.NoError(t, err) {
				return
			}
			mu.Lock()
			order = append(order, i)
			mu.Unlock()
			assert.Equal(t, 1, l.Holds())
			assert.NoError(t, l.Unlock(ctx))
		})
		require.Eventually(t, queued(c), 5*time.Second, time.Millisecond, "waiter %d did not join the queue", i)
	}
	require.NoError(t, holder.Unlock(ctx))
	wg.Wait()
	assert.Equal(t, []int{0, 1, 2, 3, 4}, order, "waiters must get the lock in the order they asked")
}

// waitBehind starts a Mutex on a client of store of its own waiting for
// the lock "k", and returns once it has joined the queue: its client, the
// Mutex, and where its Lease arrives (why names the wait, should it fail).
func waitBehind(t *testing.T, store *memlocker.Store, why string) (*memlocker.Client, *locker.Mutex, <-chan *locker.Lease) {
	t.Helper()
	c := store.Client()
	m := newMutex(t, c, "k")
	got := make(chan *locker.Lease, 1)
	go func() {
		l, err := m.Lock(context.Background(), locker.WithLease(time.Minute))
		assert.NoError(t, err, why)
		got <- l
	}()
	require.Eventually(t, queued(c), 5*time.Second, time.Millisecond)
	return c, m, got
}

func TestAWaiterHoldsTheLockFromItsGrant(t *testing.T) {
	ctx := context.Background()
	store := memlocker.NewStore()
	holder, err := newMutex(t, store.Client(), "k").Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)

	c, m, got := waitBehind(t, store, "the waiter")
	require.NoError(t, holder.Unlock(ctx))
	l := <-got
	require.NotNil(t, l)
	assert.Equal(t, 2, c.Calls("trylockqueued"), "the release's grant is the lock: no attempt after it")
	assert.Zero(t, c.Calls("trylock"))
	st, err := m.Inspect(ctx)
	require.NoError(t, err)
	assert.Equal(t, m.Owner(), st.Owner)
	assert.Equal(t, st.Token, l.Token(), "the lease has the grant's token")
	assert.Greater(t, l.Token(), holder.Token())
	assert.Greater(t, st.Remaining, 50*time.Second, "the grant has the lease the waiter asked for")
	require.NoError(t, l.Unlock(ctx))
	held, err := m.IsLocked(ctx)
	require.NoError(t, err)
	assert.False(t, held, "a grant is one hold: one Unlock frees the lock")
}

func TestWaiterThatGivesUpLeavesTheQueue(t *testing.T) {
	ctx := context.Background()
	store := memlocker.NewStore()
	holder, err := newMutex(t, store.Client(), "k").Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	c := store.Client()
	_, err = newMutex(t, c, "k").Lock(ctx, locker.WithWait(100*time.Millisecond))
	require.ErrorIs(t, err, locker.ErrNotAcquired)
	assert.Equal(t, 1, c.Calls("dequeue"))

	// The release then frees the lock instead of reserving it for a waiter
	// that has gone.
	require.NoError(t, holder.Unlock(ctx))
	held, err := newMutex(t, store.Client(), "k").IsLocked(ctx)
	require.NoError(t, err)
	assert.False(t, held)
}

func TestWaiterRidesOutALostReplyAndGivesBackItsExtraHold(t *testing.T) {
	ctx := context.Background()
	store := memlocker.NewStore()
	holder, err := newMutex(t, store.Client(), "k").Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)

	c, m, got := waitBehind(t, store, "a lost reply in the middle of a wait must not end it")
	// The waiter misses the grant's message; woken when its client heals,
	// its next attempt claims the grant but loses its reply.
	c.Partition()
	require.NoError(t, holder.Unlock(ctx))
	c.TimeoutNext(1)
	c.Heal()
	var l *locker.Lease
	select {
	case l = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not get the lock")
	}
	require.NotNil(t, l)
	assert.Equal(t, 1, l.Holds(), "the hold the lost attempt took was given back")
	require.NoError(t, l.Unlock(ctx))
	held, err := m.IsLocked(ctx)
	require.NoError(t, err)
	assert.False(t, held, "one Unlock must free the lock")
}

func TestFirstAttemptFailureEndsTheWaitAtOnce(t *testing.T) {
	ctx := context.Background()
	c := memlocker.New()
	holder, err := newMutex(t, c, "k").Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	defer func() { require.NoError(t, holder.Unlock(ctx)) }()
	c.TimeoutNext(1)
	_, err = newMutex(t, c, "k").Lock(ctx)
	require.ErrorIs(t, err, memlocker.ErrTimeout, "a store that never answered is not waited on")
}

// TestAGrantOfAnEarlierWaitIsNotTaken: the subscription a Mutex's waits
// share keeps the grants it heard; after a restart without persistence the
// store's tokens start over, so the refusals of a later wait report lower
// tokens than that grant, and the wait must still not take it: it is not
// its own, and another owner holds the lock.
func TestAGrantOfAnEarlierWaitIsNotTaken(t *testing.T) {
	ctx := context.Background()
	store := memlocker.NewStore()
	holder, err := newMutex(t, store.Client(), "k").Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	_, m, got := waitBehind(t, store, "the waiter")
	require.NoError(t, holder.Unlock(ctx))
	l := <-got
	require.NotNil(t, l)
	require.NoError(t, l.Unlock(ctx))

	store.Restart()
	other, err := newMutex(t, store.Client(), "k").Lock(ctx, locker.WithLease(time.Minute))
	require.NoError(t, err)
	require.Less(t, other.Token(), l.Token(), "the restarted store's tokens start over")
	// The wait outlasts a refresh of its place in line (at most a
	// second), after which it looks at what its subscription heard.
	_, err = m.Lock(ctx, locker.WithLease(time.Minute), locker.WithWait(1500*time.Millisecond))
	assert.ErrorIs(t, err, locker.ErrNotAcquired, "the grant of the earlier wait is not this wait's")
	require.NoError(t, other.Unlock(ctx))
}
