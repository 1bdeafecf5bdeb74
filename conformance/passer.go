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

// passerCases are the parts of Passer, in the order they run.
var passerCases = []testCase{
	{"UnlockToGrantsTheNamed", testPassGrantsTheNamed},
	{"UnlockToNamesNobody", testPassNamesNobody},
	{"UnlockToNotLastHold", testPassNotLastHold},
	{"UnlockToLeftWaiter", testPassLeftWaiter},
	{"UnlockToLapsedPatience", testPassLapsedPatience},
	{"UnlockToWrongHolder", testPassWrongHolder},
	{"LeaveGivesBackGrant", testPassLeaveGivesBack},
	{"TurnNamesNext", testPassTurnNamesNext},
	{"NoticeToTheHolder", testPassNoticeToTheHolder},
	{"NamedGrantClaimed", testPassNamedGrantClaimed},
	{"InvalidInput", testPassInvalidInput},
}

// testPasser checks driver.Passer: a release that names the waiter it
// grants the lock to, turns that tell what a grant answers and who waits
// next, and Leave.
func testPasser(ctx context.Context, t *testing.T, s *suite) {
	if _, ok := s.backend(ctx, t).(driver.Passer); !ok {
		t.Skip("backend cannot pass its lock to a named waiter (driver.Passer)")
	}
	for _, c := range passerCases {
		t.Run(c.name, func(t *testing.T) { c.run(ctx, t, s) })
	}
}

func testPassGrantsTheNamed(ctx context.Context, t *testing.T, s *suite) {
	pa, pb, pc, pw := s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t)
	key, a, b, c := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchPasses(ctx, t, pw, key, b, c)
	gran := s.h.Granularity()
	fb, fc := floorAbove(1), floorAbove(2)
	lease := 20 * s.unit // C's named grant's, unlike the lease it queued with

	ga := acquire(ctx, t, pa, key, a, s.long)
	waitWith(ctx, t, pb, key, b, s.long, s.long, fb)
	waitWith(ctx, t, pc, key, c, s.long, s.long, fc)

	// C is second in line; the release names it all the same.
	require.NoError(t, pa.UnlockTo(ctx, key, a, ga.Token, driver.Successor{Owner: c, TTL: lease, Patience: s.long, Floor: fc}))
	tc := w.expectTurn(t, c, "A's UnlockTo naming C must grant C the key")
	assert.True(t, tc.Passed, "a grant that a release named its waiter to reports Passed")
	assert.Equal(t, 1, tc.Grant.Holds, "a named grant is one hold")
	assert.Greater(t, tc.Grant.Token, ga.Token, "a named grant's token must exceed the releaser's")
	assert.GreaterOrEqual(t, tc.Grant.Token, fc, "a named grant's token is at least the successor's floor")
	assert.Equal(t, fc, tc.Floor, "a named grant tells back the successor's floor")
	assert.Equal(t, b, tc.Next.Owner, "B, still in line, waits next behind C")
	grantedTo(ctx, t, pw, tc.Grant, key, c, ga.Token, lease+gran)
	refused(ctx, t, pb, key, b, "B must not take C's named grant")

	// C left the line with its grant: B, not C, is next.
	require.NoError(t, pc.Unlock(ctx, key, c), "C releases its named grant")
	tb := w.expectTurn(t, b, "C's release must grant the key to B, still in line")
	assert.False(t, tb.Passed, "a queue grant was not named")
	assert.Equal(t, fb, tb.Floor, "a queue grant tells back the floor of B's request")
	assert.Greater(t, tb.Grant.Token, tc.Grant.Token, "B's token must exceed C's")
	assert.Empty(t, tb.Next.Owner, "C left the line when the release named it: nobody waits behind B")
	grantedTo(ctx, t, pw, tb.Grant, key, b, tc.Grant.Token, s.long+gran)
	require.NoError(t, pb.Unlock(ctx, key, b))
	w.expect(t, "", "B's release with nobody in line")
	assert.False(t, isHeld(ctx, t, pw, key), "the key is free after the last waiter's release")
}

