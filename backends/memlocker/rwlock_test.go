package memlocker_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
)

func TestRWReadersShareAWriterExcludes(t *testing.T) {
	r := newShareRig(t)
	read, write := r.view(readShare), r.view(writeShare)

	a := r.holds(read, "k", "a", time.Minute)
	b := r.holds(read, "k", "b", 2*time.Minute)
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 1}, a, "a read hold of a lock never written carries token 0")
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 1}, b, "readers share")
	g := r.try(write, "k", "w", time.Minute, 0)
	assert.Equal(t, driver.Grant{Remaining: 2 * time.Minute}, g, "readers keep a writer out; Remaining is the longest read lease")

	ctx := context.Background()
	require.NoError(t, read.Unlock(ctx, "k", "a"))
	require.NoError(t, read.Unlock(ctx, "k", "b"))
	w := r.holds(write, "k", "w", time.Minute)
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 1, Token: 1}, w)
	assert.Equal(t, driver.Grant{Remaining: time.Minute}, r.try(read, "k", "a", time.Minute, 0), "a writer keeps readers out")
	assert.Equal(t, driver.Grant{Remaining: time.Minute}, r.try(write, "k", "v", time.Minute, 0), "a writer keeps writers out")
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 2, Token: 1}, r.try(write, "k", "w", 3*time.Minute, 0), "the writer re-enters")
	assert.Equal(t, 3*time.Minute, r.state(write, "k").Remaining, "re-entry resets the lease")
}

func TestRWNoUpgrade(t *testing.T) {
	r := newShareRig(t)
	read, write := r.view(readShare), r.view(writeShare)
	r.holds(read, "k", "a", time.Minute)
	assert.Equal(t, driver.Grant{Remaining: time.Minute}, r.try(write, "k", "a", time.Minute, 0), "an owner's own read hold keeps its write out")
	require.NoError(t, read.Unlock(context.Background(), "k", "a"))
	assert.True(t, r.try(write, "k", "a", time.Minute, 0).Acquired, "once the read hold is dropped the owner writes")
}

func TestRWDowngrade(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	read, write := r.view(readShare), r.view(writeShare)
	w := r.holds(write, "k", "a", time.Minute)
	// Another writer waits: the owner's read under its write hold goes past
	// it all the same.
	r.try(write, "k", "w", time.Minute, 10*time.Second)
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 1, Token: w.Token}, r.try(read, "k", "a", time.Minute, 0), "a read hold under the owner's write hold")
	require.NoError(t, write.Unlock(ctx, "k", "a"))
	st := r.state(read, "k")
	assert.True(t, st.Held, "the read hold outlives the write hold: no gap")
	assert.Empty(t, st.Owner, "no writer")
	assert.Equal(t, []driver.Holder{{Owner: "a", Mode: driver.Read, Holds: 1, Remaining: time.Minute, Token: w.Token}}, st.Holders)
	assert.False(t, r.try(write, "k", "w", time.Minute, 0).Acquired, "the kept read hold keeps writers out")
}

