package conformance

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// rwCases are the read-write lock's rules at the driver (see
// driver.Sharer), in the order they run.
var rwCases = []testCase{
	{"ReadersShare", testRWReadersShare},
	{"WriterExcludes", testRWWriterExcludes},
	{"NoUpgrade", testRWNoUpgrade},
	{"Downgrade", testRWDowngrade},
	{"WriterPreference", testRWWriterPreference},
	{"WaitingWriterLapses", testRWWaitingWriterLapses},
	{"ReadReleaseWakesWriter", testRWReadReleaseWakesWriter},
	{"Tokens", testRWTokens},
	{"ReadHoldUnlock", testRWReadHoldUnlock},
	{"HoldsByMode", testRWHoldsByMode},
	{"Inspection", testRWInspection},
	{"ForceUnlock", testRWForceUnlock},
	{"NamespacesApart", testSharedNamespaces},
}

func testRWReadersShare(ctx context.Context, t *testing.T, s *suite) {
	read1, write1 := s.rwViews(ctx, t)
	read2, _ := s.rwViews(ctx, t)
	key, o := s.key(t, ""), owners(3)

	a := takes(ctx, t, read1, key, o[0], s.long, "a reader of a free lock")
	b := takes(ctx, t, read2, key, o[1], 2*s.unit, "readers share, on any client")
	assert.Equal(t, 1, a.Holds)
	assert.Zero(t, a.Token, "a read hold of a lock never written carries token 0")
	assert.Zero(t, b.Token)
	g := keptOut(ctx, t, s, write1, key, o[2], 0, s.long, "readers keep a writer out")
	if g.Remaining != 0 {
		assert.Greater(t, g.Remaining, s.long/2, "a refused write's Remaining is the longest read lease, not the shortest")
	}
	unlocks(ctx, t, read1, key, o[0])
	keptOut(ctx, t, s, write1, key, o[2], 0, 2*s.unit, "one reader is left")
	unlocks(ctx, t, read2, key, o[1])
	w := takes(ctx, t, write1, key, o[2], s.long, "the readers are gone")
	assert.Positive(t, w.Token, "a write hold carries a token")
	unlocks(ctx, t, write1, key, o[2])
}

func testRWWriterExcludes(ctx context.Context, t *testing.T, s *suite) {
	read1, write1 := s.rwViews(ctx, t)
	read2, write2 := s.rwViews(ctx, t)
	key, o := s.key(t, ""), owners(3)

	w := takes(ctx, t, write1, key, o[0], s.long, "a writer of a free lock")
	keptOut(ctx, t, s, read2, key, o[1], 0, s.long, "a writer keeps readers out")
	keptOut(ctx, t, s, write2, key, o[2], 0, s.long, "a writer keeps writers out")
	again := takes(ctx, t, write1, key, o[0], s.long, "the writer re-enters")
	assert.Equal(t, 2, again.Holds)
	assert.Equal(t, w.Token, again.Token, "re-entry keeps the token")
	unlocks(ctx, t, write1, key, o[0])
	keptOut(ctx, t, s, read2, key, o[1], 0, s.long, "one write hold is left")
	unlocks(ctx, t, write1, key, o[0])
	takes(ctx, t, read2, key, o[1], s.long, "the writer is gone")
	unlocks(ctx, t, read2, key, o[1])
	assert.ErrorIs(t, read1.Unlock(ctx, key, o[1]), driver.ErrNotHeld, "unlocking twice")
}

func testRWNoUpgrade(ctx context.Context, t *testing.T, s *suite) {
	read, write := s.rwViews(ctx, t)
	key, o := s.key(t, ""), locker.NewOwner()
	takes(ctx, t, read, key, o, s.long, "a reader")
	keptOut(ctx, t, s, write, key, o, 0, s.long, "an owner's own read hold keeps its write out: no upgrade")
	unlocks(ctx, t, read, key, o)
	takes(ctx, t, write, key, o, s.long, "the owner writes once its read hold is dropped")
	unlocks(ctx, t, write, key, o)
}

