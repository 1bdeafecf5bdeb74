package quorum

import (
	"context"
)

// fence raises the token of owner's hold on every fencing target to at
// least token, and succeeds when a majority of them did, so that a
// combinator can be a fencing member of another (see nestedFencer). It
// returns an error wrapping ErrNotHeld when too many fencing members do not
// hold the lock for owner. Only a combinator with fencing members is
// fenced.
func (e *engine) fence(ctx context.Context, ts []target, owner string, token uint64) error {
	var fencing []target
	for _, t := range ts {
		if t.fencer != nil {
			fencing = append(fencing, t)
		}
	}
	_, errs := fanout(ctx, fencing, e.s.plain, func(ctx context.Context, i int) (struct{}, error) {
		t := fencing[i]
		err := t.fencer.Fence(ctx, t.key, owner, token)
		e.bg.held.fenced(pendingKey{t.rtt, t.key, owner}, token, err)
		return struct{}{}, err
	}, nil)
	return verdict(e.kind, "fence", e.fenceQuorum, fencing, errs)
}
