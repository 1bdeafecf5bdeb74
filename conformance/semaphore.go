package conformance

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// semCases are the semaphore's rules at the driver (see driver.Sharer), in
// the order they run.
var semCases = []testCase{
	{"Capacity", testSemCapacity},
	{"LimitMismatch", testSemLimitMismatch},
	{"IdleForgetsLimit", testSemIdleForgetsLimit},
	{"FirstComeFirstServed", testSemFIFO},
	{"LapsedWaiter", testSemLapsedWaiter},
	{"Dequeue", testSemDequeue},
	{"Tokens", testSemTokens},
	{"Reentry", testSemReentry},
	{"Inspection", testSemInspection},
	{"InvalidShare", testSemInvalidShare},
}

// semViews returns views of a new client of the semaphores of limit
// permits whose holds take 1, 2, ... limit of them: views[n-1] takes n.
func (s *suite) semViews(ctx context.Context, t *testing.T, limit int) []driver.Backend {
	t.Helper()
	sr := s.sharer(ctx, t)
	vs := make([]driver.Backend, limit)
	for i := range vs {
		vs[i] = view(t, sr, permits(limit, i+1))
	}
	return vs
}

func testSemCapacity(ctx context.Context, t *testing.T, s *suite) {
	v1 := s.semViews(ctx, t, 5)
	v2 := s.semViews(ctx, t, 5)
	key, o := s.key(t, ""), owners(5)

	takes(ctx, t, v1[1], key, o[0], s.long, "two of five permits")
	takes(ctx, t, v2[2], key, o[1], s.long, "three more, on another client")
	keptOut(ctx, t, s, v1[0], key, o[2], 0, s.long, "no permit is left")
	unlocks(ctx, t, v2[2], key, o[1])
	takes(ctx, t, v1[0], key, o[2], s.long, "one of the three freed")
	takes(ctx, t, v2[1], key, o[3], s.long, "two more")
	keptOut(ctx, t, s, v1[0], key, o[4], 0, s.long, "2+1+2 of 5")
	unlocks(ctx, t, v1[1], key, o[0])
	takes(ctx, t, v1[0], key, o[4], s.long, "the last hold frees the owner's permits")
	for _, h := range []struct {
		v driver.Backend
		o string
	}{{v1[0], o[2]}, {v2[1], o[3]}, {v1[0], o[4]}} {
		unlocks(ctx, t, h.v, key, h.o)
	}
}

func testSemLimitMismatch(ctx context.Context, t *testing.T, s *suite) {
	sr := s.sharer(ctx, t)
	sem, other := view(t, sr, permits(3, 1)), view(t, sr, permits(4, 1))
	key, o := s.key(t, ""), owners(3)
	takes(ctx, t, sem, key, o[0], s.long, "a holder")
	before, inspects := inspect(ctx, t, sem, key)

	for _, who := range []string{o[1], o[0]} {
		_, err := other.TryLock(ctx, driver.Request{Key: key, Owner: who, TTL: s.long, Patience: s.long})
		assert.ErrorIs(t, err, driver.ErrInvalid, "an attempt with another limit while the semaphore is in use")
		assert.False(t, driver.IsUnknown(err), "a mismatch is the store's answer, not an unknown outcome")
	}
	if inspects {
		after, _ := inspect(ctx, t, sem, key)
		assert.Equal(t, leaseless(before.Holders), leaseless(after.Holders), "nothing changed")
		assert.Equal(t, 3, after.Limit, "the stored limit")
	}
	takes(ctx, t, sem, key, o[2], s.long, "the refused owners were not put on the wait list")
	unlocks(ctx, t, sem, key, o[0])
	unlocks(ctx, t, sem, key, o[2])
}

func testSemIdleForgetsLimit(ctx context.Context, t *testing.T, s *suite) {
	sr := s.sharer(ctx, t)
	three, seven := view(t, sr, permits(3, 1)), view(t, sr, permits(7, 7))
	key, o := s.key(t, ""), locker.NewOwner()
	g := takes(ctx, t, three, key, o, s.long, "a semaphore of three")
	unlocks(ctx, t, three, key, o)
	if st, ok := inspect(ctx, t, three, key); ok {
		assert.False(t, st.Held)
		assert.Zero(t, st.Limit, "an unused semaphore forgets its limit")
		assert.GreaterOrEqual(t, st.Token, g.Token, "and keeps its counter")
	}
	again := takes(ctx, t, seven, key, o, s.long, "an unused semaphore takes a new limit")
	assert.Greater(t, again.Token, g.Token, "the counter goes on under the new limit")
	if st, ok := inspect(ctx, t, three, key); ok {
		assert.Equal(t, 7, st.Limit)
	}
	unlocks(ctx, t, seven, key, o)
}

