package quorum

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/distlock/distlock/driver"
)

// fail ends a failed attempt: it releases the members that granted the
// lock and those whose state is unknown, all at once and within the
// caller's deadline. A member that refused is left alone: a refusal means
// that another owner holds the lock there (an owner's own hold is
// re-entered, not refused), so its Unlock would find nothing to drop, and
// asking would cost a contended attempt a second round for nothing. So is
// the line member whose grant a turn brought (see lineState), unless
// another member reserved the lock for a waiter of its own (otherLine).
// A member that granted the lock, or may have, and was not released by
// then is released in the background (see background): the caller is not
// held past its deadline, and the release is not lost; unless the release
// may have run and the owner may hold the lock there more than once (see
// releaseLater). On a re-entry, and wherever the owner may hold the lock
// already or has another call in flight (see ledger), the members in an
// unknown state are left alone, since an Unlock there could drop the
// owner's earlier hold instead; they keep at most one extra hold until
// their lease ends.
//
// The attempt then reports, in this order: bad input a member found as
// ErrInvalid; an unknown-state error when so many members may still hold
// the lock for the owner (and are not being released) that it may in fact
// be held; ErrClosed when too many members are closed; "not acquired" (a
// grant with Acquired false, so that a waiting Mutex tries again) when so
// many members refused, because another owner holds the lock, that the
// quorum cannot be reached (of the members, or of the fencing members that
// must carry the token), or the line member reserved it for the first
// waiter (see lineOf); and otherwise ErrUnavailable, the stores could
// not decide, with the reason and the members' errors. A waiter that was
// not refused by the line member, and so is not in line, is told when to
// ask again by its back-off (see wakes); one in line, by the holder's
// remaining lease.
func (a *attempt) fail(ctx context.Context, reason error) (driver.Grant, error) {
	reentry := a.reentry()
	// A waiter that the line member did not refuse is not in line there:
	// it is stuck (see wakes).
	stuck := a.patience > 0 && a.e.line >= 0 && a.rs[a.e.line].state != refused && !reentry
	kept := -1 // the line member a turn granted: the grant stays (see lineState)
	if a.held != nil && a.rs[a.e.line].state != refused {
		if a.otherLine() {
			a.e.waits.done(a.ts[a.e.line].key, a.owner) // the grant is given back below
		} else {
			kept = a.e.line
		}
	}
	// What to release is decided before the calls: a call abandoned by
	// fanout must not read the results that are settled meanwhile. Each
	// release's ticket goes in tk.
	unlock := make([]bool, len(a.rs))
	some := false
	for i := range a.rs {
		r := &a.rs[i]
		switch {
		case i == kept:
		case r.state == acquired:
			r.tk, unlock[i] = a.e.bg.held.unlock(a.key(i)), true
		case r.state == unknown && !reentry:
			r.tk, unlock[i] = a.e.bg.held.follow(a.key(i), r.tk)
		}
		some = some || unlock[i]
	}
	tks := make([]ticket, len(a.rs))
	for i := range a.rs {
		tks[i] = a.rs[i].tk
	}
	errs := make([]error, len(a.rs))
	if some && stuck {
		// Members the last attempt was refused by may be among those this
		// one took: their releases here are the waiter's own.
		a.e.wakes.releasing(a.ts[a.e.line].key, a.owner)
	}
	if some {
		_, errs = fanout(ctx, a.ts, a.e.s.plain, func(ctx context.Context, i int) (struct{}, error) {
			if unlock[i] {
				return struct{}{}, a.unlockMember(ctx, i, tks[i])
			}
			return struct{}{}, errSkipped
		}, nil)
	}
	// The lease a member may hold began by now at the latest.
	until := time.Now().Add(a.ttl)
	for i := range a.rs {
		if !unlock[i] {
			continue
		}
		if a.settle(i, errs[i]); a.rs[i].state != released && a.e.releaseLater(a.ts[i], a.owner, tks[i], errs[i], until) {
			a.rs[i].state = releasing
		}
	}
	mayHold := a.count(func(r *memberResult) bool { return r.state == acquired || r.state == unknown })
	closed := a.count(func(r *memberResult) bool { return errors.Is(r.err, driver.ErrClosed) })
	refusals := a.count(func(r *memberResult) bool { return r.state == refused })
	fenceRefusals := 0
	for i, r := range a.rs {
		if r.state == refused && a.ts[i].fencer != nil {
			fenceRefusals++
		}
	}
	switch {
	case errors.Is(reason, driver.ErrInvalid):
		return driver.Grant{}, fmt.Errorf("%s: %w", a.e.kind.name, reason)
	case mayHold >= a.e.needed:
		return driver.Grant{}, fmt.Errorf("%s: outcome unknown: %v; %d members may still hold it (%s)",
			a.e.kind.name, reason, mayHold, memberErrors(a.ts, a.errs()))
	case closed > len(a.ts)-a.e.needed:
		return driver.Grant{}, fmt.Errorf("%s: %w: %d of %d members are closed",
			a.e.kind.name, driver.ErrClosed, closed, len(a.ts))
	case refusals > len(a.ts)-a.e.needed,
		a.e.fencers > 0 && fenceRefusals > a.e.fencers-a.e.fenceQuorum,
		a.overtakes():
		// Another owner holds so many members, or so many of the fencing
		// ones, that this owner could not have reached the quorum; or the
		// line member reserved the lock for its first waiter.
		if stuck {
			refusing := make([]bool, len(a.rs))
			for i, r := range a.rs {
				refusing[i] = r.state == refused
			}
			return driver.Grant{Remaining: a.e.wakes.stuck(a.ts[a.e.line].key, a.owner, a.start, refusing)}, nil
		}
		// A reservation of the line member is the combinator's, and so
		// is the token its refusal reports to a waiter (see
		// driver.Queuer), which a grant from turns exceeds (see pass.go).
		g := driver.Grant{Remaining: a.remaining()}
		if a.e.line >= 0 && a.rs[a.e.line].state == refused {
			g.Reserved, g.Token = a.rs[a.e.line].g.Reserved, a.rs[a.e.line].g.Token
		}
		return g, nil
	}
	err := fmt.Errorf("%s: %w: %v", a.e.kind.name, driver.ErrUnavailable, reason)
	if a.count(func(r *memberResult) bool { return r.err != nil }) > 0 {
		err = fmt.Errorf("%w (%s)", err, memberErrors(a.ts, a.errs()))
	}
	return driver.Grant{}, err
}

