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

// queueBackend is a backend with a wait queue.
type queueBackend interface {
	driver.Backend
	driver.Queuer
}

// queueCases are the parts of WaitQueue, in the order they run.
var queueCases = []testCase{
	{"FirstComeFirstServed", testQueueOrder},
	{"DequeueHandsOn", testQueueDequeue},
	{"UnlockGrantHandsOn", testQueueUnlockGrant},
	{"LapsedWaiterSkipped", testQueueLapsedWaiter},
	{"GrantLapses", testQueueGrantLapses},
	{"ForceUnlockHandsOff", testQueueForceUnlock},
	{"ExpiredLeaseGoesToHead", testQueueExpiredLease},
	{"HeadTakesFreeKey", testQueueHeadTakesFreeKey},
	{"InvalidInput", testQueueInvalidInput},
}

func testWaitQueue(ctx context.Context, t *testing.T, s *suite) {
	if _, ok := s.backend(ctx, t).(driver.Queuer); !ok {
		t.Skip("backend has no wait queue (driver.Queuer)")
	}
	for _, c := range queueCases {
		t.Run(c.name, func(t *testing.T) { c.run(ctx, t, s) })
	}
}

// queuer returns a new client with a wait queue, closed when the subtest
// ends.
func (s *suite) queuer(ctx context.Context, t *testing.T) queueBackend {
	t.Helper()
	b := s.backend(ctx, t)
	q, ok := b.(queueBackend)
	require.True(t, ok, "a second client of the store has no wait queue: %T", b)
	return q
}

func testQueueOrder(ctx context.Context, t *testing.T, s *suite) {
	qa, qb, qc, qw := s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t)
	key, a, b, c := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchQueue(ctx, t, qw, key, b, c)
	gran := s.h.Granularity()

	ga := acquire(ctx, t, qa, key, a, s.long)
	g, err := qb.TryLock(ctx, driver.Request{Key: key, Owner: b, TTL: s.long, Patience: s.long})
	require.NoError(t, err)
	require.False(t, g.Acquired, "B's TryLock with patience while A holds the key")
	assert.False(t, g.Reserved, "a refusal by a holder is no reservation")
	assert.Positive(t, g.Remaining, "a refused TryLock with patience reports the holder's remaining lease")
	assert.LessOrEqual(t, g.Remaining, s.long+gran)
	queueUp(ctx, t, qc, key, c, s.long, s.long)
	queueUp(ctx, t, qb, key, b, s.long, s.long) // B keeps its place ahead of C

	require.NoError(t, qa.Unlock(ctx, key, a))
	tb := w.expect(t, b, "A's release must grant the key to B, first in line")
	if tb.Acquired {
		assert.Equal(t, ga.Token, g.Token, "a store whose turns carry grants reports the lock's token when it refuses an attempt with patience")
	}
	rb := grantedTo(ctx, t, qw, tb, key, b, max(ga.Token, g.Token), s.long+gran)
	assert.True(t, refused(ctx, t, qc, key, c, "C's TryLock must not take B's grant").Reserved,
		"a refusal while the key is granted to B, unclaimed, reports the reservation")
	rc, err := qc.TryLock(ctx, driver.Request{Key: key, Owner: c, TTL: s.long, Patience: s.long})
	require.NoError(t, err)
	assert.False(t, rc.Acquired, "C's TryLock with patience must not take B's grant")
	assert.True(t, rc.Reserved, "C's TryLock with patience, refused by B's grant, reports the reservation")
	refused(ctx, t, qa, key, a, "a newcomer must not overtake the queue")

	gb := claim(ctx, t, qb, key, b, s.long, "B's TryLock with patience must claim its grant")
	assert.False(t, refused(ctx, t, qa, key, a, "A's TryLock while B holds the key").Reserved,
		"a claimed grant is a hold: no reservation")
	assert.Greater(t, gb.Token, ga.Token, "B's token must exceed A's")
	if rb.Held {
		assert.Equal(t, rb.Token, gb.Token, "claiming a grant keeps its token")
	}
	again, err := qb.TryLock(ctx, driver.Request{Key: key, Owner: b, TTL: s.long})
	require.NoError(t, err)
	assert.True(t, again.Acquired, "B re-enters")
	assert.Equal(t, 2, again.Holds)
	assert.Equal(t, gb.Token, again.Token, "re-entry keeps the token")
	require.NoError(t, qb.Unlock(ctx, key, b))
	st, ok := inspect(ctx, t, qw, key)
	if ok {
		assert.Equal(t, b, st.Owner, "B still holds the key after dropping one of two holds")
		assert.Equal(t, 1, st.Holds)
	}
	require.NoError(t, qb.Unlock(ctx, key, b))
	tc := w.expect(t, c, "B's release must grant the key to C, next in line")
	takeUp(ctx, t, qc, grantedTo(ctx, t, qw, tc, key, c, max(gb.Token, rc.Token), s.long+gran), key, c, s.long)

	// C holds the key from its grant, without another call (unless the
	// store reserves): it renews and releases it as any holder.
	require.NoError(t, qc.Expire(ctx, key, c, s.long), "C renews the lease of its grant")
	require.NoError(t, qc.Unlock(ctx, key, c), "C releases its grant")
	w.expect(t, "", "C's release with nobody in line")
	isFree(ctx, t, qw, key, "after the last waiter's release")
	assert.ErrorIs(t, qc.Unlock(ctx, key, c), driver.ErrNotHeld, "a grant is one hold: C's second Unlock")

	// After stop returns, the callback is not called again.
	w[b].stop()
	w[b].drain()
	acquire(ctx, t, qa, key, a, s.long)
	queueUp(ctx, t, qb, key, b, s.long, s.long)
	require.NoError(t, qa.Unlock(ctx, key, a))
	grantedTo(ctx, t, qw, driver.Grant{}, key, b, 0, s.long+gran)
	time.Sleep(2 * s.unit)
	assert.Empty(t, w[b].calls, "the turn watcher ran after stop")
	require.NoError(t, qb.Dequeue(ctx, key, b))
	w.expect(t, "", "B gives back its grant with nobody in line")
}