func TestRWWriterPreference(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	read, write := r.view(readShare), r.view(writeShare)
	heard := r.heard(read, "k")
	r.holds(read, "k", "a", time.Minute)

	g := r.try(write, "k", "w", time.Minute, 10*time.Second)
	assert.Equal(t, driver.Grant{Remaining: time.Minute}, g, "a refused write registers a waiting writer")
	assert.Equal(t, driver.Grant{Remaining: 10 * time.Second}, r.try(read, "k", "b", time.Minute, 0), "a waiting writer keeps new readers out; Remaining is its patience")
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 2}, r.try(read, "k", "a", time.Minute, 0), "a reader re-enters past a waiting writer")
	assert.Zero(t, heard())

	// Each attempt renews the patience.
	r.clock.Advance(8 * time.Second)
	r.try(write, "k", "w", time.Minute, 10*time.Second)
	r.clock.Advance(8 * time.Second)
	assert.Equal(t, driver.Grant{Remaining: 2 * time.Second}, r.try(read, "k", "b", time.Minute, 0), "the renewed patience")

	// A writer that waits no more keeps nobody out.
	r.clock.Advance(2 * time.Second)
	assert.True(t, r.try(read, "k", "b", time.Minute, 0).Acquired, "the waiting writer's patience lapsed")
	assert.Equal(t, 1, heard(), "the store, finding the lapse, tells the watchers")

	// A waiter that acquires waits no more either.
	require.NoError(t, read.Unlock(ctx, "k", "b"))
	require.NoError(t, read.Unlock(ctx, "k", "a"))
	assert.False(t, r.try(write, "k", "w", time.Minute, 10*time.Second).Acquired)
	require.NoError(t, read.Unlock(ctx, "k", "a"))
	assert.True(t, r.try(write, "k", "w", time.Minute, 10*time.Second).Acquired)
	require.NoError(t, write.Unlock(ctx, "k", "w"))
	assert.True(t, r.try(read, "k", "b", time.Minute, 0).Acquired, "a writer that acquired is no longer waiting")
}

func TestRWWaitingWritersDoNotBlockWriters(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	read, write := r.view(readShare), r.view(writeShare)
	r.holds(read, "k", "a", time.Minute)
	r.try(write, "k", "w", time.Minute, 10*time.Second)
	require.NoError(t, read.Unlock(ctx, "k", "a"))
	assert.True(t, r.try(write, "k", "v", time.Minute, 0).Acquired, "a write attempt on a free lock acquires, whoever waits")
}

func TestRWDequeue(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	read, write := r.view(readShare), r.view(writeShare)
	r.holds(read, "k", "a", time.Minute)
	r.try(write, "k", "w", time.Minute, 10*time.Second)
	heard := r.heard(write, "k")

	require.NoError(t, read.(driver.Dequeuer).Dequeue(ctx, "k", "nobody"), "Dequeue of an owner not waiting")
	assert.Zero(t, heard(), "changes nothing")
	require.NoError(t, read.(driver.Dequeuer).Dequeue(ctx, "k", "a"), "Dequeue of a holder")
	assert.True(t, r.state(read, "k").Held, "Dequeue never drops a hold")
	assert.False(t, r.try(read, "k", "b", time.Minute, 0).Acquired)

	require.NoError(t, write.(driver.Dequeuer).Dequeue(ctx, "k", "w"))
	assert.Equal(t, 1, heard(), "a waiter that leaves is heard of")
	assert.True(t, r.try(read, "k", "b", time.Minute, 0).Acquired, "the writer left: readers come in again")
}

func TestRWTokens(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	read, write := r.view(readShare), r.view(writeShare)
	tryFloor := func(v driver.Backend, owner string, floor uint64) driver.Grant {
		t.Helper()
		g, err := v.TryLock(ctx, driver.Request{Key: "k", Owner: owner, TTL: time.Minute, Floor: floor})
		require.NoError(t, err)
		require.True(t, g.Acquired)
		return g
	}
	cases := []struct {
		name  string
		view  driver.Backend
		floor uint64
		want  uint64
	}{
		{"first write", write, 0, 1},
		{"a read carries the last write's token", read, 0, 1},
		{"a read ignores Floor", read, 50, 1},
		{"the next write", write, 0, 2},
		{"a write honours Floor", write, 40, 40},
		{"a Floor below the counter", write, 10, 41},
		{"a read after it", read, 0, 41},
	}
	for _, c := range cases {
		g := tryFloor(c.view, "o", c.floor)
		assert.Equal(t, c.want, g.Token, c.name)
		if c.view == write {
			again := tryFloor(c.view, "o", c.floor+100)
			assert.Equal(t, g.Token, again.Token, "%s: re-entry keeps the token", c.name)
			require.NoError(t, c.view.Unlock(ctx, "k", "o"))
		}
		require.NoError(t, c.view.Unlock(ctx, "k", "o"))
		assert.Equal(t, c.want, r.state(read, "k").Token, "%s: Inspect gives the counter", c.name)
	}

	// A write hold that runs out ends; the counter does not fall.
	r.holds(write, "k", "gone", time.Second)
	r.clock.Advance(time.Second)
	assert.Equal(t, uint64(43), r.holds(write, "k", "o", time.Minute).Token)
}

