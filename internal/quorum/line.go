package quorum

import (
	"context"
	"errors"
	"fmt"

	"github.com/distlock/distlock/driver"
)

// lineOf picks the line member of a combinator of mutexes: the member
// whose wait queue is the combinator's, or -1 when it has none. It is a
// driver.Queuer and a driver.Notifier, as every store's queue is so far:
// the gate of a lock that needs every member (see gateOf), when the gate
// keeps a queue, and for a majority the least member that keeps one, in
// the gate's fixed order, so that combinators over the same members agree
// on it. Views have none: their members keep wait lists of their own (see
// waitsAt).
//
// Why one member: a waiter that joined the queues of several members
// could be first on some and another waiter first on the others, and
// each would keep the other from a quorum for as long as they wait. One
// queue is one order, and the line member's is the combinator's:
//
//   - A waiting attempt (Request.Patience) passes its patience to the
//     line member only, and so joins its queue there and keeps its place.
//   - A release grants the line member to the first waiter in line there,
//     and tells only that waiter (WatchTurn), instead of waking every
//     waiter to race for the members. Its next attempt takes the other
//     members, in one round (after the gate's, for a lock that needs every
//     member, which claims the grant there). A majority lock that heard
//     the grant on the turn does not ask the line member again: it holds
//     the lock there already (see lineState).
//   - Until the waiter claims its grant, the line member refuses everyone
//     else with Grant.Reserved, and so does the combinator, even when a
//     quorum of the other members granted the attempt: taking them would
//     overtake the waiter. The attempt gives back what it took at once.
//   - Nothing else changes: a majority lock is acquired by any quorum, with
//     the line member or without it, so a line member that is down, slow,
//     or held by an owner that holds no quorum (a stale hold) costs no
//     availability. Only a grant the waiter never claims keeps the lock,
//     until the grant's lease ends, as it would on the line member alone.
//
// Only the order of waiters rests on the line member; exclusion and
// fencing rest on the quorum, as always. When the line member cannot be
// watched, or misses a turn, the waiters fall back on their safety-net
// re-checks.
func lineOf(kind Kind, ts []target, share driver.Share) int {
	if share.Mode != 0 {
		return -1
	}
	keeps := func(t target) bool { return t.queuer != nil && t.notifier != nil }
	if g := gateOf(kind, ts); g >= 0 {
		if !keeps(ts[g]) {
			return -1
		}
		return g
	}
	return least(ts, keeps)
}

// watchTurn is Queuer.WatchTurn, for the combinators with a line member:
// fn is called whenever the line member grants key to owner, or may have,
// with a zero Grant, since the grant is the line member's alone: the
// waiter's next attempt takes the other members. A majority lock keeps
// the grant for that attempt (see lineState). While the waiter is stuck
// (see wakes), fn is also called at the releases of the members that
// refused it.
//
// A majority lock whose members pass (see pass.go) also watches the
// owner's turns on the other members, and calls fn once the turns that a
// release named the owner to make a quorum, which the waiter's next
// attempt returns without a call; or, should they not, after passWait.
func (c *combinator) watchTurn(ctx context.Context, key, owner string, fn func(driver.Grant)) (func(), error) {
	ts, err := c.enterOwner(key, owner)
	if err != nil {
		return nil, err
	}
	defer c.guard.Exit()
	if fn == nil {
		return nil, c.labelled(driver.Invalid("nil callback"))
	}
	cb := driver.NewTurnCallback(fn)
	wake := func() { cb.Give(driver.Grant{}) }
	l := ts[c.line]
	heard := func(i int, t driver.Turn) {
		now := c.s.now()
		if t.Behind != 0 {
			// A notice to the holder, not a turn: no wait is woken.
			if i == c.line && c.passes {
				c.waits.noticed(l.key, owner, t, now)
			}
			return
		}
		if i == c.line && c.waits != nil {
			c.waits.turn(l.key, owner, t, now)
		}
		if !t.Passed || !c.passes {
			if i == c.line {
				wake()
			}
			return
		}
		switch r := c.pass(ts, l.key, owner, i, t, now, wake); r.state {
		case passQuorum:
			wake()
		case passLate:
			c.registerPasses(ts, owner, r)
		case passIgnored:
			if i == c.line {
				wake()
			}
		}
	}
	var stopLine, stopOthers func()
	if c.passes {
		stopLine, err = l.passer.WatchTurns(ctx, l.key, owner, func(t driver.Turn) { heard(c.line, t) })
	} else {
		stopLine, err = l.queuer.WatchTurn(ctx, l.key, owner, func(g driver.Grant) { heard(c.line, driver.Turn{Grant: g}) })
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s: %w", c.kind.name, l.label, err)
	}
	if c.passes {
		if stopOthers, err = c.watchPasses(ctx, ts, owner, heard); err != nil {
			stopLine()
			return nil, fmt.Errorf("%s: %w", c.kind.name, err)
		}
	}
	w := &waker{ctx: context.WithoutCancel(ctx), fn: wake, watch: c.watchOthers(ts)}
	remove := c.wakes.add(l.key, owner, w)
	return func() {
		remove()
		stopLine()
		if stopOthers != nil {
			stopOthers()
		}
		cb.Stop()
	}, nil
}

