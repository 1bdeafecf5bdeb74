package quorum

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
)

// passEngine returns a majority engine over five memory members, which
// pass, with its targets.
func passEngine(t *testing.T, s Settings) (*engine, []target) {
	t.Helper()
	ts := make([]target, 5)
	for i := range ts {
		ts[i] = newTarget(memlocker.New(), "k", "member")
	}
	e := newEngine(Majority, s, ts, driver.Share{})
	require.True(t, e.passes, "memory members pass")
	return &e, ts
}

// passTurn is a turn a release that named the waiter sent.
func passTurn(token, floor uint64) driver.Turn {
	return driver.Turn{Grant: driver.Grant{Acquired: true, Holds: 1, Token: token}, Floor: floor, Passed: true}
}

// TestPassesMakeAQuorum: the turns that name a waiter count toward its
// quorum only when they answer an attempt of its present wait (by floor)
// and come after its refusals (by token); a quorum of one token is a
// grant, which the waiter's next attempt returns, valid for the lease
// counted from the attempt the grants answer, less the drift, relative to
// the attempt that returns it; the timer that the first turn armed is
// stopped; a turn after the lock was taken is one more hold for the
// ledger; the line member's grant is part of every quorum, and its turn
// names the hold's heir, whom a release names once.
func TestPassesMakeAQuorum(t *testing.T) {
	e, ts := passEngine(t, DefaultSettings(Majority))
	const lease, patience, floor = time.Minute, 3 * time.Second, 1000
	start := time.Now()
	e.waits.refused("k", "o", driver.Grant{Token: 10}, false, start, lease, patience, floor)
	_, _, _ = e.waits.begin("k", "o", start.Add(time.Millisecond)) // a later attempt of the wait
	var woken atomic.Int32
	wake := func() { woken.Add(1) }
	others := []int{}
	for i := range ts {
		if i != e.line {
			others = append(others, i)
		}
	}

	assert.Equal(t, passIgnored, e.pass(ts, "k", "o", others[0], passTurn(20, floor+1), start, wake).state,
		"a floor that none of the wait's attempts gave")
	assert.Equal(t, passIgnored, e.pass(ts, "k", "o", others[0], passTurn(10, floor), start, wake).state,
		"a token that is not above the wait's refusals")
	assert.Equal(t, passIgnored, e.pass(ts, "k", "p", others[0], passTurn(20, floor), start, wake).state,
		"an owner that does not wait")
	assert.Equal(t, passPending, e.pass(ts, "k", "o", others[0], passTurn(20, floor), start, wake).state)
	assert.Equal(t, passPending, e.pass(ts, "k", "o", others[1], passTurn(21, floor), start, wake).state,
		"a token that disagrees")
	assert.Equal(t, passPending, e.pass(ts, "k", "o", others[2], passTurn(20, floor), start, wake).state)
	assert.Equal(t, passPending, e.pass(ts, "k", "o", others[3], passTurn(20, floor), start, wake).state,
		"a quorum waits for the line member's grant")
	line := passTurn(20, floor)
	line.Next = driver.Successor{Owner: "n", TTL: lease, Patience: 2 * time.Second, Floor: 2000}
	require.Equal(t, passQuorum, e.pass(ts, "k", "o", e.line, line, start, wake).state)
	time.Sleep(3 * passWait(ts))
	assert.Zero(t, woken.Load(), "the quorum stops the timer")
	b := e.begin(ts, "k", "o", start.Add(3*time.Millisecond))
	require.NotNil(t, b.won, "the next attempt has the lock")
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 1, Token: 20,
		Validity: lease - 3*time.Millisecond - e.s.drift(lease)}, b.won.grant)
	assert.Equal(t, map[int]uint64{others[0]: 20, others[1]: 21, others[2]: 20, others[3]: 20, e.line: 20}, b.won.tokens,
		"every member that granted is held, whatever its token")
	assert.Nil(t, e.begin(ts, "k", "o", start.Add(4*time.Millisecond)).won, "the lock is taken once")

	late := e.pass(ts, "k", "o", others[1], passTurn(22, floor), start, wake)
	assert.Equal(t, passLate, late.state)
	assert.Equal(t, map[int]uint64{others[1]: 22}, late.tokens)

	h := e.waits.heir("k", "o", 20, start.Add(time.Second))
	assert.Equal(t, "n", h.Owner)
	assert.Equal(t, time.Second, h.Patience, "the patience the turn said, less the time since")
	assert.Equal(t, uint64(2000), h.Floor)
	assert.Empty(t, e.waits.heir("k", "o", 20, start.Add(time.Second)).Owner, "a hold names its heir once")
}