func testSemFIFO(ctx context.Context, t *testing.T, s *suite) {
	vs := s.semViews(ctx, t, 3)
	ws := s.semViews(ctx, t, 3)
	key, o := s.key(t, ""), owners(4)
	heard := watchShared(ctx, t, ws[0], key)

	takes(ctx, t, vs[1], key, o[0], s.long, "two of three permits")
	keptOut(ctx, t, s, ws[2], key, o[1], s.long, s.long, "a big request waits")
	keptOut(ctx, t, s, vs[0], key, o[2], s.long, s.long, "a small one, for which a permit is free, does not overtake it")
	keptOut(ctx, t, s, vs[0], key, o[3], 0, s.long, "nor does one without patience")
	keptOut(ctx, t, s, vs[0], key, o[2], s.long, s.long, "asking again keeps a waiter's place, behind the big one")

	drain(heard)
	unlocks(ctx, t, vs[1], key, o[0])
	hears(t, heard, "a release")
	keptOut(ctx, t, s, vs[0], key, o[2], s.long, s.long, "the head of the line comes first")
	takes(ctx, t, ws[2], key, o[1], s.long, "the big request, first in line")
	keptOut(ctx, t, s, vs[0], key, o[2], s.long, s.long, "no permit is left")
	unlocks(ctx, t, ws[2], key, o[1])
	takes(ctx, t, vs[0], key, o[2], s.long, "next in line")
	unlocks(ctx, t, vs[0], key, o[2])
}

func testSemLapsedWaiter(ctx context.Context, t *testing.T, s *suite) {
	vs := s.semViews(ctx, t, 3)
	key, o := s.key(t, ""), owners(3)
	takes(ctx, t, vs[0], key, o[0], s.long, "one of three permits")
	patience := 2 * s.unit
	keptOut(ctx, t, s, vs[2], key, o[1], patience, s.long, "a big request waits")
	keptOut(ctx, t, s, vs[0], key, o[2], 0, s.long, "a small one waits behind it")
	eventually(ctx, t, s.expiryLimit(patience), "the small request coming in once the big one's patience lapsed", func() bool {
		return attempt(ctx, t, vs[0], driver.Request{Key: key, Owner: o[2], TTL: s.long}).Acquired
	})
	unlocks(ctx, t, vs[0], key, o[0])
	unlocks(ctx, t, vs[0], key, o[2])
}

func testSemDequeue(ctx context.Context, t *testing.T, s *suite) {
	vs := s.semViews(ctx, t, 3)
	ws := s.semViews(ctx, t, 3)
	key, o := s.key(t, ""), owners(3)
	takes(ctx, t, vs[0], key, o[0], s.long, "one of three permits")
	keptOut(ctx, t, s, ws[2], key, o[1], s.long, s.long, "a big request waits")
	heard := watchShared(ctx, t, vs[0], key)
	dequeue(ctx, t, vs[0], key, o[0]) // a holder, whose hold stays
	dequeue(ctx, t, ws[2], key, o[1])
	hears(t, heard, "a waiter that leaves")
	takes(ctx, t, vs[0], key, o[2], s.long, "the waiter left")
	unlocks(ctx, t, vs[0], key, o[0])
	unlocks(ctx, t, vs[0], key, o[2])
}

func testSemTokens(ctx context.Context, t *testing.T, s *suite) {
	vs := s.semViews(ctx, t, 2)
	key, o := s.key(t, ""), owners(2)
	var last uint64
	for i := range 3 {
		a := takes(ctx, t, vs[0], key, o[0], s.long, "a holder")
		b := takes(ctx, t, vs[0], key, o[1], s.long, "a second holder at once")
		assert.Greater(t, a.Token, last, "acquisition %d: tokens rise strictly", i)
		assert.Greater(t, b.Token, a.Token, "acquisition %d: each holder gets a token of its own", i)
		again := takes(ctx, t, vs[0], key, o[0], s.long, "re-entry")
		assert.Equal(t, a.Token, again.Token, "re-entry keeps the token")
		last = b.Token
		unlocks(ctx, t, vs[0], key, o[0])
		unlocks(ctx, t, vs[0], key, o[0])
		unlocks(ctx, t, vs[0], key, o[1])
	}
	floor := last + 1000
	g := attempt(ctx, t, vs[0], driver.Request{Key: key, Owner: o[0], TTL: s.long, Floor: floor})
	require.True(t, g.Acquired)
	assert.GreaterOrEqual(t, g.Token, floor, "a token is at least Request.Floor")
	unlocks(ctx, t, vs[0], key, o[0])
}