// unlockMember unlocks member i for the owner, a call begun in the
// ledger with tk.
func (a *attempt) unlockMember(ctx context.Context, i int, tk ticket) error {
	t := a.ts[i]
	err := releaseHold(ctx, t, a.owner, tk.token, driver.Successor{})
	a.e.bg.held.end(a.key(i), tk, unlockCount(err), 0, 0, 0)
	return err
}

// settle records the release of member i, which ended with err: a member
// that answers, either way, is known not to hold the lock for this attempt
// any more.
func (a *attempt) settle(i int, err error) {
	r := &a.rs[i]
	if err == nil || errors.Is(err, driver.ErrNotHeld) {
		r.state = released
		return
	}
	if r.err == nil {
		r.err = fmt.Errorf("releasing: %w", err)
	} else {
		r.err = fmt.Errorf("%w; releasing: %v", r.err, err)
	}
}

// otherLine reports whether a member other than the line member refused
// the attempt with Grant.Reserved: it reserves the lock for a waiter in its
// own queue, the line member of combinators that name the members
// differently. A waiter that kept the turn's grant here while the other
// line's waiter keeps its own could keep both from a quorum for as long
// as the grants last, so the grant is given back instead.
func (a *attempt) otherLine() bool {
	for i, r := range a.rs {
		if i != a.e.line && r.state == refused && r.g.Reserved {
			return true
		}
	}
	return false
}

// remaining is the hint for a waiter: the shortest remaining lease among
// the members that refused, or 0 when none said.
func (a *attempt) remaining() time.Duration {
	var d time.Duration
	for _, r := range a.rs {
		if r.state == refused && r.g.Remaining > 0 && (d == 0 || r.g.Remaining < d) {
			d = r.g.Remaining
		}
	}
	return d
}