func testPassNamesNobody(ctx context.Context, t *testing.T, s *suite) {
	pa, pb, pc, pw := s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t)
	key, a, b, c := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchPasses(ctx, t, pw, key, b, c)
	gran := s.h.Granularity()

	ga := acquire(ctx, t, pa, key, a, s.long)
	waitWith(ctx, t, pb, key, b, s.long, s.long, floorAbove(1))
	waitWith(ctx, t, pc, key, c, s.long, s.long, floorAbove(2))

	// A Successor without an Owner names nobody, whatever else it says.
	nobody := driver.Successor{Patience: s.long, Floor: floorAbove(3)}
	require.NoError(t, pa.UnlockTo(ctx, key, a, ga.Token, nobody))
	tb := w.expectTurn(t, b, "an UnlockTo naming nobody must grant the key to B, first in line, as Unlock does")
	assert.False(t, tb.Passed, "a release that named nobody grants from the line")
	assert.Equal(t, c, tb.Next.Owner, "C waits behind B")
	rb := grantedTo(ctx, t, pw, tb.Grant, key, b, ga.Token, s.long+gran)

	// Token 0 is Unlock's: B releases its grant by owner alone.
	require.NoError(t, pb.UnlockTo(ctx, key, b, 0, driver.Successor{}))
	tc := w.expectTurn(t, c, "B's UnlockTo naming nobody must grant the key to C, next in line")
	assert.False(t, tc.Passed)
	grantedTo(ctx, t, pw, tc.Grant, key, c, rb.Token, s.long+gran)
	require.NoError(t, pc.UnlockTo(ctx, key, c, tc.Grant.Token, driver.Successor{}))
	w.expect(t, "", "C's UnlockTo naming nobody, with nobody in line")
	assert.False(t, isHeld(ctx, t, pw, key), "the key is free after C's release")
	assert.ErrorIs(t, pc.UnlockTo(ctx, key, c, 0, driver.Successor{}), driver.ErrNotHeld, "a grant is one hold: C's second release")
}

func testPassNotLastHold(ctx context.Context, t *testing.T, s *suite) {
	pa, pc, pw := s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t)
	key, a, c := s.key(t, ""), "A-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchPasses(ctx, t, pw, key, c)
	gran := s.h.Granularity()
	fc := floorAbove(1)
	next := driver.Successor{Owner: c, TTL: s.long, Patience: s.long, Floor: fc}

	ga := acquire(ctx, t, pa, key, a, s.long)
	again := acquire(ctx, t, pa, key, a, s.long)
	require.Equal(t, 2, again.Holds, "A re-enters")
	waitWith(ctx, t, pc, key, c, s.long, s.long, fc)

	require.NoError(t, pa.UnlockTo(ctx, key, a, ga.Token, next), "A drops one of two holds")
	require.NoError(t, pa.Expire(ctx, key, a, s.long), "A still holds the key after dropping one of two holds")
	if st, ok := inspect(ctx, t, pw, key); ok {
		assert.Equal(t, a, st.Owner, "a release of one of two holds grants nothing")
		assert.Equal(t, 1, st.Holds)
		assert.Equal(t, ga.Token, st.Token)
	}
	refused(ctx, t, pc, key, c, "C must not get the key while A holds it")

	require.NoError(t, pa.UnlockTo(ctx, key, a, ga.Token, next), "A drops its last hold")
	tc := w.expectTurn(t, c, "A's last release must grant the key to C, named")
	assert.True(t, tc.Passed)
	assert.Equal(t, fc, tc.Floor)
	grantedTo(ctx, t, pw, tc.Grant, key, c, ga.Token, s.long+gran)
	assert.ErrorIs(t, pa.UnlockTo(ctx, key, a, ga.Token, next), driver.ErrNotHeld, "A's third release")
	require.NoError(t, pc.Unlock(ctx, key, c))
}