func testRWDowngrade(ctx context.Context, t *testing.T, s *suite) {
	read, write := s.rwViews(ctx, t)
	read2, write2 := s.rwViews(ctx, t)
	key, o := s.key(t, ""), owners(3)

	w := takes(ctx, t, write, key, o[0], s.long, "a writer")
	// Another writer waits: the owner's read under its write hold goes past
	// it all the same.
	keptOut(ctx, t, s, write2, key, o[1], s.long, s.long, "a second writer waits")
	r := takes(ctx, t, read, key, o[0], s.long, "a read hold under the owner's write hold")
	assert.Equal(t, w.Token, r.Token, "the read hold carries the write's token")
	unlocks(ctx, t, write, key, o[0])
	keptOut(ctx, t, s, write2, key, o[1], s.long, s.long, "the kept read hold keeps writers out: no gap")
	dequeue(ctx, t, write2, key, o[1])
	r2 := takes(ctx, t, read2, key, o[2], s.long, "another reader joins the downgraded one")
	assert.Equal(t, w.Token, r2.Token, "the last write's token")
	unlocks(ctx, t, read, key, o[0])
	unlocks(ctx, t, read2, key, o[2])
}

func testRWWriterPreference(ctx context.Context, t *testing.T, s *suite) {
	read, _ := s.rwViews(ctx, t)
	read2, write2 := s.rwViews(ctx, t)
	key, o := s.key(t, ""), owners(3)

	takes(ctx, t, read, key, o[0], s.long, "a reader")
	keptOut(ctx, t, s, write2, key, o[1], s.long, s.long, "a writer with patience waits")
	keptOut(ctx, t, s, read2, key, o[2], 0, s.long, "a waiting writer keeps new readers out")
	again := takes(ctx, t, read, key, o[0], s.long, "a reader re-enters past a waiting writer")
	assert.Equal(t, 2, again.Holds)
	keptOut(ctx, t, s, write2, key, o[1], s.long, s.long, "asking again renews the wait")

	heard := watchShared(ctx, t, read2, key)
	dequeue(ctx, t, write2, key, o[1])
	hears(t, heard, "a waiting writer that leaves")
	takes(ctx, t, read2, key, o[2], s.long, "the writer left: new readers come in")
	dequeue(ctx, t, write2, key, o[1]) // an owner that does not wait
	dequeue(ctx, t, read, key, o[0])   // a holder, whose hold stays
	unlocks(ctx, t, read, key, o[0])
	unlocks(ctx, t, read, key, o[0])
	unlocks(ctx, t, read2, key, o[2])
}

func testRWWaitingWriterLapses(ctx context.Context, t *testing.T, s *suite) {
	read, write := s.rwViews(ctx, t)
	key, o := s.key(t, ""), owners(3)
	takes(ctx, t, read, key, o[0], s.long, "a reader")
	patience := 2 * s.unit
	keptOut(ctx, t, s, write, key, o[1], patience, s.long, "a writer with patience waits")
	g := keptOut(ctx, t, s, read, key, o[2], 0, patience, "a waiting writer keeps new readers out")
	if g.Remaining != 0 {
		assert.Less(t, g.Remaining, s.long/2, "the refused read's Remaining is the writer's patience, not the readers' lease")
	}
	eventually(ctx, t, s.expiryLimit(patience), "a new reader coming in once the writer's patience lapsed", func() bool {
		return attempt(ctx, t, read, driver.Request{Key: key, Owner: o[2], TTL: s.long}).Acquired
	})
	unlocks(ctx, t, read, key, o[0])
	unlocks(ctx, t, read, key, o[2])
}

func testRWReadReleaseWakesWriter(ctx context.Context, t *testing.T, s *suite) {
	read, _ := s.rwViews(ctx, t)
	_, write := s.rwViews(ctx, t)
	key, o := s.key(t, ""), owners(2)
	heard := watchShared(ctx, t, write, key)
	if heard == nil {
		t.Skip("the view has no release notification (driver.Notifier)")
	}
	takes(ctx, t, read, key, o[0], s.long, "a reader")
	takes(ctx, t, read, key, o[0], s.long, "the reader re-enters")
	keptOut(ctx, t, s, write, key, o[1], s.long, s.long, "a writer waits")
	unlocks(ctx, t, read, key, o[0])
	drain(heard)
	unlocks(ctx, t, read, key, o[0])
	hears(t, heard, "the read release that frees the writer")
	takes(ctx, t, write, key, o[1], s.long, "the woken writer")
	unlocks(ctx, t, write, key, o[1])

	// A read lease that runs out frees the writer too.
	takes(ctx, t, read, key, o[0], 2*s.unit, "a reader with a short lease")
	eventually(ctx, t, s.expiryLimit(2*s.unit), "the writer coming in once the read lease ran out", func() bool {
		return attempt(ctx, t, write, driver.Request{Key: key, Owner: o[1], TTL: s.long}).Acquired
	})
	assert.ErrorIs(t, read.Unlock(ctx, key, o[0]), driver.ErrNotHeld, "unlock after the read lease ran out")
	unlocks(ctx, t, write, key, o[1])
}

