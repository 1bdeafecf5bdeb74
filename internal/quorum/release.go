package quorum

import (
	"context"
	"errors"
	"time"

	"github.com/distlock/distlock/driver"
)

// unlock drops one of owner's holds on every target at once. A hold with
// an heir (see pass.go) names it to the members that pass: their final
// release grants the lock to the heir.
func (e *engine) unlock(ctx context.Context, ts []target, owner string) error {
	var small [8]ticket
	tks := small[:0]
	for _, t := range ts {
		tks = append(tks, e.bg.held.unlock(pendingKey{t.rtt, t.key, owner}))
	}
	var next driver.Successor
	if e.passes {
		next = e.waits.heir(ts[e.line].key, owner, tks[e.line].token, e.s.now())
		e.waits.release(ts[e.line].key, owner)
	}
	_, errs := fanout(ctx, ts, e.s.plain, func(ctx context.Context, i int) (struct{}, error) {
		t := ts[i]
		err := releaseHold(ctx, t, owner, tks[i].token, next)
		e.bg.held.end(pendingKey{t.rtt, t.key, owner}, tks[i], unlockCount(err), 0, 0, 0)
		return struct{}{}, err
	}, nil)
	// A member whose Unlock did not get an answer may still hold the
	// lock: left alone, it would keep the hold until its lease ends, and
	// the next holder would get no more than a bare quorum, one member
	// short of safety should another member fail. It is released in the
	// background, when that cannot drop another hold of the owner (see
	// releaseLater). An Unlock that reached no member is the caller's to
	// make again (ErrUnavailable): both would drop a hold.
	v := verdict(e.kind, "unlock", e.needed, ts, errs)
	if errors.Is(v, driver.ErrUnavailable) {
		return v
	}
	until := time.Now().Add(e.bg.longestLease())
	for i, err := range errs {
		if err != nil && !errors.Is(err, driver.ErrNotHeld) {
			e.releaseLater(ts[i], owner, tks[i], err, until)
		}
	}
	return v
}

// releaseHold drops owner's hold on t, naming it by the member's token when
// the member can (driver.HoldUnlocker): a release that reaches the member
// late, after the owner locked again, then drops no later hold. The token
// is the one given or, when that is unknown (0: the reply of the call
// that took the hold was lost), the one the member reports for the
// owner's hold, when it can tell (Inspect, one more round trip). A member
// that reports no hold of the owner has nothing to release: ErrNotHeld.
// Not on a read view, though: a read hold's token is 0 until the lock's
// first write, so there a 0 is no sign of a lost reply, and asking would
// cost every release of such a hold a round trip. A member that passes is
// given next, whom its final release then grants the lock (UnlockTo).
func releaseHold(ctx context.Context, t target, owner string, token uint64, next driver.Successor) error {
	pass := next.Owner != "" && t.passer != nil
	if t.holder == nil && !pass {
		return t.b.Unlock(ctx, t.key, owner)
	}
	if token == 0 && t.inspector != nil && t.mode != driver.Read {
		st, err := t.inspector.Inspect(ctx, t.key)
		if err != nil {
			return err
		}
		var held bool
		if token, held = st.HoldOf(owner, t.mode); !held {
			return driver.ErrNotHeld
		}
	}
	switch {
	case pass:
		return t.passer.UnlockTo(ctx, t.key, owner, token, next)
	case token == 0:
		return t.b.Unlock(ctx, t.key, owner)
	}
	return t.holder.UnlockHold(ctx, t.key, owner, token)
}

// expire renews owner's lease on every target at once.
func (e *engine) expire(ctx context.Context, ts []target, owner string, ttl time.Duration) error {
	ttl = e.roundUp(ttl)
	e.bg.leased(ttl)
	// A member whose release runs does not count toward the renewal: its
	// hold is on its way out (see background).
	skip := e.bg.settle(ctx, ts, owner, e.s.forLease(ttl))
	_, errs := fanout(ctx, ts, e.s.forLease(ttl), func(ctx context.Context, i int) (struct{}, error) {
		if skip != nil && skip[i] {
			return struct{}{}, errReleasePending
		}
		t := ts[i]
		err := t.b.Expire(ctx, t.key, owner, ttl)
		if err == nil {
			e.bg.held.renewed(pendingKey{t.rtt, t.key, owner}, ttl+e.s.drift(ttl))
		}
		return struct{}{}, err
	}, nil)
	return verdict(e.kind, "renew", e.needed, ts, errs)
}
