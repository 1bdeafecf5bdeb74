package redlock_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/quorumtest"
	"github.com/distlock/distlock/multilock"
	"github.com/distlock/distlock/redlock"
)

var (
	readShare  = driver.Share{Mode: driver.Read}
	writeShare = driver.Share{Mode: driver.Write}
)

// owners lists the owners of holders, in order.
func owners(hs []driver.Holder) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Owner+" "+h.Mode.String())
	}
	return out
}

// TestSharedWithMemberDown: through a RedLock of three stores, one cut
// off, readers share the lock and a writer excludes them; the cleanup of a
// refused attempt leaves the other mode's holds alone.
func TestSharedWithMemberDown(t *testing.T) {
	ctx := context.Background()
	stores, cs, rl := memRL(t, 3)
	cs[2].Partition()
	read, write := quorumtest.View(t, rl, readShare), quorumtest.View(t, rl, writeShare)
	members := stores.Views(t, readShare)

	require.True(t, quorumtest.Try(t, read, "k", "r1", 0).Acquired)
	require.True(t, quorumtest.Try(t, read, "k", "r2", 0).Acquired, "readers share")
	g := quorumtest.Try(t, write, "k", "w", 0)
	assert.False(t, g.Acquired, "a writer waits for the readers")
	assert.Positive(t, g.Remaining)
	st := quorumtest.Inspect(t, read, "k")
	assert.True(t, st.Held)
	assert.Equal(t, []string{"r1 read", "r2 read"}, owners(st.Holders))
	for i := range 2 {
		assert.Equal(t, []string{"r1 read", "r2 read"}, owners(quorumtest.Inspect(t, members[i], "k").Holders),
			"store %d: the writer's cleanup dropped a reader", i)
	}

	require.NoError(t, read.Unlock(ctx, "k", "r1"))
	require.NoError(t, read.Unlock(ctx, "k", "r2"))
	require.True(t, quorumtest.Try(t, write, "k", "w", 0).Acquired)
	assert.False(t, quorumtest.Try(t, read, "k", "r3", 0).Acquired, "a writer excludes readers")
	assert.False(t, quorumtest.Try(t, write, "k", "w2", 0).Acquired, "and writers")
	st = quorumtest.Inspect(t, read, "k")
	assert.Equal(t, "w", st.Owner)
	assert.Equal(t, []string{"w write"}, owners(st.Holders), "the refused reader's cleanup left the writer alone")
	require.NoError(t, write.Unlock(ctx, "k", "w"))
}

// TestSharedWriterPreference: a writer that waits keeps new readers out
// through the quorum, not the readers in, and gets the lock when they
// leave; a downgrade keeps a read hold without a gap.
func TestSharedWriterPreference(t *testing.T) {
	ctx := context.Background()
	_, cs, rl := memRL(t, 3)
	cs[0].Partition()
	read, write := quorumtest.View(t, rl, readShare), quorumtest.View(t, rl, writeShare)

	require.True(t, quorumtest.Try(t, read, "k", "r1", 0).Acquired)
	require.False(t, quorumtest.Try(t, write, "k", "w", time.Minute).Acquired)
	assert.False(t, quorumtest.Try(t, read, "k", "r2", 0).Acquired, "a waiting writer keeps new readers out")
	assert.True(t, quorumtest.Try(t, read, "k", "r1", 0).Acquired, "a reader re-enters")
	require.NoError(t, read.Unlock(ctx, "k", "r1"))
	require.NoError(t, read.Unlock(ctx, "k", "r1"))
	require.True(t, quorumtest.Try(t, write, "k", "w", time.Minute).Acquired)

	g := quorumtest.Try(t, read, "k", "w", 0)
	require.True(t, g.Acquired, "the writer takes the read hold it covers")
	assert.Equal(t, 1, g.Holds)
	require.NoError(t, write.Unlock(ctx, "k", "w"))
	assert.True(t, quorumtest.Try(t, read, "k", "r2", 0).Acquired, "readers share with the downgraded writer")
	assert.False(t, quorumtest.Try(t, write, "k", "w2", 0).Acquired)
	assert.Equal(t, []string{"r2 read", "w read"}, owners(quorumtest.Inspect(t, read, "k").Holders))
}

