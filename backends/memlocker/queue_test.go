package memlocker_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// heardLog records what watchers hear, in order.
type heardLog struct {
	mu    sync.Mutex
	heard []string
}

// hear returns a watcher function that records what.
func (l *heardLog) hear(what string) func() {
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.heard = append(l.heard, what)
	}
}

// hearTurn returns a turn watcher that records what, and the token of a
// grant after it.
func (l *heardLog) hearTurn(what string) func(driver.Grant) {
	return func(g driver.Grant) {
		if g.Acquired {
			what = fmt.Sprintf("%s#%d", what, g.Token)
		}
		l.hear(what)()
	}
}

// take returns what was heard since the last take.
func (l *heardLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	h := l.heard
	l.heard = nil
	return h
}

// watchAll records key's releases as "release" and its grants to each of
// owners as that owner and the grant's token.
func watchAll(t *testing.T, c *memlocker.Client, key string, owners ...string) *heardLog {
	t.Helper()
	var l heardLog
	stop, err := c.Watch(context.Background(), key, l.hear("release"))
	require.NoError(t, err)
	t.Cleanup(stop)
	for _, o := range owners {
		stop, err := c.WatchTurn(context.Background(), key, o, l.hearTurn(o))
		require.NoError(t, err)
		t.Cleanup(stop)
	}
	return &l
}

func TestAGrantHasTheWaitersLease(t *testing.T) {
	ctx := context.Background()
	clock := memlocker.NewManualClock(time.Unix(1e9, 0))
	c := memlocker.New(memlocker.WithClock(clock))
	heard := watchAll(t, c, "k", "a", "b")

	a, err := c.TryLock(ctx, driver.Request{Key: "k", Owner: "a", TTL: time.Minute})
	require.NoError(t, err)
	g, err := c.TryLock(ctx, driver.Request{Key: "k", Owner: "b", TTL: 20 * time.Second, Patience: 10 * time.Second})
	require.NoError(t, err)
	assert.Equal(t, driver.Grant{Remaining: time.Minute, Token: a.Token}, g, "a refusal with patience tells the token")
	clock.Advance(4 * time.Second)
	require.NoError(t, c.Unlock(ctx, "k", "a"))
	assert.Equal(t, []string{fmt.Sprintf("b#%d", a.Token+1)}, heard.take(), "only b hears: of its grant, not of a release")
	st, err := c.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, driver.State{Held: true, Owner: "b", Holds: 1, Remaining: 20 * time.Second, Token: a.Token + 1}, st,
		"the grant is one hold with the lease b asked for, not its patience")

	clock.Advance(20 * time.Second)
	g, err = c.TryLock(ctx, driver.Request{Key: "k", Owner: "b", TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, g.Acquired, "the lapsed grant leaves a free key, and nobody waits")
	assert.Equal(t, a.Token+2, g.Token)
	assert.Empty(t, heard.take(), "taking a free key with nobody in line tells nobody")
}

func TestQueueFaults(t *testing.T) {
	ctx := context.Background()
	store := memlocker.NewStore()
	holder, waiter := store.Client(), store.Client()
	heard := watchAll(t, holder, "k", "b", "c")
	_, err := holder.TryLock(ctx, driver.Request{Key: "k", Owner: "a", TTL: time.Minute})
	require.NoError(t, err)

	waiter.FailNext(1, nil)
	_, err = waiter.TryLock(ctx, driver.Request{Key: "k", Owner: "b", TTL: time.Minute, Patience: time.Minute})
	require.ErrorIs(t, err, memlocker.ErrInjected)
	waiter.TimeoutNext(1)
	_, err = waiter.TryLock(ctx, driver.Request{Key: "k", Owner: "c", TTL: time.Minute, Patience: time.Minute})
	require.ErrorIs(t, err, memlocker.ErrTimeout)
	require.NoError(t, holder.Unlock(ctx, "k", "a"))
	assert.Equal(t, []string{"c#2"}, heard.take(), "the failed call must not have queued b; the timed-out one queued c")

	waiter.TimeoutNext(1)
	require.ErrorIs(t, waiter.Dequeue(ctx, "k", "c"), memlocker.ErrTimeout)
	assert.Equal(t, []string{"release"}, heard.take(), "the timed-out Dequeue ran and freed the key")
	waiter.FailNext(1, nil)
	_, err = waiter.WatchTurn(ctx, "k", "b", func(driver.Grant) {})
	require.ErrorIs(t, err, memlocker.ErrInjected)
	assert.Equal(t, 2, waiter.Calls("trylockqueued"))
	assert.Equal(t, 1, waiter.Calls("dequeue"))
	assert.Equal(t, 1, waiter.Calls("watchturn"))
}

func TestTurnWatchAcrossPartitionAndRestart(t *testing.T) {
	ctx := context.Background()
	store := memlocker.NewStore()
	c, other := store.Client(), store.Client()
	var heard heardLog
	stop, err := c.WatchTurn(ctx, "k", "b", heard.hearTurn("b"))
	require.NoError(t, err)
	defer stop()

	_, err = other.TryLock(ctx, driver.Request{Key: "k", Owner: "a", TTL: time.Minute})
	require.NoError(t, err)
	_, err = other.TryLock(ctx, driver.Request{Key: "k", Owner: "b", TTL: time.Minute, Patience: time.Minute})
	require.NoError(t, err)
	c.Partition()
	require.NoError(t, other.Unlock(ctx, "k", "a"))
	assert.Empty(t, heard.take(), "a partitioned client hears nothing")
	c.Heal()
	assert.Equal(t, []string{"b"}, heard.take(), "healing tells the watcher to look again")

	_, err = other.TryLock(ctx, driver.Request{Key: "k", Owner: "c", TTL: time.Minute, Patience: time.Minute})
	require.NoError(t, err)
	store.Restart()
	assert.Equal(t, []string{"b"}, heard.take(), "a restart tells the watcher to look again")
	g, err := other.TryLock(ctx, driver.Request{Key: "k", Owner: "d", TTL: time.Minute})
	require.NoError(t, err)
	assert.True(t, g.Acquired, "the restart lost b's grant and c's place in line")
	require.NoError(t, other.Unlock(ctx, "k", "d"))

	require.NoError(t, c.Close())
	_, err = c.WatchTurn(ctx, "k", "b", func(driver.Grant) {})
	assert.ErrorIs(t, err, locker.ErrClosed)
	_, err = c.TryLock(ctx, driver.Request{Key: "k", Owner: "b", TTL: time.Minute, Patience: time.Minute})
	assert.ErrorIs(t, err, locker.ErrClosed)
	assert.ErrorIs(t, c.Dequeue(ctx, "k", "b"), locker.ErrClosed)
	_, err = other.TryLock(ctx, driver.Request{Key: "k", Owner: "e", TTL: time.Minute})
	require.NoError(t, err)
	_, err = other.TryLock(ctx, driver.Request{Key: "k", Owner: "b", TTL: time.Minute, Patience: time.Minute})
	require.NoError(t, err)
	require.NoError(t, other.Unlock(ctx, "k", "e"))
	assert.Empty(t, heard.take(), "Close stops the client's turn watchers")
}