func testSemReentry(ctx context.Context, t *testing.T, s *suite) {
	vs := s.semViews(ctx, t, 2)
	key, o := s.key(t, ""), owners(3)
	takes(ctx, t, vs[0], key, o[0], s.long, "one of two permits")
	again := takes(ctx, t, vs[0], key, o[0], s.long, "re-entry")
	assert.Equal(t, 2, again.Holds)
	takes(ctx, t, vs[0], key, o[1], s.long, "re-entry took no second permit")
	keptOut(ctx, t, s, vs[0], key, o[2], 0, s.long, "both permits are held")
	_, err := vs[1].TryLock(ctx, driver.Request{Key: key, Owner: o[0], TTL: s.long})
	assert.ErrorIs(t, err, driver.ErrInvalid, "re-entry asking for another number of permits")
	unlocks(ctx, t, vs[0], key, o[0])
	keptOut(ctx, t, s, vs[0], key, o[2], 0, s.long, "one of two holds dropped frees nothing")
	unlocks(ctx, t, vs[0], key, o[0])
	assert.ErrorIs(t, vs[0].Unlock(ctx, key, o[0]), driver.ErrNotHeld, "the refused re-entry added no hold")
	unlocks(ctx, t, vs[0], key, o[1])
}

func testSemInspection(ctx context.Context, t *testing.T, s *suite) {
	vs := s.semViews(ctx, t, 4)
	key, o := s.key(t, ""), owners(2)
	st := sharedState(ctx, t, vs[0], key)
	assert.False(t, st.Held, "a semaphore never taken")
	assert.Zero(t, st.Limit, "an unused semaphore has no limit")

	g1 := takes(ctx, t, vs[1], key, o[1], s.long, "two of four")
	g0 := takes(ctx, t, vs[0], key, o[0], 2*s.unit, "one of four")
	takes(ctx, t, vs[0], key, o[0], 2*s.unit, "re-entry")
	st = sharedState(ctx, t, vs[0], key)
	assert.True(t, st.Held)
	assert.Equal(t, 4, st.Limit, "the stored limit")
	assert.Empty(t, st.Owner, "a semaphore has no writer")
	assert.Greater(t, st.Remaining, s.long/2, "Remaining is the longest lease of the holders")
	if assert.Len(t, st.Holders, 2) {
		a, b := st.Holders[0], st.Holders[1]
		assert.Equal(t, []string{o[0], o[1]}, []string{a.Owner, b.Owner}, "holders sorted by owner")
		assert.Equal(t, driver.Permits, a.Mode)
		assert.Equal(t, 2, a.Holds)
		assert.Equal(t, 1, a.Permits)
		assert.Equal(t, 2, b.Permits)
		assert.Positive(t, a.Remaining)
		assert.LessOrEqual(t, a.Remaining, 2*s.unit+s.h.Granularity())
		keepsToken(t, vs[0], a, g0.Token)
		keepsToken(t, vs[1], b, g1.Token)
	}
	f, ok := vs[0].(driver.ForceUnlocker)
	if !ok {
		t.Skip("the view has no force unlock (driver.ForceUnlocker)")
	}
	held, err := f.ForceUnlock(ctx, key)
	require.NoError(t, err)
	assert.True(t, held)
	st = sharedState(ctx, t, vs[0], key)
	assert.False(t, st.Held, "ForceUnlock ends every hold")
	assert.Empty(t, st.Holders)
	assert.ErrorIs(t, vs[1].Unlock(ctx, key, o[1]), driver.ErrNotHeld)
}

func testSemInvalidShare(ctx context.Context, t *testing.T, s *suite) {
	sr := s.sharer(ctx, t)
	for _, sh := range []driver.Share{
		{},
		{Mode: driver.Read, Limit: 1},
		{Mode: driver.Write, Permits: 1},
		permits(0, 0),
		permits(-1, 1),
		permits(2, 0),
		permits(2, 3),
		permits(driver.MaxPermits+1, 1),
	} {
		v, err := sr.Share(sh)
		if assert.ErrorIs(t, err, driver.ErrInvalid, "Share(%+v)", sh) {
			want := driver.CheckShare(sh)
			assert.True(t, strings.HasSuffix(err.Error(), want.Error()), "Share(%+v): %q is not in the kit's words (%q)", sh, err, want)
		} else if v != nil {
			_ = v.Close()
		}
	}
}

// leaseless returns holders without their remaining leases, which run on
// between two looks.
func leaseless(holders []driver.Holder) []driver.Holder {
	out := make([]driver.Holder, len(holders))
	for i, h := range holders {
		h.Remaining = 0
		out[i] = h
	}
	return out
}