// TestSharedSemaphoreBound: a majority of semaphores that lets more holders
// in than the limit is refused; one whose holds each take more than half
// the permits is allowed and bounded, with a member down.
func TestSharedSemaphoreBound(t *testing.T) {
	stores, cs, rl := memRL(t, 3)
	_, err := rl.(driver.Sharer).Share(driver.Share{Mode: driver.Permits, Limit: 2, Permits: 1})
	require.ErrorIs(t, err, driver.ErrInvalid)
	assert.ErrorIs(t, err, errors.ErrUnsupported, "and a kind of semaphore the RedLock cannot keep")
	assert.ErrorContains(t, err, "floor(3×2/2) = 3 holders")
	assert.ErrorContains(t, err, "MultiLock")

	// The hazard: three holders of one permit of two, each on a majority.
	members := stores.Views(t, driver.Share{Mode: driver.Permits, Limit: 2, Permits: 1})
	for owner, on := range map[string][]int{"A": {0, 1}, "B": {0, 2}, "C": {1, 2}} {
		for _, i := range on {
			require.True(t, quorumtest.Try(t, members[i], "other", owner, 0).Acquired, "%s on store %d", owner, i)
		}
	}

	cs[1].Partition()
	big := quorumtest.View(t, rl, driver.Share{Mode: driver.Permits, Limit: 3, Permits: 2})
	bigger := quorumtest.View(t, rl, driver.Share{Mode: driver.Permits, Limit: 3, Permits: 3})
	a := quorumtest.Try(t, big, "s", "A", 0)
	require.True(t, a.Acquired)
	assert.False(t, quorumtest.Try(t, big, "s", "B", 0).Acquired, "two holds of two permits do not fit three")
	assert.False(t, quorumtest.Try(t, bigger, "s", "C", 0).Acquired)
	st := quorumtest.Inspect(t, big, "s")
	assert.Equal(t, 3, st.Limit)
	assert.Equal(t, []driver.Holder{{Owner: "A", Mode: driver.Permits, Holds: 1, Permits: 2, Remaining: st.Holders[0].Remaining, Token: a.Token}}, st.Holders)
	require.NoError(t, big.Unlock(context.Background(), "s", "A"))
	assert.True(t, quorumtest.Try(t, bigger, "s", "C", 0).Acquired)
}

// TestSharedTokens: the members' tokens agree on every hold a RedLock
// hands out, whichever member's counter ran ahead; a read carries the last
// write's token, and the next write rises past any read.
func TestSharedTokens(t *testing.T) {
	ctx := context.Background()
	stores, _, rl := memRL(t, 3)
	ahead := uint64(time.Now().Add(time.Hour).UnixMicro())
	// runAhead moves store i's counter of key to floor, as a write (or an
	// acquisition) that reached that store alone would.
	runAhead := func(members []driver.Backend, i int, key string, floor uint64) {
		g, err := members[i].TryLock(ctx, driver.Request{Key: key, Owner: "stray", TTL: time.Minute, Floor: floor})
		require.NoError(t, err)
		require.Equal(t, floor, g.Token)
		require.NoError(t, members[i].Unlock(ctx, key, "stray"))
	}
	agree := func(members []driver.Backend, key string, token uint64) {
		t.Helper()
		for i, m := range members {
			assert.Equal(t, token, quorumtest.Inspect(t, m, key).Token, "store %d", i)
		}
	}
	// cycle takes key on v for owner and gives it back; the grant it
	// returns must have acquired.
	cycle := func(v driver.Backend, key, owner string) driver.Grant {
		t.Helper()
		g := quorumtest.Try(t, v, key, owner, 0)
		require.True(t, g.Acquired)
		require.NoError(t, v.Unlock(ctx, key, owner))
		return g
	}
	writes := stores.Views(t, writeShare)
	read, write := quorumtest.View(t, rl, readShare), quorumtest.View(t, rl, writeShare)

	runAhead(writes, 0, "k", ahead)
	w := cycle(write, "k", "w")
	assert.Equal(t, ahead+1, w.Token, "the highest of the members")
	agree(writes, "k", w.Token)
	assert.Equal(t, w.Token, cycle(read, "k", "r").Token, "a read carries the last write's token")

	runAhead(writes, 2, "k", ahead+100)
	r := cycle(read, "k", "r")
	assert.Equal(t, ahead+100, r.Token, "the read quorum's highest counter")
	agree(writes, "k", r.Token)
	assert.Greater(t, cycle(write, "k", "w2").Token, r.Token, "the next write rises past every read")

	share := driver.Share{Mode: driver.Permits, Limit: 3, Permits: 2}
	sems := stores.Views(t, share)
	sem := quorumtest.View(t, rl, share)
	runAhead(sems, 1, "s", ahead+500)
	a := cycle(sem, "s", "A")
	assert.Equal(t, ahead+501, a.Token)
	agree(sems, "s", a.Token)
	b := cycle(sem, "s", "B")
	assert.Greater(t, b.Token, a.Token, "an acquisition after another's rises past it")
	agree(sems, "s", b.Token)
}