func testQueueDequeue(ctx context.Context, t *testing.T, s *suite) {
	qa, qb, qc, qw := s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t)
	key := s.key(t, "")
	a, b, c, d := "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "C-"+locker.NewOwner(), "D-"+locker.NewOwner()
	w := s.watchQueue(ctx, t, qw, key, b, c, d)
	gran := s.h.Granularity()

	ga := acquire(ctx, t, qa, key, a, s.long)
	queueUp(ctx, t, qb, key, b, s.long, s.long)
	queueUp(ctx, t, qc, key, d, s.long, s.long)
	queueUp(ctx, t, qc, key, c, s.long, s.long)
	require.NoError(t, qc.Dequeue(ctx, key, d), "D leaves the queue")

	require.NoError(t, qa.Unlock(ctx, key, a))
	rb := grantedTo(ctx, t, qw, w.expect(t, b, "A's release must grant the key to B"), key, b, ga.Token, s.long+gran)
	require.NoError(t, qb.Dequeue(ctx, key, b), "B gives back its grant")
	rc := grantedTo(ctx, t, qw, w.expect(t, c, "B's Dequeue must pass the grant to C, skipping D who left"), key, c, rb.Token, s.long+gran)
	refused(ctx, t, qb, key, b, "B left the queue: the key is C's")
	refused(ctx, t, qc, key, d, "D left the queue: the key is C's")
	require.NoError(t, qc.Dequeue(ctx, key, c), "C gives back its grant")
	w.expect(t, "", "C's Dequeue with nobody left in line")
	isFree(ctx, t, qw, key, "after the last grant was given back")
	assert.ErrorIs(t, qc.Unlock(ctx, key, c), driver.ErrNotHeld, "C's Unlock of the grant it gave back")

	// B's refused TryLock did not queue it: a newcomer takes the free key.
	e := "E-" + locker.NewOwner()
	ge := acquire(ctx, t, qa, key, e, s.long)
	if rc.Held {
		assert.Greater(t, ge.Token, rc.Token, "a grant given back used its token")
	}
	before, inspected := inspect(ctx, t, qw, key)
	require.NoError(t, qa.Dequeue(ctx, key, e), "Dequeue by the holder")
	require.NoError(t, qb.Dequeue(ctx, key, b), "Dequeue by an owner not in line")
	require.NoError(t, qb.Dequeue(ctx, key, "F-"+locker.NewOwner()), "Dequeue by an unknown owner")
	if after, _ := inspect(ctx, t, qw, key); inspected {
		assert.Equal(t, before.Owner, after.Owner, "Dequeue with nothing to do must change nothing")
		assert.Equal(t, 1, after.Holds, "Dequeue must never drop a hold that was taken")
		assert.Equal(t, ge.Token, after.Token)
	}
	refused(ctx, t, qb, key, b, "the holder's Dequeue must leave its hold")
	require.NoError(t, qa.Unlock(ctx, key, e), "the holder's hold survives its Dequeue")
	w.expect(t, "", "E's release")
}

