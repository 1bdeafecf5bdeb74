package quorum

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/distlock/distlock/locker"
)

// fail ends a failed attempt: it releases every member, those that granted
// the lock, those that refused it (harmless: their Unlock finds another
// owner) and those whose state is unknown, all at once and whatever became
// of the caller's context. On a re-entry the members in an unknown state
// are left alone, since an Unlock there could drop the owner's earlier hold
// instead; they keep at most one extra hold until their lease ends.
//
// The attempt then reports "not acquired" (so that a waiting Mutex tries
// again) unless so many members may still hold the lock for the owner that
// it may in fact be held: then it returns an unknown-state error. Bad input
// a member found is returned as ErrInvalid.
func (a *attempt) fail(ctx context.Context, reason error) (locker.Grant, error) {
	reentry := a.reentry()
	fanout(context.WithoutCancel(ctx), a.e.s.plainTimeout(), len(a.ts), func(ctx context.Context, i int) {
		switch a.rs[i].state {
		case acquired, refused:
			a.release(ctx, i)
		case unknown:
			if !reentry {
				a.release(ctx, i)
			}
		}
	})
	mayHold := a.count(func(r *memberResult) bool { return r.state == acquired || r.state == unknown })
	closed := a.count(func(r *memberResult) bool { return errors.Is(r.err, locker.ErrClosed) })
	switch {
	case errors.Is(reason, locker.ErrInvalid):
		return locker.Grant{}, fmt.Errorf("%s trylock %q: %w", a.e.kind.name, a.name, reason)
	case mayHold >= a.e.needed:
		return locker.Grant{}, fmt.Errorf("%s trylock %q: outcome unknown: %v; %d members may still hold it (%s)",
			a.e.kind.name, a.name, reason, mayHold, memberErrors(a.ts, a.errs()))
	case closed > len(a.ts)-a.e.needed:
		return locker.Grant{}, fmt.Errorf("%s trylock %q: %w: %d of %d members are closed",
			a.e.kind.name, a.name, locker.ErrClosed, closed, len(a.ts))
	}
	return locker.Grant{Remaining: a.remaining()}, nil
}

// release unlocks member i for the owner. A member that answers, either
// way, is known not to hold the lock for this attempt any more.
func (a *attempt) release(ctx context.Context, i int) {
	t, r := a.ts[i], &a.rs[i]
	err := t.b.Unlock(ctx, t.key, a.owner)
	if r.state == refused {
		return
	}
	if err == nil || errors.Is(err, locker.ErrNotHeld) {
		r.state = released
		return
	}
	if r.err == nil {
		r.err = fmt.Errorf("releasing: %w", err)
	} else {
		r.err = fmt.Errorf("%w; releasing: %v", r.err, err)
	}
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