// TestPassesThatMakeNoQuorumWake: turns that make no quorum (tokens that
// disagree, a store the restart guard leaves out, no validity left) wake
// the waiter after passWait, so that it takes the lock with an attempt,
// which holds the members with their grants while their lease lasts.
func TestPassesThatMakeNoQuorumWake(t *testing.T) {
	const lease, patience, floor = time.Minute, 3 * time.Second, 1000
	for _, c := range []struct {
		name   string
		start  time.Duration // when the wait's attempt began, from now
		uptime time.Duration
		token  func(i int) uint64
		held   int // the grants the attempt holds
	}{
		{"tokens that disagree", 0, 0, func(i int) uint64 { return 20 + uint64(i%3) }, 5},
		{"restarted stores", 0, time.Millisecond, func(int) uint64 { return 20 }, 5},
		{"no validity left", -lease, 0, func(int) uint64 { return 20 }, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, ts := passEngine(t, DefaultSettings(Majority))
			now := time.Now()
			e.waits.refused("k", "o", driver.Grant{Token: 10}, false, now.Add(c.start), lease, patience, floor)
			woken := make(chan struct{}, 1)
			for i := range ts {
				turn := passTurn(c.token(i), floor)
				turn.Grant.Uptime = c.uptime
				assert.Equal(t, passPending, e.pass(ts, "k", "o", i, turn, now, func() { woken <- struct{}{} }).state)
			}
			select {
			case <-woken:
			case <-time.After(time.Second):
				t.Fatal("the waiter was not woken")
			}
			b := e.begin(ts, "k", "o", time.Now())
			assert.Nil(t, b.won)
			assert.Len(t, b.passed, c.held, "its attempt holds the members with the turns' grants while their lease lasts")
		})
	}
}

// TestAWaiterThatLeftIsNotAnHeir: leave forgets the wait and the heir of
// the owner's hold, and returns how long a release may still name the
// owner: its wait's patience.
func TestAWaiterThatLeftIsNotAnHeir(t *testing.T) {
	e, ts := passEngine(t, DefaultSettings(Majority))
	start := time.Now()
	e.waits.refused("k", "o", driver.Grant{Token: 10}, false, start, time.Minute, 3*time.Second, 1000)
	line := passTurn(20, 1000)
	line.Next = driver.Successor{Owner: "n", TTL: time.Minute, Patience: time.Second}
	e.waits.turn("k", "o", line, start)
	assert.Equal(t, 3*time.Second, e.waits.leave("k", "o"))
	assert.Equal(t, passIgnored, e.pass(ts, "k", "o", e.line, line, start, func() {}).state, "the wait is over")
	_, held, _ := e.waits.begin("k", "o", start)
	assert.Nil(t, held)
	assert.Empty(t, e.waits.heir("k", "o", 20, start).Owner)
}

// TestANoticeNamesTheHeirOfItsHold: a notice (driver.Turn.Behind) makes
// its waiter the heir of the hold it names, and of no other; it does not
// replace an heir the hold already has, and a hold won from a turn that
// named nobody keeps the heir a notice that came first told of.
func TestANoticeNamesTheHeirOfItsHold(t *testing.T) {
	e, _ := passEngine(t, DefaultSettings(Majority))
	now := time.Now()
	notice := func(hold uint64, owner string) driver.Turn {
		return driver.Turn{Behind: hold, Next: driver.Successor{Owner: owner, TTL: time.Minute, Patience: 2 * time.Second, Floor: 3000}}
	}

	e.waits.noticed("k", "o", notice(20, "n"), now)
	h := e.waits.heir("k", "o", 20, now.Add(time.Second))
	assert.Equal(t, driver.Successor{Owner: "n", TTL: time.Minute, Patience: time.Second, Floor: 3000}, h,
		"the notice's waiter, with the patience it had less the time since")
	assert.Empty(t, e.waits.heir("k", "o", 20, now).Owner, "a hold names its heir once")

	e.waits.noticed("k", "o", notice(20, "n"), now)
	assert.Empty(t, e.waits.heir("k", "o", 21, now).Owner, "a notice names the heir of its hold, not of a later one")
	e.waits.noticed("k", "o", notice(20, "n"), now)
	assert.Empty(t, e.waits.heir("k", "o", 0, now).Owner, "nor of a hold whose token is unknown")
	e.waits.noticed("k", "o", notice(20, "n"), now)
	assert.Empty(t, e.waits.heir("k", "o", 20, now.Add(2*time.Second)).Owner, "nor once its patience is over")

	e.waits.noticed("k", "o", notice(20, "n"), now)
	e.waits.noticed("k", "o", notice(20, "m"), now)
	assert.Equal(t, "n", e.waits.heir("k", "o", 20, now).Owner, "a later notice of the same hold does not replace the heir")
	e.waits.noticed("k", "o", notice(20, "n"), now)
	e.waits.noticed("k", "o", notice(30, "m"), now)
	assert.Equal(t, "m", e.waits.heir("k", "o", 30, now).Owner, "a notice of another hold does")

	// A hold won from a turn: its heir is the one the turn named, which a
	// notice does not replace; a turn that named nobody leaves the heir a
	// notice told of.
	e.waits.refused("k", "o", driver.Grant{Token: 10}, false, now, time.Minute, 3*time.Second, 1000)
	line := passTurn(40, 1000)
	line.Next = driver.Successor{Owner: "x", TTL: time.Minute, Patience: time.Second}
	e.waits.turn("k", "o", line, now)
	e.waits.won("k", "o", now)
	e.waits.noticed("k", "o", notice(40, "n"), now)
	assert.Equal(t, "x", e.waits.heir("k", "o", 40, now).Owner)

	e.waits.refused("k", "o", driver.Grant{Token: 40}, false, now, time.Minute, 3*time.Second, 1000)
	e.waits.turn("k", "o", passTurn(50, 1000), now)
	e.waits.noticed("k", "o", notice(50, "n"), now)
	e.waits.won("k", "o", now)
	assert.Equal(t, "n", e.waits.heir("k", "o", 50, now).Owner)
}

