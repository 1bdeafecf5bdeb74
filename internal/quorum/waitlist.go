package quorum

import (
	"context"

	"github.com/distlock/distlock/driver"
)

// waitsAt reports whether member i keeps the view's wait list: whether an
// attempt passes the caller's Request.Patience on to it.
//
// A read-write lock's members all do: a writer waiting on a member only
// turns new readers away there, and waiting writers do not stand in one
// another's way, so lists kept on every member cannot block each other,
// and a writer waiting on a majority keeps readers from a majority.
//
// A semaphore's wait list is an order, and orders kept on several members
// can disagree: two waiters, each first on a different member, would each
// keep the other from a quorum, for as long as they wait. So only one
// member keeps it: the gate of a lock that needs every member (see gateOf),
// which every attempt passes first, so that its order is the order in
// which waiters get past it; or the only member. A majority lock has no
// such member, and its semaphores keep no wait list: a waiter may be
// overtaken there.
//
// A combinator of mutexes passes patience to its line member only, whose
// queue is the combinator's (see lineOf), and to no member when it has
// none: a member that is a driver.Queuer would grant the lock to a waiter
// there.
func (e *engine) waitsAt(i int) bool {
	switch e.share.Mode {
	case driver.Read, driver.Write:
		return true
	case driver.Permits:
		return e.gate == i || e.needed == 1 // one member needed: the only one
	}
	return e.line == i
}

// Dequeue implements driver.Dequeuer and, for a combinator with a line
// member, driver.Queuer: owner leaves the wait lists of key on the members
// that keep one (see waitsAt), all at once, and the line member's queue,
// where it gives back a grant it did not claim. It succeeds
// when the needed members have left them (a member that keeps no list has
// nothing to leave), and otherwise returns an unknown-state error: the
// entries left lapse with their patience. On a combinator whose members
// keep no list it returns nil at once.
func (c *combinator) Dequeue(ctx context.Context, key, owner string) error {
	ts, err := c.enterOwner(key, owner)
	if err != nil {
		return err
	}
	defer c.guard.Exit()
	if c.passes {
		return c.leave(ctx, ts, owner)
	}
	if c.waits != nil {
		c.waits.done(ts[c.line].key, owner)
	}
	var listed []target
	for i, t := range ts {
		if _, ok := t.b.(driver.Dequeuer); ok && c.waitsAt(i) {
			listed = append(listed, t)
		}
	}
	if len(listed) == 0 {
		return nil
	}
	_, errs := fanout(ctx, listed, c.s.plain, func(ctx context.Context, i int) (struct{}, error) {
		return struct{}{}, listed[i].b.(driver.Dequeuer).Dequeue(ctx, listed[i].key, owner)
	}, nil)
	// The members without a list count as having left it; but a line
	// member must leave its queue, and give back a grant: the lock is
	// nobody else's while it keeps one (see lineOf).
	need := max(c.needed-(len(ts)-len(listed)), 0)
	if c.line >= 0 {
		need = 1
	}
	return verdict(c.kind, "dequeue", need, listed, errs)
}