func TestRWFence(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	read, write := r.view(readShare), r.view(writeShare)
	r.holds(write, "k", "w", time.Minute)
	assert.ErrorIs(t, read.(driver.Fencer).Fence(ctx, "k", "w", 50), driver.ErrNotHeld, "the writer holds no read hold")
	require.NoError(t, write.(driver.Fencer).Fence(ctx, "k", "w", 50))
	assert.Equal(t, uint64(50), r.holds(write, "k", "w", time.Minute).Token, "re-entry returns the raised token")
	assert.Equal(t, uint64(50), r.holds(read, "k", "w", time.Minute).Token, "the counter rose with it")

	require.NoError(t, write.Unlock(ctx, "k", "w"))
	require.NoError(t, write.Unlock(ctx, "k", "w"))
	require.NoError(t, read.(driver.Fencer).Fence(ctx, "k", "w", 70), "a reader raises the counter")
	assert.Equal(t, uint64(70), r.holds(read, "k", "r", time.Minute).Token)
	require.NoError(t, read.Unlock(ctx, "k", "w"))
	require.NoError(t, read.Unlock(ctx, "k", "r"))
	assert.Equal(t, uint64(71), r.holds(write, "k", "v", time.Minute).Token)
}

func TestRWUnlockAndExpireByMode(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	read, write := r.view(readShare), r.view(writeShare)
	r.holds(write, "k", "o", time.Minute)
	assert.ErrorIs(t, read.Unlock(ctx, "k", "o"), driver.ErrNotHeld, "a read unlock of a write hold")
	assert.ErrorIs(t, read.Expire(ctx, "k", "o", time.Hour), driver.ErrNotHeld, "a read renewal of a write hold")
	assert.ErrorIs(t, write.Unlock(ctx, "free", "o"), driver.ErrNotHeld)
	assert.Equal(t, time.Minute, r.state(read, "k").Remaining, "nothing changed")

	r.holds(read, "k", "o", time.Second)
	require.NoError(t, write.Expire(ctx, "k", "o", time.Hour))
	st := r.state(read, "k")
	assert.Equal(t, []driver.Holder{
		{Owner: "o", Mode: driver.Read, Holds: 1, Remaining: time.Second, Token: 1},
		{Owner: "o", Mode: driver.Write, Holds: 1, Remaining: time.Hour, Token: 1},
	}, st.Holders, "each hold has its own lease")
	r.clock.Advance(time.Second)
	assert.Len(t, r.state(read, "k").Holders, 1, "the read lease ran out alone")
}

func TestRWLeasesRunOut(t *testing.T) {
	r := newShareRig(t)
	read, write := r.view(readShare), r.view(writeShare)
	heard := r.heard(read, "k")
	r.holds(read, "k", "a", time.Second)
	r.holds(read, "k", "b", 2*time.Second)
	r.clock.Advance(time.Second)
	assert.Equal(t, driver.Grant{Remaining: time.Second}, r.try(write, "k", "w", time.Minute, 0), "Remaining counts the live hold only")
	assert.Equal(t, 1, heard(), "a hold the store finds run out is heard of")
	r.clock.Advance(time.Second)
	assert.True(t, r.try(write, "k", "w", time.Minute, 0).Acquired)
	assert.ErrorIs(t, read.Unlock(context.Background(), "k", "b"), driver.ErrNotHeld, "unlock after the lease ran out")
}