func testQueueUnlockGrant(ctx context.Context, t *testing.T, s *suite) {
	qa, qb, qc, qw := s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t)
	key, a, b, c := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchQueue(ctx, t, qw, key, b, c)
	gran := s.h.Granularity()

	ga := acquire(ctx, t, qa, key, a, s.long)
	queueUp(ctx, t, qb, key, b, s.long, s.long)
	queueUp(ctx, t, qc, key, c, s.long, s.long)
	require.NoError(t, qa.Unlock(ctx, key, a))
	rb := grantedTo(ctx, t, qw, w.expect(t, b, "A's release must grant the key to B"), key, b, ga.Token, s.long+gran)
	takeUp(ctx, t, qb, rb, key, b, s.long)

	// The granted owner renews its lease as any holder.
	short := 5 * s.unit
	require.NoError(t, qb.Expire(ctx, key, b, short), "Expire by the granted owner")
	grantedTo(ctx, t, qw, driver.Grant{}, key, b, 0, short+gran)
	assert.ErrorIs(t, qc.Expire(ctx, key, c, s.long), driver.ErrNotHeld, "Expire by a waiter still in line")
	assert.ErrorIs(t, qc.Unlock(ctx, key, c), driver.ErrNotHeld, "Unlock by a waiter still in line")
	grantedTo(ctx, t, qw, driver.Grant{}, key, b, 0, short+gran)

	require.NoError(t, qb.Unlock(ctx, key, b), "B's Unlock of its grant is its last")
	rc := grantedTo(ctx, t, qw, w.expect(t, c, "B's Unlock must pass the key to C"), key, c, rb.Token, s.long+gran)
	assert.ErrorIs(t, qb.Unlock(ctx, key, b), driver.ErrNotHeld, "B's second Unlock")

	if !rc.Held {
		// A store that only reserved the key for C (see grantedTo): C
		// claims it. Re-entering a grant is a granting store's.
		claim(ctx, t, qc, key, c, s.long, "C claims the key reserved for it")
		require.NoError(t, qc.Unlock(ctx, key, c))
		w.expect(t, "", "C's Unlock with nobody left in line")
		isFree(ctx, t, qw, key, "after the key reserved for C was released")
		return
	}
	// A TryLock without patience by the grantee re-enters the grant, and
	// claims it: Dequeue no longer gives it back.
	gc, err := qc.TryLock(ctx, driver.Request{Key: key, Owner: c, TTL: s.long})
	require.NoError(t, err)
	require.True(t, gc.Acquired, "C re-enters its grant")
	assert.Equal(t, 2, gc.Holds, "re-entry adds a hold to the grant's")
	assert.Equal(t, rc.Token, gc.Token, "re-entry keeps the grant's token")
	require.NoError(t, qc.Dequeue(ctx, key, c))
	if st, ok := inspect(ctx, t, qw, key); ok {
		assert.Equal(t, c, st.Owner, "Dequeue must not give back a grant claimed by re-entry")
		assert.Equal(t, 2, st.Holds)
	}
	require.NoError(t, qc.Unlock(ctx, key, c))
	require.NoError(t, qc.Unlock(ctx, key, c))
	w.expect(t, "", "C's last Unlock with nobody left in line")
	isFree(ctx, t, qw, key, "after the last grant was released")
}