func testPassLeftWaiter(ctx context.Context, t *testing.T, s *suite) {
	pa, pb, pc, pw := s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t)
	key, a, b, c := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchPasses(ctx, t, pw, key, b, c)
	gran := s.h.Granularity()
	fc := floorAbove(2)
	toC := driver.Successor{Owner: c, TTL: s.long, Patience: s.long, Floor: fc}

	ga := acquire(ctx, t, pa, key, a, s.long)
	waitWith(ctx, t, pb, key, b, s.long, s.long, floorAbove(1))
	waitWith(ctx, t, pc, key, c, s.long, s.long, fc)
	require.NoError(t, pc.Leave(ctx, key, c, s.long), "C gives up and leaves")

	require.NoError(t, pa.UnlockTo(ctx, key, a, ga.Token, toC))
	tb := w.expectTurn(t, b, "A's UnlockTo naming C, who left, must release as Unlock does: to B, first in line")
	assert.False(t, tb.Passed, "the grant to B is the line's, not the release's")
	assert.NotEqual(t, c, tb.Next.Owner, "C left the line")
	rb := grantedTo(ctx, t, pw, tb.Grant, key, b, ga.Token, s.long+gran)
	assert.ErrorIs(t, pc.Unlock(ctx, key, c), driver.ErrNotHeld, "C, who left, was granted nothing")

	// With nobody in line, a release naming C leaves the key free.
	require.NoError(t, pb.UnlockTo(ctx, key, b, rb.Token, toC))
	w.expect(t, "", "B's UnlockTo naming C, who left, with nobody in line, must release the key")
	assert.False(t, isHeld(ctx, t, pw, key), "a release naming a waiter that left frees the key")

	// The mark is C's alone: a release naming another owner grants it.
	d := "D-" + locker.NewOwner()
	wd := s.watchPasses(ctx, t, pw, key, d)
	ga = acquire(ctx, t, pa, key, a, s.long)
	require.NoError(t, pa.UnlockTo(ctx, key, a, ga.Token, driver.Successor{Owner: d, TTL: s.long, Patience: s.long}))
	td := wd.expectTurn(t, d, "A's UnlockTo naming D, who never left, must grant D the key")
	assert.True(t, td.Passed)
	grantedTo(ctx, t, pw, td.Grant, key, d, ga.Token, s.long+gran)
	require.NoError(t, pa.Unlock(ctx, key, d))
}

func testPassLapsedPatience(ctx context.Context, t *testing.T, s *suite) {
	pa, pb, pc, pw := s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t)
	key, a, b, c := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchPasses(ctx, t, pw, key, b, c)
	gran := s.h.Granularity()

	ga := acquire(ctx, t, pa, key, a, s.long)
	waitWith(ctx, t, pb, key, b, s.long, s.long, floorAbove(1))
	waitWith(ctx, t, pc, key, c, s.long, s.long, floorAbove(2))
	require.NoError(t, pa.UnlockTo(ctx, key, a, ga.Token, driver.Successor{Owner: c, TTL: s.long}))
	tb := w.expectTurn(t, b, "A's UnlockTo naming C with no patience left must release as Unlock does: to B")
	assert.False(t, tb.Passed)
	assert.Equal(t, c, tb.Next.Owner, "C, named without patience, keeps its place in line")
	rb := grantedTo(ctx, t, pw, tb.Grant, key, b, ga.Token, s.long+gran)

	require.NoError(t, pb.UnlockTo(ctx, key, b, rb.Token, driver.Successor{Owner: c, TTL: s.long, Patience: -time.Second}))
	tc := w.expectTurn(t, c, "B's UnlockTo naming C with negative patience must release as Unlock does: to C, first in line")
	assert.False(t, tc.Passed, "C got the key from the line, not from the release")
	rc := grantedTo(ctx, t, pw, tc.Grant, key, c, rb.Token, s.long+gran)

	// With nobody in line, the key is left free.
	require.NoError(t, pc.UnlockTo(ctx, key, c, rc.Token, driver.Successor{Owner: b, TTL: s.long}))
	w.expect(t, "", "C's UnlockTo naming B with no patience, with nobody in line, must release the key")
	assert.False(t, isHeld(ctx, t, pw, key), "a release naming a waiter without patience frees the key")
}