// overtakes reports whether the attempt would overtake the line member's
// first waiter: the line member refused it, reserving the lock for that
// waiter, or refused it when it asked the line member first (see
// lineState).
func (a *attempt) overtakes() bool {
	if a.e.line < 0 {
		return false
	}
	r := &a.rs[a.e.line]
	return r.state == refused && (r.g.Reserved || a.gated)
}

// noteLine records how the line member answered an attempt that waits: a
// refusal puts the owner in line there, and a TryLock that took it used
// up any grant a turn brought meanwhile (see lineState.claimed).
func (a *attempt) noteLine() {
	if a.e.line < 0 || a.patience <= 0 {
		return
	}
	r := &a.rs[a.e.line]
	key := a.ts[a.e.line].key
	if r.state == acquired && a.held == nil && a.e.waits != nil {
		a.e.waits.claimed(key, a.owner, r.g.Token)
	}
	if r.state != refused {
		return
	}
	a.e.wakes.inLine(key, a.owner)
	if a.e.waits != nil {
		a.e.waits.refused(key, a.owner, r.g, a.gated, a.start, a.ttl, a.patience, a.floor)
	}
}

// leaveLine ends the wait of an attempt that took the lock: the waits
// forget it, and an attempt that took a quorum without the line member
// (which refused it, and so put the owner in its queue, or did not
// answer, after an earlier attempt may have) takes the owner out of that
// queue, or a release there would grant the lock to an owner that no
// longer waits, and the line member's reservation would keep everyone
// from the lock until that grant's lease ran out. A Dequeue that fails
// leaves the entry to lapse with its patience.
func (a *attempt) leaveLine(ctx context.Context) {
	l := a.e.line
	if l < 0 || a.patience <= 0 {
		return
	}
	a.e.wakes.inLine(a.ts[l].key, a.owner)
	if a.e.waits != nil {
		a.e.waits.won(a.ts[l].key, a.owner, a.start)
	}
	if a.rs[l].state == acquired {
		return
	}
	fanout(ctx, a.ts, a.e.s.plain, func(ctx context.Context, i int) (struct{}, error) {
		if i != l {
			return struct{}{}, errSkipped
		}
		return struct{}{}, a.ts[i].queuer.Dequeue(ctx, a.ts[i].key, a.owner)
	}, nil)
}

// renewTurn takes a member with the grant g a turn brought: it renews
// the grant's lease there (Expire), which shows that the owner still holds
// it and leaves it unclaimed, so that the line member goes on refusing
// everyone else should the attempt fail. The hold is the grant's, with its
// token. A grant given back, or lost to a restart, is not counted: on the
// line member the wait starts over, and the attempt asks the member with
// r instead, as any attempt does, which takes the lock there if it is
// free, or puts the owner in line again (otherwise no turn would come,
// and the waiter would wait for its safety net).
func (a *attempt) renewTurn(ctx context.Context, t target, r driver.Request, g driver.Grant, line bool) (driver.Grant, error) {
	err := t.b.Expire(ctx, t.key, a.owner, r.TTL)
	switch {
	case err == nil:
		// The grant's uptime, not the renewal's: the restart guard must
		// see a store that restarted before it made the grant.
		return driver.Grant{Acquired: true, Holds: 1, Token: g.Token, Uptime: g.Uptime}, nil
	case errors.Is(err, driver.ErrNotHeld):
		if line {
			a.e.waits.done(t.key, a.owner)
		}
		return t.b.TryLock(ctx, r)
	}
	return driver.Grant{}, err
}