func TestRWInspect(t *testing.T) {
	r := newShareRig(t)
	read, write := r.view(readShare), r.view(writeShare)
	assert.Equal(t, driver.State{}, r.state(read, "k"), "a lock never taken")
	r.holds(write, "k", "m", time.Minute)
	r.holds(write, "k", "m", time.Minute)
	r.holds(read, "k", "m", 3*time.Minute)
	st := r.state(write, "k")
	assert.Equal(t, driver.State{
		Held: true, Owner: "m", Holds: 2, Remaining: 3 * time.Minute, Token: 1,
		Holders: []driver.Holder{
			{Owner: "m", Mode: driver.Read, Holds: 1, Remaining: 3 * time.Minute, Token: 1},
			{Owner: "m", Mode: driver.Write, Holds: 2, Remaining: time.Minute, Token: 1},
		},
	}, st)

	ctx := context.Background()
	require.NoError(t, write.Unlock(ctx, "k", "m"))
	require.NoError(t, write.Unlock(ctx, "k", "m"))
	r.holds(read, "k", "c", time.Minute)
	r.holds(read, "k", "a", 2*time.Minute)
	assert.Equal(t, driver.State{
		Held: true, Remaining: 3 * time.Minute, Token: 1,
		Holders: []driver.Holder{
			{Owner: "a", Mode: driver.Read, Holds: 1, Remaining: 2 * time.Minute, Token: 1},
			{Owner: "c", Mode: driver.Read, Holds: 1, Remaining: time.Minute, Token: 1},
			{Owner: "m", Mode: driver.Read, Holds: 1, Remaining: 3 * time.Minute, Token: 1},
		},
	}, r.state(read, "k"), "readers only: no Owner, holders sorted by owner")
}

func TestRWForceUnlock(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	read, write := r.view(readShare), r.view(writeShare)
	force := read.(driver.ForceUnlocker)
	held, err := force.ForceUnlock(ctx, "k")
	require.NoError(t, err)
	assert.False(t, held, "a free lock")

	r.holds(read, "k", "a", time.Minute)
	r.holds(read, "k", "b", time.Minute)
	r.try(write, "k", "w", time.Minute, 10*time.Second)
	heard := r.heard(write, "k")
	held, err = force.ForceUnlock(ctx, "k")
	require.NoError(t, err)
	assert.True(t, held)
	assert.Equal(t, 1, heard(), "ForceUnlock is heard of")
	st := r.state(read, "k")
	assert.False(t, st.Held)
	assert.Empty(t, st.Holders, "every hold ends, in every mode")
	assert.ErrorIs(t, read.Unlock(ctx, "k", "a"), driver.ErrNotHeld)
	assert.False(t, r.try(read, "k", "c", time.Minute, 0).Acquired, "the waiting writer keeps its place")
	assert.True(t, r.try(write, "k", "w", time.Minute, 0).Acquired, "and gets the lock")

	held, err = write.(driver.ForceUnlocker).ForceUnlock(ctx, "k")
	require.NoError(t, err)
	assert.True(t, held, "a write hold")
	assert.True(t, r.try(read, "k", "c", time.Minute, 0).Acquired)
}

func TestRWWatch(t *testing.T) {
	ctx := context.Background()
	r := newShareRig(t)
	read, write := r.view(readShare), r.view(writeShare)
	heard := r.heard(write, "k")
	r.holds(read, "k", "a", time.Minute)
	r.holds(read, "k", "a", time.Minute)
	r.try(write, "k", "w", time.Minute, 10*time.Second)
	assert.Zero(t, heard(), "taking holds and waiting free nothing")
	require.NoError(t, read.Unlock(ctx, "k", "a"))
	assert.Zero(t, heard(), "a read hold dropped once of twice ends nothing")
	require.NoError(t, read.Unlock(ctx, "k", "a"))
	assert.Equal(t, 1, heard(), "the read release that frees the writer")
	assert.True(t, r.try(write, "k", "w", time.Minute, 0).Acquired)
	assert.Equal(t, 1, heard(), "the waiting writer left by acquiring")
	require.NoError(t, write.Unlock(ctx, "k", "w"))
	assert.Equal(t, 1, heard(), "the write release")
}
