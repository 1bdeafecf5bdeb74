package quorum

import (
	"context"
	"errors"
	"slices"
)

// token returns the combined fencing token: the highest token the fencing
// members granted. It is 0 when fewer than a majority of the fencing members
// granted the lock, since the highest of their tokens need not reflect every
// token handed out before (see secondRound; conclude then fails the
// attempt), and with no fencing member, except that a single member's own
// token is used.
func (a *attempt) token() uint64 {
	if a.e.fencers == 0 {
		if len(a.ts) == 1 {
			return a.rs[0].g.Token // one store's own counter is monotonic
		}
		return 0
	}
	var token uint64
	readers := 0
	for i, r := range a.rs {
		if r.state == acquired && a.ts[i].fencer != nil {
			token = max(token, r.g.Token)
			readers++
		}
	}
	if readers < a.e.fenceQuorum {
		return 0
	}
	return token
}

// secondRound, at once on every member that needs it: raises the fencing
// members whose token is below the combined token to it, so that a
// majority of fencing members carries it before it is handed out; and
// releases members whose first call ended in an unknown state (the call
// may have run), where that cannot drop an earlier hold of the owner
// (see ledger). A member that cannot be raised does not count toward the
// quorum. When the tokens agree and every call answered, there is no
// second round.
func (a *attempt) secondRound(ctx context.Context, token uint64) {
	reentry := a.reentry()
	work := false
	var release []bool // the unknown members to release, each with the ticket of its release in tk
	for i := range a.rs {
		r, t := &a.rs[i], a.ts[i]
		if r.state == acquired && t.fencer != nil && (r.g.Token == token || token == 0) {
			r.fenced = true // nothing to raise
		}
		switch {
		case r.state == acquired && t.fencer != nil && !r.fenced:
			work = true
		case r.state == unknown && !reentry:
			tk, ok := a.e.bg.held.follow(a.key(i), r.tk)
			if !ok {
				continue
			}
			if release == nil {
				release = make([]bool, len(a.rs))
			}
			release[i], r.tk, work = true, tk, true
		}
	}
	if !work {
		return
	}
	// Each call returns whether it raised the member's token, and the error
	// of its Fence, or of its release.
	// The calls read a copy of the results: one abandoned by fanout must
	// not read them while they are settled.
	before := slices.Clone(a.rs)
	fenced, errs := fanout(ctx, a.ts, a.e.s.forLease(a.ttl), func(ctx context.Context, i int) (bool, error) {
		r, t := &before[i], a.ts[i]
		switch r.state {
		case acquired:
			if t.fencer == nil || r.fenced {
				return false, errSkipped
			}
			err := t.fencer.Fence(ctx, t.key, a.owner, token)
			a.e.bg.held.fenced(a.key(i), token, err)
			return err == nil, err
		case unknown:
			if release != nil && release[i] {
				return false, a.unlockMember(ctx, i, r.tk)
			}
		}
		return false, errSkipped
	}, nil)
	for i := range a.rs {
		r := &a.rs[i]
		switch {
		case errors.Is(errs[i], errSkipped):
		case r.state == acquired:
			r.second = errs[i]
			r.fenced = r.fenced || fenced[i]
		case r.state == unknown:
			a.settle(i, errs[i])
		}
	}
}
