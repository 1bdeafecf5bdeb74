package quorum

import (
	"context"
	"fmt"
	"time"

	"github.com/distlock/distlock/locker"
)

// unlock drops one of owner's holds on every target at once.
func (e *engine) unlock(ctx context.Context, name string, ts []target, owner string) error {
	if owner == "" {
		return fmt.Errorf("%s unlock %q: %w: empty owner", e.kind.name, name, locker.ErrInvalid)
	}
	errs := make([]error, len(ts))
	fanout(ctx, e.s.plainTimeout(), len(ts), func(ctx context.Context, i int) {
		errs[i] = ts[i].b.Unlock(ctx, ts[i].key, owner)
	})
	return verdict(e.kind, "unlock", name, e.needed, ts, errs)
}

// expire renews owner's lease on every target at once.
func (e *engine) expire(ctx context.Context, name string, ts []target, owner string, ttl time.Duration) error {
	if err := validLease(owner, ttl); err != nil {
		return fmt.Errorf("%s renew %q: %w", e.kind.name, name, err)
	}
	ttl = e.roundUp(ttl)
	errs := make([]error, len(ts))
	fanout(ctx, e.s.leaseTimeout(ttl), len(ts), func(ctx context.Context, i int) {
		errs[i] = ts[i].b.Expire(ctx, ts[i].key, owner, ttl)
	})
	return verdict(e.kind, "renew", name, e.needed, ts, errs)
}
