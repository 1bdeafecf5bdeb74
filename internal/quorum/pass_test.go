package quorum

import (
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
// grant, valid for the lease counted from the attempt the grants answer,
// less the drift, relative to the wait's latest attempt; the timer that
// the first turn armed is stopped; a turn after the quorum is one more
// hold for the ledger; the line member's grant is part of every quorum,
// and its turn names the hold's heir, whom a release names once.
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
	r := e.pass(ts, "k", "o", e.line, line, start, wake)
	require.Equal(t, passQuorum, r.state)
	assert.Equal(t, driver.Grant{Acquired: true, Holds: 1, Token: 20,
		Validity: lease - time.Millisecond - e.s.drift(lease)}, r.grant)
	assert.Equal(t, map[int]uint64{others[0]: 20, others[1]: 21, others[2]: 20, others[3]: 20, e.line: 20}, r.tokens,
		"every member that granted is held, whatever its token")
	time.Sleep(3 * passWait(ts))
	assert.Zero(t, woken.Load(), "the quorum stops the timer")

	late := e.pass(ts, "k", "o", others[1], passTurn(22, floor), start, wake)
	assert.Equal(t, passLate, late.state)
	assert.Equal(t, map[int]uint64{others[1]: 22}, late.tokens)

	h := e.waits.heir("k", "o", start.Add(time.Second))
	assert.Equal(t, "n", h.Owner)
	assert.Equal(t, time.Second, h.Patience, "the patience the turn said, less the time since")
	assert.Equal(t, uint64(2000), h.Floor)
	assert.Empty(t, e.waits.heir("k", "o", start.Add(time.Second)).Owner, "a hold names its heir once")
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
			_, _, passed := e.waits.begin("k", "o", time.Now())
			assert.Len(t, passed, c.held, "its attempt holds the members with the turns' grants while their lease lasts")
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
	assert.Empty(t, e.waits.heir("k", "o", start).Owner)
}
