package driver

import (
	"context"
	"time"
)

// Passer is an optional capability of a Queuer: a release that names the
// waiter it grants the lock to, so that several stores can grant their
// locks to the same waiter in one step. A combinator of Passers (packages
// multilock and redlock) hands its lock from one holder to the next in one
// round this way: the holder learns from its line member who waits
// behind it (Turn.Next, in the turn that brought it the lock or in a
// notice, Turn.Behind, when a waiter joins the line later), its release
// grants every member to that waiter (UnlockTo), and the waiter holds the
// lock once a quorum of members have told it so (WatchTurns), without a
// call of its own.
type Passer interface {
	Queuer

	// WatchTurns is WatchTurn with all that a turn tells: besides the
	// grant, the floor of the request it answers, whether a release named
	// the waiter, and who waits next. fn gets a Turn with a zero Grant
	// when WatchTurn's fn would get a zero Grant. fn is also told of the
	// notices (Turn.Behind) of owner's holds, which WatchTurn's fn is
	// not: when a request with a Floor and patience finds key held and
	// nobody in line (a store may count waiters whose patience lapsed as
	// in line), and so becomes the first in line, the holder's watchers
	// get a Turn with a zero Grant, Behind set to the token of the hold,
	// and Next naming that waiter.
	WatchTurns(ctx context.Context, key, owner string, fn func(Turn)) (stop func(), err error)

	// UnlockTo is UnlockHold (Unlock when token is 0) that, when it drops
	// owner's last hold, grants key to next instead of the first waiter in
	// line, as a release grants it to that waiter (see Queuer): next then
	// holds key with one unclaimed hold, the lease next.TTL and the token
	// max(the last token + 1, next.Floor), its WatchTurns watchers are
	// told (Turn.Passed), and next leaves the queue if it was in it. It
	// grants nothing to next, and releases as Unlock does, when
	// next.Patience is not positive or next has left key (Leave) within
	// the time it gave, and also when the store's turns only wake their
	// waiters (see WatchTurn): a waiter that cannot hold the lock from its
	// turn must not be given it by one. A zero next.Owner names nobody.
	UnlockTo(ctx context.Context, key, owner string, token uint64, next Successor) error

	// Leave is Dequeue that also keeps UnlockTo from granting key to owner
	// for d from now: a waiter that gives up calls it on every store that
	// a release may name it to.
	Leave(ctx context.Context, key, owner string, d time.Duration) error
}

// Successor is a waiter named to a release (see Passer).
type Successor struct {
	// Owner is the waiter; empty for nobody.
	Owner string
	// TTL is the lease a grant to Owner gets.
	TTL time.Duration
	// Patience is how much longer, from the call, Owner waits.
	Patience time.Duration
	// Floor is the token floor of the request Owner waits with: a grant
	// gets a token of at least Floor, and tells it back (Turn.Floor).
	Floor uint64
}

// Turn is what a Passer tells a waiter of a grant made to it, or, in a
// notice (Behind), a holder of the waiter that joined the line behind its
// hold (see Passer.WatchTurns).
type Turn struct {
	// Grant is the grant, as WatchTurn gives it: Acquired, Holds 1, its
	// Token and Uptime; zero for a wake-up.
	Grant Grant
	// Floor is the token floor of the waiter's request that the grant
	// answers: the floor of its last attempt in line, or the Successor's
	// that a release named. A waiter tells by it which of its waits the
	// grant belongs to.
	Floor uint64
	// Passed reports that a release named the waiter (UnlockTo), rather
	// than finding it first in line.
	Passed bool
	// Next is the waiter first in line behind the grantee when the grant
	// was made, with the patience it had left then; zero when nobody was.
	// A store may leave it zero in the turn of a grant from the line to a
	// request without a Floor: a combinator, which names the next waiter
	// to its members' releases, gives every member a floor. In a notice
	// (Behind), the waiter that joined the line behind the hold.
	Next Successor
	// Behind is non-zero in a notice, not a grant: the token of the
	// watcher's hold behind which Next has just become the first in line
	// (see WatchTurns). A holder that has no heir yet may name Next to
	// the release of that hold, and of no other.
	Behind uint64
}
