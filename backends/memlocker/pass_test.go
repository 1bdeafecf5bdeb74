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

// turnLog records the turns a WatchTurns watcher hears.
type turnLog struct {
	turns chan driver.Turn
}

// watchTurns records the turns of key to owner that c hears.
func watchTurns(t *testing.T, c *memlocker.Client, key, owner string) *turnLog {
	t.Helper()
	l := &turnLog{turns: make(chan driver.Turn, 16)}
	stop, err := c.WatchTurns(context.Background(), key, owner, func(turn driver.Turn) { l.turns <- turn })
	require.NoError(t, err)
	t.Cleanup(stop)
	return l
}

// take returns what was heard so far.
func (l *turnLog) take() []driver.Turn {
	var ts []driver.Turn
	for {
		select {
		case turn := <-l.turns:
			ts = append(ts, turn)
		default:
			return ts
		}
	}
}

func TestPassByTheStoresClock(t *testing.T) {
	ctx := context.Background()
	clock := memlocker.NewManualClock(time.Unix(1e9, 0))
	c := memlocker.New(memlocker.WithClock(clock), memlocker.WithGranularity(time.Second))
	heard := watchTurns(t, c, "k", "c")
	var plain heardLog
	stop, err := c.WatchTurn(ctx, "k", "c", plain.hearTurn("c"))
	require.NoError(t, err)
	defer stop()

	a, err := c.TryLock(ctx, driver.Request{Key: "k", Owner: "a", TTL: time.Minute})
	require.NoError(t, err)
	require.NoError(t, c.Leave(ctx, "k", "c", time.Minute))
	clock.Advance(time.Minute - time.Nanosecond)
	next := driver.Successor{Owner: "c", TTL: 1500 * time.Millisecond, Patience: time.Second, Floor: 40}
	require.NoError(t, c.UnlockTo(ctx, "k", "a", a.Token, next))
	assert.Empty(t, heard.take(), "c left the key a minute ago, less a nanosecond")
	st, err := c.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.False(t, st.Held, "a release naming a waiter that left frees the key")

	a, err = c.TryLock(ctx, driver.Request{Key: "k", Owner: "a", TTL: time.Minute})
	require.NoError(t, err)
	clock.Advance(time.Nanosecond)
	require.NoError(t, c.UnlockTo(ctx, "k", "a", a.Token, next))
	assert.Equal(t, []driver.Turn{{
		Grant: driver.Grant{Acquired: true, Holds: 1, Token: 40}, Floor: 40, Passed: true,
	}}, heard.take(), "c's mark lapsed by the store's clock: the release grants c the key, with its floor as token")
	assert.Equal(t, []string{"c#40"}, plain.take(), "WatchTurn hears the grant of a named waiter too")
	st, err = c.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, driver.State{Held: true, Owner: "c", Holds: 1, Remaining: 2 * time.Second, Token: 40}, st,
		"the named grant's lease is rounded up as every lease is")

	// The counter moved with the named grant's token.
	require.NoError(t, c.Unlock(ctx, "k", "c"))
	g, err := c.TryLock(ctx, driver.Request{Key: "k", Owner: "d", TTL: time.Minute})
	require.NoError(t, err)
	assert.Equal(t, uint64(41), g.Token)
}

func TestPassFaults(t *testing.T) {
	ctx := context.Background()
	store := memlocker.NewStore()
	holder, waiter := store.Client(), store.Client()
	heard := watchTurns(t, waiter, "k", "c")
	a, err := holder.TryLock(ctx, driver.Request{Key: "k", Owner: "a", TTL: time.Minute})
	require.NoError(t, err)
	next := driver.Successor{Owner: "c", TTL: time.Minute, Patience: time.Minute}

	holder.FailNext(1, nil)
	require.ErrorIs(t, holder.UnlockTo(ctx, "k", "a", a.Token, next), memlocker.ErrInjected)
	holder.Partition()
	require.ErrorIs(t, holder.UnlockTo(ctx, "k", "a", a.Token, next), memlocker.ErrPartitioned)
	holder.Heal()
	st, err := holder.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.Equal(t, "a", st.Owner, "releases that did not run left a's hold")

	waiter.Partition()
	require.NoError(t, holder.UnlockTo(ctx, "k", "a", a.Token, next))
	assert.Empty(t, heard.take(), "a partitioned client hears nothing")
	waiter.Heal()
	assert.Equal(t, []driver.Turn{{}}, heard.take(), "healing tells the watcher to look again, with a zero Turn")

	waiter.TimeoutNext(1)
	require.ErrorIs(t, waiter.Leave(ctx, "k", "c", time.Minute), memlocker.ErrTimeout)
	st, err = holder.Inspect(ctx, "k")
	require.NoError(t, err)
	assert.False(t, st.Held, "the timed-out Leave ran and gave back c's grant")
	a, err = holder.TryLock(ctx, driver.Request{Key: "k", Owner: "a", TTL: time.Minute})
	require.NoError(t, err)
	require.NoError(t, holder.UnlockTo(ctx, "k", "a", a.Token, next))
	assert.Empty(t, heard.take(), "the timed-out Leave marked c")

	assert.Equal(t, 4, holder.Calls("unlock"), "UnlockTo counts as Unlock")
	assert.Equal(t, 1, waiter.Calls("dequeue"), "Leave counts as Dequeue")
	assert.Equal(t, 1, waiter.Calls("watchturn"), "WatchTurns counts as WatchTurn")
}
