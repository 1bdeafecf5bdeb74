package quorum

import (
	"context"
	"errors"
	"time"

	"github.com/distlock/distlock/driver"
)

// unlock drops one of owner's holds on every target at once.
func (e *engine) unlock(ctx context.Context, ts []target, owner string) error {
	_, errs := fanout(ctx, ts, e.s.plain, func(ctx context.Context, i int) (struct{}, error) {
		return struct{}{}, ts[i].b.Unlock(ctx, ts[i].key, owner)
	}, nil)
	// A member whose Unlock did not get an answer may still hold the
	// lock: left alone, it would keep the hold until its lease ends, and
	// the next holder would get no more than a bare quorum, one member
	// short of safety should another member fail. It is released in the
	// background, whatever the verdict.
	until := time.Now().Add(e.bg.longestLease())
	for i, err := range errs {
		if err != nil && !errors.Is(err, driver.ErrNotHeld) && !errors.Is(err, driver.ErrInvalid) && !errors.Is(err, driver.ErrClosed) {
			e.bg.release(ts[i], owner, until, e.s.plain)
		}
	}
	return verdict(e.kind, "unlock", e.needed, ts, errs)
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
		return struct{}{}, ts[i].b.Expire(ctx, ts[i].key, owner, ttl)
	}, nil)
	return verdict(e.kind, "renew", e.needed, ts, errs)
}