func testPassWrongHolder(ctx context.Context, t *testing.T, s *suite) {
	pa, pb, pw := s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t)
	key, a, b, d := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "D-"+locker.NewOwner()
	w := s.watchPasses(ctx, t, pw, key, b)
	gran := s.h.Granularity()
	toB := driver.Successor{Owner: b, TTL: s.long, Patience: s.long}

	ga := acquire(ctx, t, pa, key, a, s.long)
	waitWith(ctx, t, pb, key, b, s.long, s.long, floorAbove(1))
	assert.ErrorIs(t, pw.UnlockTo(ctx, key, d, 0, toB), driver.ErrNotHeld, "UnlockTo by an owner that does not hold the key")
	assert.ErrorIs(t, pw.UnlockTo(ctx, key, d, ga.Token, toB), driver.ErrNotHeld, "UnlockTo by another owner with the holder's token")
	assert.ErrorIs(t, pb.UnlockTo(ctx, key, b, 0, toB), driver.ErrNotHeld, "UnlockTo by a waiter in line")
	assert.ErrorIs(t, pa.UnlockTo(ctx, key, a, ga.Token+1, toB), driver.ErrNotHeld, "UnlockTo by the holder with another token")
	assert.ErrorIs(t, pw.UnlockTo(ctx, s.key(t, ":free"), a, 0, toB), driver.ErrNotHeld, "UnlockTo of a key nobody holds")

	require.NoError(t, pa.Expire(ctx, key, a, s.long), "the refused releases left A's hold")
	if st, ok := inspect(ctx, t, pw, key); ok {
		assert.Equal(t, a, st.Owner, "a refused UnlockTo changes nothing")
		assert.Equal(t, 1, st.Holds)
		assert.Equal(t, ga.Token, st.Token)
	}
	// B is still in line, ungranted: A's own release can name it.
	require.NoError(t, pa.UnlockTo(ctx, key, a, ga.Token, toB))
	tb := w.expectTurn(t, b, "the holder's UnlockTo naming B must grant B the key")
	assert.True(t, tb.Passed)
	grantedTo(ctx, t, pw, tb.Grant, key, b, ga.Token, s.long+gran)
	require.NoError(t, pb.Unlock(ctx, key, b))
}

func testPassLeaveGivesBack(ctx context.Context, t *testing.T, s *suite) {
	pa, pb, pc, pw := s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t)
	key, a, b, c := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchPasses(ctx, t, pw, key, b, c)
	gran := s.h.Granularity()
	fb := floorAbove(1)

	ga := acquire(ctx, t, pa, key, a, s.long)
	waitWith(ctx, t, pb, key, b, s.long, s.long, fb)
	require.NoError(t, pa.UnlockTo(ctx, key, a, ga.Token, driver.Successor{Owner: c, TTL: s.long, Patience: s.long}))
	tc := w.expectTurn(t, c, "A's UnlockTo naming C must grant C the key")
	rc := grantedTo(ctx, t, pw, tc.Grant, key, c, ga.Token, s.long+gran)

	// C gives up before it heard of the grant: Leave gives it back.
	require.NoError(t, pc.Leave(ctx, key, c, s.long), "C leaves with its grant unclaimed")
	tb := w.expectTurn(t, b, "C's Leave must pass the grant it gave back to B, first in line")
	assert.False(t, tb.Passed)
	assert.Equal(t, fb, tb.Floor)
	rb := grantedTo(ctx, t, pw, tb.Grant, key, b, rc.Token, s.long+gran)
	assert.ErrorIs(t, pc.Unlock(ctx, key, c), driver.ErrNotHeld, "C's Unlock of the grant it gave back")

	// B gives its queue grant back the same way; nobody is left.
	require.NoError(t, pb.Leave(ctx, key, b, s.long), "B leaves with its grant unclaimed")
	w.expect(t, "", "B's Leave with nobody in line")
	assert.False(t, isHeld(ctx, t, pw, key), "the key is free after the last grant was given back")

	// Leave by a holder that claimed its hold drops nothing.
	gb := acquire(ctx, t, pb, key, b, s.long)
	assert.Greater(t, gb.Token, rb.Token)
	require.NoError(t, pb.Leave(ctx, key, b, s.long), "Leave by the holder")
	require.NoError(t, pb.Expire(ctx, key, b, s.long), "Leave must never drop a hold that was claimed")
	require.NoError(t, pb.Unlock(ctx, key, b))
}

