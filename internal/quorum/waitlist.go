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
// A combinator of mutexes passes patience to no member, as a member that
// is a driver.Queuer would reserve the lock for a waiter there.
func (e *engine) waitsAt(i int) bool {
	switch e.share.Mode {
	case driver.Read, driver.Write:
		return true
	case driver.Permits:
		return e.gate == i || e.needed == 1 // one member needed: the only one
	}
	return false
}

// Dequeue implements driver.Dequeuer: owner leaves the wait lists of key
// on the members that keep one (see waitsAt), all at once. It succeeds
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
	// The members without a list count as having left it.
	need := max(c.needed-(len(ts)-len(listed)), 0)
	return verdict(c.kind, "dequeue", need, listed, errs)
}