// TestSharedNested: a RedLock of a MultiLock and two stores shares through
// the MultiLock's own views, and a combinator that holds an unsafe
// semaphore view refuses it, naming the member.
func TestSharedNested(t *testing.T) {
	ctx := context.Background()
	stores := quorumtest.NewMem(4)
	cs := stores.Clients()
	ml, err := multilock.New([]driver.Backend{cs[0], cs[1]})
	require.NoError(t, err)
	rl := newRL(t, []driver.Backend{ml, cs[2], cs[3]})
	read, write := quorumtest.View(t, rl, readShare), quorumtest.View(t, rl, writeShare)
	cs[3].Partition()

	require.True(t, quorumtest.Try(t, read, "k", "r1", 0).Acquired)
	require.True(t, quorumtest.Try(t, read, "k", "r2", 0).Acquired)
	assert.False(t, quorumtest.Try(t, write, "k", "w", 0).Acquired)
	for i, m := range stores.Views(t, readShare)[:3] {
		assert.Equal(t, []string{"r1 read", "r2 read"}, owners(quorumtest.Inspect(t, m, "k").Holders), "store %d", i)
	}
	require.NoError(t, read.Unlock(ctx, "k", "r1"))
	require.NoError(t, read.Unlock(ctx, "k", "r2"))
	g := quorumtest.Try(t, write, "k", "w", 0)
	require.True(t, g.Acquired)
	assert.Equal(t, "w", quorumtest.Inspect(t, write, "k").Owner)
	require.NoError(t, write.Close())
	_, err = cs[0].TryLock(ctx, driver.Request{Key: "k", Owner: "o", TTL: time.Minute})
	assert.ErrorIs(t, err, driver.ErrClosed, "the view's Close closed the nested MultiLock's members")

	inner := newRL(t, quorumtest.Backends(quorumtest.NewMem(3).Clients()))
	outer, err := multilock.New([]driver.Backend{memlocker.New(), inner})
	require.NoError(t, err)
	defer outer.Close()
	_, err = outer.(driver.Sharer).Share(driver.Share{Mode: driver.Permits, Limit: 2, Permits: 1})
	require.ErrorIs(t, err, driver.ErrInvalid)
	assert.ErrorContains(t, err, "member 2 (redlock(")
	v := quorumtest.View(t, outer, driver.Share{Mode: driver.Permits, Limit: 2, Permits: 2})
	assert.True(t, quorumtest.Try(t, v, "s", "A", 0).Acquired)
}

// TestSharedUnsupportedMember: a member that cannot share (as memcached
// cannot) makes Share fail with errors.ErrUnsupported, naming it.
func TestSharedUnsupportedMember(t *testing.T) {
	stores := quorumtest.NewMem(3)
	for _, hidden := range []driver.Backend{
		quorumtest.Bare{Backend: stores.Store(1).Client()},
		quorumtest.NewHooked(stores.Store(1)),
	} {
		rl, err := redlock.New([]driver.Backend{stores.Store(0).Client(), hidden, stores.Store(2).Client()})
		require.NoError(t, err)
		_, err = rl.(driver.Sharer).Share(readShare)
		require.ErrorIs(t, err, errors.ErrUnsupported)
		assert.ErrorContains(t, err, "member 2 (")
		require.NoError(t, rl.Close())
	}
}

// TestSharedRestartGuard: a store that restarts forgets its readers, as it
// forgets a mutex's owner; the restart guard keeps it from letting a
// writer in while they hold the lock on the others.
func TestSharedRestartGuard(t *testing.T) {
	clock := memlocker.NewManualClock(epoch)
	stores := quorumtest.NewMem(3, memlocker.WithClock(clock))
	cs := stores.Clients()
	cs[2].Partition()
	readers := newRL(t, quorumtest.Backends(cs), combine.WithClock(clock))
	require.True(t, quorumtest.Try(t, quorumtest.View(t, readers, readShare), "k", "r", 0).Acquired, "on stores 0 and 1")

	stores.Store(0).Restart()
	clock.Advance(time.Second)
	writer := newRL(t, quorumtest.Backends(stores.Clients()), combine.WithClock(clock))
	_, err := quorumtest.View(t, writer, writeShare).TryLock(context.Background(),
		driver.Request{Key: "k", Owner: "w", TTL: 10 * time.Second})
	require.ErrorIs(t, err, driver.ErrUnavailable)
	assert.ErrorContains(t, err, "restart guard")

	unguarded := newRL(t, quorumtest.Backends(stores.Clients()), combine.WithClock(clock), combine.WithRestartGuard(0))
	assert.True(t, quorumtest.Try(t, quorumtest.View(t, unguarded, writeShare), "k", "w", 0).Acquired,
		"the hazard: without the guard a writer gets in while the reader holds the lock")
}