func testPassTurnNamesNext(ctx context.Context, t *testing.T, s *suite) {
	pa, pb, pc, pw := s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t)
	key, a, b, c := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchPasses(ctx, t, pw, key, b, c)
	gran := s.h.Granularity()
	fb, fc := floorAbove(1), floorAbove(2)
	leaseC, patienceC := 20*s.unit, s.long/2

	ga := acquire(ctx, t, pa, key, a, s.long)
	waitWith(ctx, t, pb, key, b, s.long, s.long, floorAbove(0))
	waitWith(ctx, t, pc, key, c, leaseC, patienceC, fc)
	waitWith(ctx, t, pb, key, b, s.long, s.long, fb) // B keeps its place, with a new floor

	require.NoError(t, pa.Unlock(ctx, key, a))
	tb := w.expectTurn(t, b, "A's release must grant the key to B, first in line")
	assert.False(t, tb.Passed, "a queue grant was not named")
	assert.Equal(t, fb, tb.Floor, "a turn tells the floor of B's last attempt")
	assert.Equal(t, c, tb.Next.Owner, "B's turn names C, next in line")
	assert.Positive(t, tb.Next.Patience, "C has patience left")
	assert.LessOrEqual(t, tb.Next.Patience, patienceC+gran, "C has no more patience left than it gave")
	assert.InDelta(t, float64(leaseC), float64(tb.Next.TTL), float64(gran), "the next waiter's lease is the one it asked for")
	assert.Equal(t, fc, tb.Next.Floor, "the next waiter's floor is its request's")
	rb := grantedTo(ctx, t, pw, tb.Grant, key, b, ga.Token, s.long+gran)

	// The holder names the waiter its turn told of, as a combinator's does.
	require.NoError(t, pb.UnlockTo(ctx, key, b, rb.Token, tb.Next))
	tc := w.expectTurn(t, c, "B's UnlockTo naming the next waiter its turn told of must grant C the key")
	assert.True(t, tc.Passed)
	assert.Equal(t, fc, tc.Floor)
	assert.GreaterOrEqual(t, tc.Grant.Token, fc)
	assert.Empty(t, tc.Next.Owner, "nobody waits behind C")
	grantedTo(ctx, t, pw, tc.Grant, key, c, rb.Token, leaseC+gran)
	require.NoError(t, pc.Dequeue(ctx, key, c), "C gives back its named grant")
	w.expect(t, "", "C's Dequeue with nobody in line")
	assert.False(t, isHeld(ctx, t, pw, key), "the key is free after the last grant was given back")
}

// testPassNoticeToTheHolder: a waiter with a floor that joins an empty
// line is told to the holder (Turn.Behind), and no other is: one behind
// it, one without a floor. A notice on one channel follows the ones
// before it, so each notice heard is the next one sent.
func testPassNoticeToTheHolder(ctx context.Context, t *testing.T, s *suite) {
	pa, pw := s.passer(ctx, t), s.passer(ctx, t)
	key, a := s.key(t, ""), "A-"+locker.NewOwner()
	waiter := func(name string) (passBackend, string) { return s.passer(ctx, t), name + "-" + locker.NewOwner() }
	w := s.watchPasses(ctx, t, pw, key, a)
	gran := s.h.Granularity()
	lease, patience := 20*s.unit, s.long/2

	ga := acquire(ctx, t, pa, key, a, s.long)
	pb, b := waiter("B")
	fb := floorAbove(1)
	waitWith(ctx, t, pb, key, b, lease, patience, fb)
	n := w.expectNotice(t, a, "B joined the empty line behind A's hold")
	assert.Equal(t, ga.Token, n.Behind, "the notice names A's hold by its token")
	assert.Zero(t, n.Grant, "a notice grants nothing")
	assert.Equal(t, b, n.Next.Owner)
	assert.Equal(t, fb, n.Next.Floor)
	assert.InDelta(t, float64(lease), float64(n.Next.TTL), float64(gran), "the lease B asked for")
	assert.Positive(t, n.Next.Patience)
	assert.LessOrEqual(t, n.Next.Patience, patience+gran, "no more patience than B gave")

	pc, c := waiter("C")
	waitWith(ctx, t, pc, key, c, lease, patience, floorAbove(2)) // behind B: no notice
	waitWith(ctx, t, pb, key, b, lease, patience, fb)            // B asks again: no notice
	require.NoError(t, pb.Dequeue(ctx, key, b))
	require.NoError(t, pc.Dequeue(ctx, key, c))
	pe, e := waiter("E")
	queueUp(ctx, t, pe, key, e, lease, patience) // no floor: no notice
	require.NoError(t, pe.Dequeue(ctx, key, e))
	pd, d := waiter("D")
	waitWith(ctx, t, pd, key, d, lease, patience, floorAbove(3))
	assert.Equal(t, d, w.expectNotice(t, a, "D joined the line emptied again").Next.Owner,
		"the notice after B's is D's: C joined behind B, B asked again, E had no floor")
	require.NoError(t, pd.Dequeue(ctx, key, d))
	require.NoError(t, pa.Unlock(ctx, key, a))
}