func testRWTokens(ctx context.Context, t *testing.T, s *suite) {
	read, write := s.rwViews(ctx, t)
	key, o := s.key(t, ""), locker.NewOwner()
	var last uint64
	for i := range 3 {
		w := takes(ctx, t, write, key, o, s.long, "a writer")
		assert.Greater(t, w.Token, last, "write %d: the token rises with every write hold", i)
		last = w.Token
		unlocks(ctx, t, write, key, o)
		r := takes(ctx, t, read, key, o, s.long, "a reader")
		assert.Equal(t, last, r.Token, "read %d: a read hold carries the last write's token", i)
		unlocks(ctx, t, read, key, o)
	}
	floor := last + 1000
	w := attempt(ctx, t, write, driver.Request{Key: key, Owner: o, TTL: s.long, Floor: floor})
	require.True(t, w.Acquired)
	assert.GreaterOrEqual(t, w.Token, floor, "a write token is at least Request.Floor")
	unlocks(ctx, t, write, key, o)
	r := attempt(ctx, t, read, driver.Request{Key: key, Owner: o, TTL: s.long, Floor: w.Token + 1000})
	require.True(t, r.Acquired)
	assert.Equal(t, w.Token, r.Token, "a read ignores Floor: it carries the last write's token")
	unlocks(ctx, t, read, key, o)
	if st, ok := inspect(ctx, t, read, key); ok {
		assert.Equal(t, w.Token, st.Token, "Inspect gives the counter")
	}
}

func testRWHoldsByMode(ctx context.Context, t *testing.T, s *suite) {
	read, write := s.rwViews(ctx, t)
	_, probe := s.rwViews(ctx, t)
	key, o := s.key(t, ""), locker.NewOwner()
	takes(ctx, t, write, key, o, s.long, "a writer")
	assert.ErrorIs(t, read.Unlock(ctx, key, o), driver.ErrNotHeld, "a read unlock of a write hold")
	assert.ErrorIs(t, read.Expire(ctx, key, o, s.long), driver.ErrNotHeld, "a read renewal of a write hold")
	keptOut(ctx, t, s, probe, key, locker.NewOwner(), 0, s.long, "the write hold is kept")

	// Each hold has its own lease.
	takes(ctx, t, read, key, o, 2*s.unit, "the writer's read hold")
	unlocks(ctx, t, write, key, o)
	require.NoError(t, read.Expire(ctx, key, o, s.long), "renewing the read hold")
	time.Sleep(s.expiryLimit(2 * s.unit))
	keptOut(ctx, t, s, probe, key, locker.NewOwner(), 0, s.long, "the renewed read hold is kept")
	unlocks(ctx, t, read, key, o)
	assert.ErrorIs(t, write.Expire(ctx, key, o, s.long), driver.ErrNotHeld, "renewing a write hold dropped")
}