func testQueueLapsedWaiter(ctx context.Context, t *testing.T, s *suite) {
	qa, qb, qc, qw := s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t)
	key, a, b, c := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchQueue(ctx, t, qw, key, b, c)
	gran := s.h.Granularity()

	ga := acquire(ctx, t, qa, key, a, s.long)
	queueUp(ctx, t, qb, key, b, s.long, 2*s.unit)
	queueUp(ctx, t, qc, key, c, s.long, s.long)
	time.Sleep(s.expiryLimit(2 * s.unit)) // B does not call again
	require.NoError(t, qa.Unlock(ctx, key, a))
	rc := grantedTo(ctx, t, qw, w.expect(t, c, "A's release must skip B, whose patience ran out, and grant the key to C"), key, c, ga.Token, s.long+gran)

	// B asks again: it waits behind C now.
	queueUp(ctx, t, qb, key, b, s.long, s.long)
	claim(ctx, t, qc, key, c, s.long, "C claims its grant")
	require.NoError(t, qc.Unlock(ctx, key, c))
	rb := grantedTo(ctx, t, qw, w.expect(t, b, "C's release must grant the key to B, who queued again"), key, b, rc.Token, s.long+gran)
	takeUp(ctx, t, qb, rb, key, b, s.long)
	require.NoError(t, qb.Unlock(ctx, key, b))
	w.expect(t, "", "B releases its grant with nobody in line")
}

func testQueueGrantLapses(ctx context.Context, t *testing.T, s *suite) {
	qa, qb, qc, qw := s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t)
	key, a, b, c := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchQueue(ctx, t, qw, key, b)
	gran := s.h.Granularity()
	lease := 15 * s.unit

	ga := acquire(ctx, t, qa, key, a, s.long)
	queueUp(ctx, t, qb, key, b, lease, s.long) // a short lease, a long patience
	start := time.Now()
	require.NoError(t, qa.Unlock(ctx, key, a))
	rb := grantedTo(ctx, t, qw, w.expect(t, b, "A's release must grant the key to B"), key, b, ga.Token, lease+gran)
	g := refused(ctx, t, qc, key, c, "C's TryLock must not take B's grant")
	assert.Positive(t, g.Remaining, "a refused TryLock reports the grant's remaining lease")
	assert.LessOrEqual(t, g.Remaining, lease+gran, "a grant has the lease the waiter asked for, not its patience")

	// B never uses it: it lapses with its lease.
	var gc driver.Grant
	eventually(ctx, t, s.expiryLimit(lease), "another owner taking the key after B's grant lapsed", func() bool {
		var err error
		gc, err = qc.TryLock(ctx, driver.Request{Key: key, Owner: c, TTL: s.long})
		require.NoError(t, err)
		return gc.Acquired
	})
	assert.GreaterOrEqual(t, time.Since(start), lease-gran/2, "the grant ended before its lease")
	assert.Greater(t, gc.Token, ga.Token, "C's token must exceed A's")
	if rb.Held {
		assert.Greater(t, gc.Token, rb.Token, "C's token must exceed the lapsed grant's")
	}
	assert.ErrorIs(t, qb.Unlock(ctx, key, b), driver.ErrNotHeld, "B's Unlock after its grant lapsed")
	refused(ctx, t, qb, key, b, "B's TryLock after its grant lapsed, while C holds the key")
	require.NoError(t, qc.Unlock(ctx, key, c))
	w.expect(t, "", "C's release with nobody in line")
}