// TestTurnsHeardDuringAnAttemptMakeNoQuorum: while an attempt of the wait
// is in flight, the turns only count; when it fails, the turns of the
// members it took, and so released, count no more, and the waiter is
// woken for the rest.
func TestTurnsHeardDuringAnAttemptMakeNoQuorum(t *testing.T) {
	e, ts := passEngine(t, DefaultSettings(Majority))
	const floor = 1000
	start := time.Now()
	e.waits.refused("k", "o", driver.Grant{Token: 10}, false, start, time.Minute, 3*time.Second, floor)
	b := e.begin(ts, "k", "o", start)
	require.Nil(t, b.won)
	woken := make(chan struct{}, len(ts))
	wake := func() { woken <- struct{}{} }
	for i := range ts {
		assert.Equal(t, passPending, e.pass(ts, "k", "o", i, passTurn(20, floor), start, wake).state,
			"member %d: an attempt is in flight", i)
	}
	rs := make([]memberResult, len(ts))
	took := (e.line + 1) % len(ts)
	rs[took].state = released
	e.attemptEnded("k", "o", rs)
	select {
	case <-woken:
	default:
		t.Fatal("a waiter with turns counted is woken when its attempt fails")
	}
	b = e.begin(ts, "k", "o", time.Now())
	require.NotNil(t, b.won, "four turns are a quorum")
	assert.NotContains(t, b.won.tokens, took, "the member the attempt took and released is not held")
	assert.Len(t, b.won.tokens, len(ts)-1)
}

// TestANamedGrantAnAttemptReentersIsOneHold: a release names the waiter on
// some members before the waiter's attempt asks them, and its turns are
// not heard yet: the attempt's TryLocks there re-enter the named grants,
// and the attempt makes each one hold again, so that the waiter's release
// frees every member.
func TestANamedGrantAnAttemptReentersIsOneHold(t *testing.T) {
	ctx := context.Background()
	e, ts := passEngine(t, DefaultSettings(Majority))
	const lease, patience = time.Minute, 3 * time.Second
	for _, tg := range ts {
		g, err := tg.b.TryLock(ctx, driver.Request{Key: "k", Owner: "h", TTL: lease})
		require.NoError(t, err)
		require.True(t, g.Acquired)
	}
	waiting := driver.Request{Key: "k", Owner: "w", TTL: lease, Patience: patience}
	g, err := e.tryLock(ctx, ts, waiting)
	require.NoError(t, err)
	require.False(t, g.Acquired, "the holder holds every member")

	// The holder names the waiter on the line member and two others, and
	// releases the rest.
	named := map[int]bool{e.line: true, (e.line + 1) % 5: true, (e.line + 2) % 5: true}
	for i, tg := range ts {
		if named[i] {
			require.NoError(t, tg.passer.UnlockTo(ctx, "k", "h", 0, driver.Successor{Owner: "w", TTL: lease, Patience: patience}))
		} else {
			require.NoError(t, tg.b.Unlock(ctx, "k", "h"))
		}
	}
	g, err = e.tryLock(ctx, ts, waiting)
	require.NoError(t, err)
	require.True(t, g.Acquired)
	assert.Equal(t, 1, g.Holds)
	for i, tg := range ts {
		st, err := tg.inspector.Inspect(ctx, "k")
		require.NoError(t, err)
		assert.Equal(t, 1, st.Holds, "member %d holds the lock once for the waiter", i)
	}
	require.NoError(t, e.unlock(ctx, ts, "w"))
	for i, tg := range ts {
		st, err := tg.inspector.Inspect(ctx, "k")
		require.NoError(t, err)
		assert.False(t, st.Held, "member %d is free after the waiter's release", i)
	}
}
