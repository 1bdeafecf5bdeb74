package quorum

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// TestEveryTypeShares: each of the eight types a combinator comes as is a
// driver.Sharer and a driver.Dequeuer, and its Share names the member that
// cannot share (the mem clients of `only` pass no Share).
func TestEveryTypeShares(t *testing.T) {
	full := memlocker.New
	for mask := range 8 {
		lacking := only{notify: mask&1 != 0, inspect: mask&2 != 0, force: mask&4 != 0}
		t.Run(fmt.Sprintf("%+v", lacking), func(t *testing.T) {
			members := []driver.Backend{full(), lacking.member(), full()}
			for _, kind := range []Kind{All, Majority} {
				b, err := New(kind, members, DefaultSettings(kind))
				require.NoError(t, err)
				t.Cleanup(func() { _ = b.Close() })
				sharer, ok := b.(driver.Sharer)
				require.True(t, ok, "%T is no Sharer", b)
				_, ok = b.(driver.Dequeuer)
				assert.True(t, ok, "%T is no Dequeuer", b)
				_, err = sharer.Share(driver.Share{Mode: driver.Read})
				require.ErrorIs(t, err, errors.ErrUnsupported)
				assert.ErrorContains(t, err, "member 2 (")
			}
		})
	}
}

// TestShareView: a view is the combinator of the members' views, made once
// per Share; bad input and a view's own Share are refused; and a view's
// Close is its combinator's, which closes the members and every view.
func TestShareView(t *testing.T) {
	ctx := context.Background()
	members := []driver.Backend{memlocker.New(), memlocker.New(), memlocker.New()}
	b, err := New(Majority, members, DefaultSettings(Majority))
	require.NoError(t, err)
	sharer := b.(driver.Sharer)

	_, err = sharer.Share(driver.Share{Mode: driver.Read, Limit: 2})
	assert.ErrorIs(t, err, driver.ErrInvalid)
	_, err = sharer.Share(driver.Share{Mode: driver.Permits, Limit: 2, Permits: 3})
	assert.ErrorIs(t, err, driver.ErrInvalid)

	read, err := sharer.Share(driver.Share{Mode: driver.Read})
	require.NoError(t, err)
	again, err := sharer.Share(driver.Share{Mode: driver.Read})
	require.NoError(t, err)
	assert.Same(t, core(read), core(again), "one view per Share")
	write, err := sharer.Share(driver.Share{Mode: driver.Write})
	require.NoError(t, err)
	assert.NotSame(t, core(read), core(write))
	assert.Contains(t, fmt.Sprint(read), "[read]")
	_, notifies := read.(driver.Notifier)
	_, inspects := read.(driver.Inspector)
	_, forces := read.(driver.ForceUnlocker)
	assert.True(t, notifies && inspects && forces, "a view has what its members' views have")
	_, err = read.(driver.Sharer).Share(driver.Share{Mode: driver.Write})
	assert.ErrorIs(t, err, errors.ErrUnsupported, "a view has no views")

	g, err := read.TryLock(ctx, driver.Request{Key: "k", Owner: "r", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	st, err := members[0].(driver.Inspector).Inspect(ctx, "k")
	require.NoError(t, err)
	assert.False(t, st.Held, "the mutex k is another lock")

	require.NoError(t, write.Close())
	_, err = b.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	assert.ErrorIs(t, err, driver.ErrClosed, "the view's Close closed the combinator")
	_, err = read.TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	assert.ErrorIs(t, err, driver.ErrClosed, "and its other views")
	assert.ErrorIs(t, read.Unlock(ctx, "k", "r"), driver.ErrClosed)
	_, err = members[1].TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	assert.ErrorIs(t, err, driver.ErrClosed, "and its members")
	_, err = sharer.Share(driver.Share{Mode: driver.Read})
	assert.ErrorIs(t, err, driver.ErrClosed)
	assert.NoError(t, read.Close(), "Close again returns the first result")
}

// TestShareKeys: a multi-key combinator's view holds each member's own key,
// in the shared locks' namespace.
func TestShareKeys(t *testing.T) {
	ctx := context.Background()
	a, c := memlocker.New(), memlocker.New()
	mk, err := NewKeys(All, []Member{{a, "a"}, {c, "c"}}, DefaultSettings(All))
	require.NoError(t, err)
	defer mk.Close()
	read, err := mk.(driver.Sharer).Share(driver.Share{Mode: driver.Read})
	require.NoError(t, err)
	g, err := read.TryLock(ctx, driver.Request{Key: "ignored", Owner: "r", TTL: time.Minute})
	require.NoError(t, err)
	require.True(t, g.Acquired)
	write, err := c.Share(driver.Share{Mode: driver.Write})
	require.NoError(t, err)
	g, err = write.TryLock(ctx, driver.Request{Key: "c", Owner: "w", TTL: time.Minute})
	require.NoError(t, err)
	assert.False(t, g.Acquired, "the reader holds c on its store")
	require.NoError(t, read.Unlock(ctx, "ignored", "r"))
	require.NoError(t, read.Close())
	_, err = a.TryLock(ctx, driver.Request{Key: "a", Owner: "o", TTL: time.Minute})
	assert.NoError(t, err, "a multi-key view closes nothing of the stores")
}

// TestDequeueView: a writer that waits through the view keeps new readers
// out of every member until it leaves (Dequeue), and a combinator whose
// members keep no list has nothing to leave.
func TestDequeueView(t *testing.T) {
	ctx := context.Background()
	b, err := New(Majority, []driver.Backend{memlocker.New(), memlocker.New(), memlocker.New()}, DefaultSettings(Majority))
	require.NoError(t, err)
	defer b.Close()
	view := func(s driver.Share) driver.Backend {
		v, err := b.(driver.Sharer).Share(s)
		require.NoError(t, err)
		return v
	}
	read, write := view(driver.Share{Mode: driver.Read}), view(driver.Share{Mode: driver.Write})
	try := func(v driver.Backend, owner string, patience time.Duration) bool {
		g, err := v.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute, Patience: patience})
		require.NoError(t, err)
		return g.Acquired
	}
	require.True(t, try(read, "r1", 0))
	require.False(t, try(write, "w", time.Minute), "a reader holds it")
	assert.False(t, try(read, "r2", 0), "a writer waits on every member")
	assert.True(t, try(read, "r1", 0), "a reader re-enters past a waiting writer")
	require.NoError(t, write.(driver.Dequeuer).Dequeue(ctx, "k", "w"))
	assert.True(t, try(read, "r2", 0), "the writer left")

	assert.ErrorIs(t, write.(driver.Dequeuer).Dequeue(ctx, "k", ""), driver.ErrInvalid)
	assert.NoError(t, b.(driver.Dequeuer).Dequeue(ctx, "k", "w"), "a combinator of mutexes keeps no list")
	sem := view(driver.Share{Mode: driver.Permits, Limit: 1, Permits: 1})
	assert.NoError(t, sem.(driver.Dequeuer).Dequeue(ctx, "k", "w"), "nor does a majority's semaphore")
}
