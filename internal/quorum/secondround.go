package quorum

import (
	"context"

	"github.com/distlock/distlock/locker"
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
		if r.state == acquired && a.ts[i].fencer {
			token = max(token, r.g.Token)
			readers++
		}
	}
	if readers < a.e.fenceQuorum {
		return 0
	}
	return token
}

// secondRound, at once on every member that needs it: gives members taken
// with a provisional lease the full one; raises the fencing members whose
// token is below the combined token to it, so that a majority of fencing
// members carries it before it is handed out; and releases members whose
// first call ended in an unknown state (the call may have run). A member
// that cannot be extended or raised does not count toward the quorum.
func (a *attempt) secondRound(ctx context.Context, twoPhase bool, token uint64) {
	reentry := a.reentry()
	work := false
	for i := range a.rs {
		r, t := &a.rs[i], a.ts[i]
		if r.state == acquired && t.fencer && (r.g.Token == token || token == 0) {
			r.fenced = true // nothing to raise
		}
		switch {
		case r.state == acquired && (twoPhase || t.fencer && !r.fenced),
			r.state == unknown && !reentry:
			work = true
		}
	}
	if !work {
		return
	}
	fanout(ctx, a.e.s.leaseTimeout(a.ttl), len(a.ts), func(ctx context.Context, i int) {
		r, t := &a.rs[i], a.ts[i]
		switch r.state {
		case acquired:
			if twoPhase {
				if r.second = t.b.Expire(ctx, t.key, a.owner, a.ttl); r.second != nil {
					return
				}
			}
			if t.fencer && !r.fenced {
				if r.second = t.b.(locker.Fencer).Fence(ctx, t.key, a.owner, token); r.second == nil {
					r.fenced = true
				}
			}
		case unknown:
			if !reentry {
				a.release(ctx, i)
			}
		}
	})
}