func testQueueForceUnlock(ctx context.Context, t *testing.T, s *suite) {
	qa, qb, qc, qw := s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t)
	f, ok := qw.(driver.ForceUnlocker)
	if !ok {
		t.Skip("backend has no force unlock (driver.ForceUnlocker)")
	}
	key, a, b, c := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchQueue(ctx, t, qw, key, b, c)
	gran := s.h.Granularity()

	ga := acquire(ctx, t, qa, key, a, s.long)
	queueUp(ctx, t, qb, key, b, s.long, s.long)
	queueUp(ctx, t, qc, key, c, s.long, s.long)
	held, err := f.ForceUnlock(ctx, key)
	require.NoError(t, err)
	assert.True(t, held, "force unlock of a held key")
	rb := grantedTo(ctx, t, qw, w.expect(t, b, "ForceUnlock must grant the key to B, first in line"), key, b, ga.Token, s.long+gran)
	assert.ErrorIs(t, qa.Unlock(ctx, key, a), driver.ErrNotHeld, "A's Unlock after force unlock")

	held, err = f.ForceUnlock(ctx, key)
	require.NoError(t, err)
	if rb.Held {
		assert.True(t, held, "force unlock of a granted key")
	}
	grantedTo(ctx, t, qw, w.expect(t, c, "ForceUnlock of B's grant must pass the key to C"), key, c, rb.Token, s.long+gran)
	claim(ctx, t, qc, key, c, s.long, "C claims its grant")
	assert.ErrorIs(t, qb.Unlock(ctx, key, b), driver.ErrNotHeld, "B's Unlock after its grant was forced away")

	held, err = f.ForceUnlock(ctx, key)
	require.NoError(t, err)
	assert.True(t, held)
	w.expect(t, "", "ForceUnlock with nobody in line")
	isFree(ctx, t, qw, key, "after force unlock with nobody in line")
	assert.ErrorIs(t, qc.Unlock(ctx, key, c), driver.ErrNotHeld, "C's Unlock after force unlock")
}

func testQueueExpiredLease(ctx context.Context, t *testing.T, s *suite) {
	qa, qb, qc, qw := s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t)
	key, a, b, c := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchQueue(ctx, t, qw, key, b)
	gran := s.h.Granularity()

	ga := acquire(ctx, t, qa, key, a, s.long)
	queueUp(ctx, t, qb, key, b, s.long, s.long)
	// Shorten A's lease only now, so that B is surely in line before it
	// runs out.
	require.NoError(t, qa.Expire(ctx, key, a, 2*s.unit))
	time.Sleep(s.expiryLimit(2 * s.unit))

	g := refused(ctx, t, qc, key, c, "a newcomer must not take a key whose lease ran out while B waits")
	assert.Positive(t, g.Remaining, "the refusal reports the grant's remaining lease")
	grantedTo(ctx, t, qw, w.expect(t, b, "the attempt that found the lease run out must grant the key to B"), key, b, ga.Token, s.long+gran)
	assert.ErrorIs(t, qa.Unlock(ctx, key, a), driver.ErrNotHeld, "A's Unlock after its lease ran out")
	gb := claim(ctx, t, qb, key, b, s.long, "B claims its grant")
	assert.Greater(t, gb.Token, ga.Token, "B's token must exceed A's")
	require.NoError(t, qb.Unlock(ctx, key, b))
	w.expect(t, "", "B's release with nobody in line")
}