func testRWInspection(ctx context.Context, t *testing.T, s *suite) {
	read, write := s.rwViews(ctx, t)
	key, o := s.key(t, ""), owners(3)
	st := sharedState(ctx, t, read, key)
	assert.False(t, st.Held, "a lock never taken")
	assert.Empty(t, st.Holders)

	r2 := takes(ctx, t, read, key, o[2], s.long, "a reader")
	r0 := takes(ctx, t, read, key, o[0], 2*s.unit, "a reader")
	takes(ctx, t, read, key, o[0], 2*s.unit, "the reader re-enters")
	st = sharedState(ctx, t, write, key)
	assert.True(t, st.Held)
	assert.Empty(t, st.Owner, "no writer: no Owner")
	assert.Zero(t, st.Holds, "no writer: no Holds")
	assert.Zero(t, st.Limit, "a read-write lock has no limit")
	assert.Greater(t, st.Remaining, s.long/2, "Remaining is the longest lease of the holders")
	if assert.Len(t, st.Holders, 2) {
		assert.Equal(t, []string{o[0], o[2]}, []string{st.Holders[0].Owner, st.Holders[1].Owner}, "holders sorted by owner")
		assert.Equal(t, driver.Read, st.Holders[0].Mode)
		assert.Equal(t, 2, st.Holders[0].Holds)
		assert.Zero(t, st.Holders[0].Permits)
		assert.Positive(t, st.Holders[0].Remaining)
		assert.LessOrEqual(t, st.Holders[0].Remaining, 2*s.unit+s.h.Granularity())
		keepsToken(t, read, st.Holders[0], r0.Token)
		keepsToken(t, read, st.Holders[1], r2.Token)
	}
	for _, who := range []string{o[0], o[0], o[2]} {
		unlocks(ctx, t, read, key, who)
	}

	w := takes(ctx, t, write, key, o[1], s.long, "a writer")
	r1 := takes(ctx, t, read, key, o[1], s.long, "the writer's read hold")
	st = sharedState(ctx, t, read, key)
	assert.True(t, st.Held)
	assert.Equal(t, o[1], st.Owner, "the writer is Owner")
	assert.Equal(t, 1, st.Holds, "the writer's hold count")
	assert.Equal(t, w.Token, st.Token)
	if assert.Len(t, st.Holders, 2) {
		assert.Equal(t, []driver.Mode{driver.Read, driver.Write}, []driver.Mode{st.Holders[0].Mode, st.Holders[1].Mode}, "one owner's holds sorted by mode")
		keepsToken(t, read, st.Holders[0], r1.Token)
		keepsToken(t, write, st.Holders[1], w.Token)
	}
	unlocks(ctx, t, write, key, o[1])
	unlocks(ctx, t, read, key, o[1])
	st = sharedState(ctx, t, read, key)
	assert.False(t, st.Held, "a released lock")
	assert.Zero(t, st.Remaining)
	assert.Equal(t, w.Token, st.Token, "the counter outlives the holds")
}

func testRWForceUnlock(ctx context.Context, t *testing.T, s *suite) {
	read, write := s.rwViews(ctx, t)
	f, ok := read.(driver.ForceUnlocker)
	if !ok {
		t.Skip("the view has no force unlock (driver.ForceUnlocker)")
	}
	key, o := s.key(t, ""), owners(3)
	held, err := f.ForceUnlock(ctx, key)
	require.NoError(t, err)
	assert.False(t, held, "force unlock of a free lock")

	takes(ctx, t, read, key, o[0], s.long, "a reader")
	takes(ctx, t, read, key, o[1], s.long, "a reader")
	heard := watchShared(ctx, t, write, key)
	held, err = f.ForceUnlock(ctx, key)
	require.NoError(t, err)
	assert.True(t, held, "force unlock of a read-held lock")
	hears(t, heard, "ForceUnlock")
	assert.ErrorIs(t, read.Unlock(ctx, key, o[0]), driver.ErrNotHeld, "every read hold ends")
	takes(ctx, t, write, key, o[2], s.long, "the writer after force unlock")
	takes(ctx, t, read, key, o[2], s.long, "and its read hold")

	held, err = write.(driver.ForceUnlocker).ForceUnlock(ctx, key)
	require.NoError(t, err)
	assert.True(t, held, "force unlock of a write-held lock, through the Write view")
	assert.ErrorIs(t, write.Unlock(ctx, key, o[2]), driver.ErrNotHeld, "the write hold ends")
	assert.ErrorIs(t, read.Unlock(ctx, key, o[2]), driver.ErrNotHeld, "and the writer's read hold")
	takes(ctx, t, read, key, o[1], s.long, "a reader after force unlock")
	unlocks(ctx, t, read, key, o[1])
}

// testSharedNamespaces checks that a key names three locks: a mutex, a
// read-write lock and a semaphore.
func testSharedNamespaces(ctx context.Context, t *testing.T, s *suite) {
	b := s.backend(ctx, t)
	sr, ok := b.(driver.Sharer)
	require.True(t, ok)
	key, o := s.key(t, ""), owners(3)
	takes(ctx, t, b, key, o[0], s.long, "the mutex")
	write := view(t, sr, writeShare)
	takes(ctx, t, write, key, o[1], s.long, "the read-write lock of a held mutex's key")
	if sem, err := sr.Share(permits(1, 1)); err == nil {
		takes(ctx, t, sem, key, o[2], s.long, "the semaphore of the same key")
		unlocks(ctx, t, sem, key, o[2])
	}
	assert.ErrorIs(t, write.Unlock(ctx, key, o[0]), driver.ErrNotHeld, "the mutex's holder holds nothing of the read-write lock")
	unlocks(ctx, t, write, key, o[1])
	assert.True(t, isHeld(ctx, t, b, key), "the mutex outlives the read-write lock's release")
	unlocks(ctx, t, b, key, o[0])
}
