package quorum

import (
	"context"

	"github.com/distlock/distlock/driver"
)

// A combinator offers an optional driver capability exactly when it works,
// and shows it by its type, as a Store finds capabilities by type
// assertion: what New and NewKeys return implements driver.Notifier when
// at least one member notifies (a holder's Unlock releases every member,
// so one watched member hears of it), driver.Inspector when every member
// inspects, driver.ForceUnlocker when every member force-unlocks, and
// driver.Queuer when it has a line member (see lineOf), each
// found on the members once, when the combinator is made. Every combinator
// is a driver.BatchExpirer, a driver.Granular, a driver.Sharer (whose
// Share fails, naming the member, when a member cannot share: see
// share.go) and a driver.Dequeuer (which has nothing to do unless the
// combinator is a view whose members keep a wait list: see waitlist.go),
// through methods of the combinator itself, so that its views are of the
// same types. It is not a driver.Fencer: raising tokens is what a
// combinator does to its members, and a combinator that is the member of
// another is fenced by the engine directly (see nested), when it has
// fencing members of its own.
//
// The value is one of the twelve types below: the combinator, and one
// mixin per capability it offers (queueing offers Notifier with Queuer). No type has a method twice, so no
// promoted method stands in for another.

// notifying adds driver.Notifier.
type notifying struct{ c *combinator }

// queueing adds driver.Notifier (notifying's Watch) and driver.Queuer
// (whose Dequeue is the combinator's own), for a combinator with a line
// member (see lineOf), which is a notifying member.
type queueing struct{ notifying }

// WatchTurn implements driver.Queuer: fn is called, with a zero Grant,
// when the line member grants key to owner (see combinator.watchTurn).
func (q queueing) WatchTurn(ctx context.Context, key, owner string, fn func(driver.Grant)) (func(), error) {
	return q.c.watchTurn(ctx, key, owner, fn)
}

// Watch implements driver.Notifier: fn is called on any release of key by
// a member that can notify (see engine.watch).
func (n notifying) Watch(ctx context.Context, key string, fn func()) (func(), error) {
	return n.c.watchKey(ctx, key, fn)
}

// inspecting adds driver.Inspector.
type inspecting struct{ c *combinator }

// Inspect implements driver.Inspector (see engine.inspect).
func (i inspecting) Inspect(ctx context.Context, key string) (driver.State, error) {
	return i.c.inspectKey(ctx, key)
}

// forcing adds driver.ForceUnlocker.
type forcing struct{ c *combinator }

// ForceUnlock implements driver.ForceUnlocker (see engine.forceUnlock).
func (f forcing) ForceUnlock(ctx context.Context, key string) (bool, error) {
	return f.c.forceUnlockKey(ctx, key)
}

type (
	plain struct{ *combinator }
	withN struct {
		*combinator
		notifying
	}
	withI struct {
		*combinator
		inspecting
	}
	withF struct {
		*combinator
		forcing
	}
	withNI struct {
		*combinator
		notifying
		inspecting
	}
	withNF struct {
		*combinator
		notifying
		forcing
	}
	withIF struct {
		*combinator
		inspecting
		forcing
	}
	withNIF struct {
		*combinator
		notifying
		inspecting
		forcing
	}
	withQ struct {
		*combinator
		queueing
	}
	withQI struct {
		*combinator
		queueing
		inspecting
	}
	withQF struct {
		*combinator
		queueing
		forcing
	}
	withQIF struct {
		*combinator
		queueing
		inspecting
		forcing
	}
)

var (
	_ driver.BatchExpirer = plain{}
	_ driver.Granular     = plain{}
	_ driver.Sharer       = plain{}
	_ driver.Dequeuer     = plain{}
	_ driver.Drifter      = plain{}

	_ driver.Notifier      = withN{}
	_ driver.Inspector     = withI{}
	_ driver.ForceUnlocker = withF{}

	_ driver.Notifier  = withNI{}
	_ driver.Inspector = withNI{}

	_ driver.Notifier      = withNF{}
	_ driver.ForceUnlocker = withNF{}

	_ driver.Inspector     = withIF{}
	_ driver.ForceUnlocker = withIF{}

	_ driver.Notifier      = withNIF{}
	_ driver.Inspector     = withNIF{}
	_ driver.ForceUnlocker = withNIF{}

	_ driver.Queuer = withQ{}

	_ driver.Queuer    = withQI{}
	_ driver.Inspector = withQI{}

	_ driver.Queuer        = withQF{}
	_ driver.ForceUnlocker = withQF{}

	_ driver.Queuer        = withQIF{}
	_ driver.Inspector     = withQIF{}
	_ driver.ForceUnlocker = withQIF{}
)

// withCapabilities returns c as the type that offers what its members
// allow.
func (c *combinator) withCapabilities() driver.Backend {
	notify, inspect, force := false, true, true
	for _, t := range c.template {
		notify = notify || t.notifier != nil
		inspect = inspect && t.inspector != nil
		force = force && t.forcer != nil
	}
	n, i, f := notifying{c}, inspecting{c}, forcing{c}
	q := queueing{n}
	switch {
	case c.line >= 0 && inspect && force:
		return withQIF{c, q, i, f}
	case c.line >= 0 && inspect:
		return withQI{c, q, i}
	case c.line >= 0 && force:
		return withQF{c, q, f}
	case c.line >= 0:
		return withQ{c, q}
	case notify && inspect && force:
		return withNIF{c, n, i, f}
	case notify && inspect:
		return withNI{c, n, i}
	case notify && force:
		return withNF{c, n, f}
	case inspect && force:
		return withIF{c, i, f}
	case notify:
		return withN{c, n}
	case inspect:
		return withI{c, i}
	case force:
		return withF{c, f}
	}
	return plain{c}
}