func testPassNamedGrantClaimed(ctx context.Context, t *testing.T, s *suite) {
	pa, pc, pw := s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t)
	key, a, c := s.key(t, ""), "A-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchPasses(ctx, t, pw, key, c)
	gran := s.h.Granularity()
	fc := floorAbove(1)

	ga := acquire(ctx, t, pa, key, a, s.long)
	waitWith(ctx, t, pc, key, c, s.long, s.long, fc)
	require.NoError(t, pa.UnlockTo(ctx, key, a, ga.Token, driver.Successor{Owner: c, TTL: s.long, Patience: s.long, Floor: fc}))
	tc := w.expectTurn(t, c, "A's UnlockTo naming C must grant C the key")
	grantedTo(ctx, t, pw, tc.Grant, key, c, ga.Token, s.long+gran)
	assert.True(t, refused(ctx, t, pa, key, a, "A must not take C's named grant").Reserved,
		"a refusal while the key is a named grant, unclaimed, reports the reservation")

	gc, err := pc.TryLock(ctx, driver.Request{Key: key, Owner: c, TTL: s.long, Patience: s.long, Floor: fc})
	require.NoError(t, err)
	require.True(t, gc.Acquired, "C's TryLock with patience claims its named grant")
	assert.Equal(t, 1, gc.Holds, "claiming a named grant adds no hold")
	assert.Equal(t, tc.Grant.Token, gc.Token, "claiming a named grant keeps its token")
	assert.False(t, refused(ctx, t, pa, key, a, "A's TryLock while C holds the key").Reserved,
		"a claimed grant is a hold: no reservation")
	require.NoError(t, pc.Dequeue(ctx, key, c))
	require.NoError(t, pc.Expire(ctx, key, c, s.long), "Dequeue must not give back a claimed grant")
	require.NoError(t, pc.Unlock(ctx, key, c))
	assert.ErrorIs(t, pc.Unlock(ctx, key, c), driver.ErrNotHeld, "a claimed grant is one hold: C's second Unlock")
}

func testPassInvalidInput(ctx context.Context, t *testing.T, s *suite) {
	pa, pc, pw := s.passer(ctx, t), s.passer(ctx, t), s.passer(ctx, t)
	key, a, c := s.key(t, ""), "A-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchPasses(ctx, t, pw, key, c)
	gran := s.h.Granularity()

	ga := acquire(ctx, t, pa, key, a, s.long)
	waitWith(ctx, t, pc, key, c, s.long, s.long, floorAbove(1))
	toC := driver.Successor{Owner: c, TTL: s.long, Patience: s.long}
	cases := []struct {
		name string
		call func() error
	}{
		{"UnlockTo empty key", func() error { return pa.UnlockTo(ctx, "", a, ga.Token, toC) }},
		{"UnlockTo empty owner", func() error { return pa.UnlockTo(ctx, key, "", ga.Token, toC) }},
		{"UnlockTo naming a successor with a zero lease", func() error {
			return pa.UnlockTo(ctx, key, a, ga.Token, driver.Successor{Owner: c, Patience: s.long})
		}},
		{"UnlockTo naming a successor with a negative lease", func() error {
			return pa.UnlockTo(ctx, key, a, 0, driver.Successor{Owner: c, TTL: -time.Second, Patience: s.long})
		}},
		{"Leave empty key", func() error { return pc.Leave(ctx, "", c, s.long) }},
		{"Leave empty owner", func() error { return pc.Leave(ctx, key, "", s.long) }},
		{"Leave for no time", func() error { return pc.Leave(ctx, key, c, 0) }},
		{"Leave for negative time", func() error { return pc.Leave(ctx, key, c, -time.Second) }},
		{"WatchTurns empty key", func() error { _, err := pc.WatchTurns(ctx, "", c, func(driver.Turn) {}); return err }},
		{"WatchTurns empty owner", func() error { _, err := pc.WatchTurns(ctx, key, "", func(driver.Turn) {}); return err }},
		{"WatchTurns nil callback", func() error { _, err := pc.WatchTurns(ctx, key, c, nil); return err }},
	}
	for _, tc := range cases {
		assert.ErrorIs(t, tc.call(), driver.ErrInvalid, tc.name)
	}

	// None of them released A's hold, nor took C out of line or marked it
	// as having left: A's release naming C grants it.
	require.NoError(t, pa.Expire(ctx, key, a, s.long), "A still holds the key after the refused releases")
	require.NoError(t, pa.UnlockTo(ctx, key, a, ga.Token, toC))
	tc := w.expectTurn(t, c, "A's UnlockTo naming C after bad input must grant C the key")
	assert.True(t, tc.Passed)
	grantedTo(ctx, t, pw, tc.Grant, key, c, ga.Token, s.long+gran)
	require.NoError(t, pc.Unlock(ctx, key, c))
}