func testQueueHeadTakesFreeKey(ctx context.Context, t *testing.T, s *suite) {
	qa, qb, qc, qw := s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t)
	key, a, b, c := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner(), "C-"+locker.NewOwner()
	w := s.watchQueue(ctx, t, qw, key, b, c)
	gran := s.h.Granularity()

	ga := acquire(ctx, t, qa, key, a, s.long)
	queueUp(ctx, t, qb, key, b, s.long, s.long)
	queueUp(ctx, t, qc, key, c, s.long, s.long)
	require.NoError(t, qa.Expire(ctx, key, a, 2*s.unit))
	time.Sleep(s.expiryLimit(2 * s.unit))

	// Nobody called since A's lease ran out: B, first in line, finds the
	// key free and takes it.
	gb, err := qb.TryLock(ctx, driver.Request{Key: key, Owner: b, TTL: s.long, Patience: s.long})
	require.NoError(t, err)
	require.True(t, gb.Acquired, "the first in line takes a free key")
	assert.Equal(t, 1, gb.Holds)
	assert.Greater(t, gb.Token, ga.Token, "B's token must exceed A's")
	require.NoError(t, qb.Unlock(ctx, key, b))
	grantedTo(ctx, t, qw, w.expect(t, c, "B's release must grant the key to C: B left the queue when it took the key"), key, c, gb.Token, s.long+gran)
	require.NoError(t, qc.Dequeue(ctx, key, c))
	w.expect(t, "", "C gives back its grant with nobody in line")
	isFree(ctx, t, qw, key, "after the last grant was given back")
}

func testQueueInvalidInput(ctx context.Context, t *testing.T, s *suite) {
	qa, qb, qw := s.queuer(ctx, t), s.queuer(ctx, t), s.queuer(ctx, t)
	key, a, b := s.key(t, ""), "A-"+locker.NewOwner(), "B-"+locker.NewOwner()
	w := s.watchQueue(ctx, t, qw, key, b)

	acquire(ctx, t, qa, key, a, s.long)
	cases := []struct {
		name string
		call func() error
	}{
		{"TryLock with patience, negative patience", func() error {
			_, err := qb.TryLock(ctx, driver.Request{Key: key, Owner: b, TTL: s.long, Patience: -time.Second})
			return err
		}},
		{"TryLock with patience, zero lease", func() error {
			_, err := qb.TryLock(ctx, driver.Request{Key: key, Owner: b, TTL: 0, Patience: s.long})
			return err
		}},
		{"TryLock with patience, empty key", func() error {
			_, err := qb.TryLock(ctx, driver.Request{Key: "", Owner: b, TTL: s.long, Patience: s.long})
			return err
		}},
		{"TryLock with patience, empty owner", func() error {
			_, err := qb.TryLock(ctx, driver.Request{Key: key, Owner: "", TTL: s.long, Patience: s.long})
			return err
		}},
		{"Dequeue empty key", func() error { return qb.Dequeue(ctx, "", b) }},
		{"Dequeue empty owner", func() error { return qb.Dequeue(ctx, key, "") }},
		{"WatchTurn empty key", func() error { _, err := qb.WatchTurn(ctx, "", b, func(driver.Grant) {}); return err }},
		{"WatchTurn empty owner", func() error { _, err := qb.WatchTurn(ctx, key, "", func(driver.Grant) {}); return err }},
		{"WatchTurn nil callback", func() error { _, err := qb.WatchTurn(ctx, key, b, nil); return err }},
	}
	for _, c := range cases {
		assert.ErrorIs(t, c.call(), driver.ErrInvalid, c.name)
	}
	// None of them queued B: A's release frees the key.
	require.NoError(t, qa.Unlock(ctx, key, a))
	w.expect(t, "", "A's release after refused TryLock calls with patience")
	isFree(ctx, t, qw, key, "bad input must not have put B in line")
	g := acquire(ctx, t, qw, key, "C-"+locker.NewOwner(), s.long)
	assert.Equal(t, 1, g.Holds)
}
