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
	_, errs := fanout(ctx, ts, e.s.plain, func(ctx context.Context, i int) (struct{}, error) {
		return struct{}{}, ts[i].b.Unlock(ctx, ts[i].key, owner)
	}, nil)
	return verdict(e.kind, "unlock", name, e.needed, ts, errs)
}

// expire renews owner's lease on every target at once.
func (e *engine) expire(ctx context.Context, name string, ts []target, owner string, ttl time.Duration) error {
	if err := validLease(owner, ttl); err != nil {
		return fmt.Errorf("%s renew %q: %w", e.kind.name, name, err)
	}
	ttl = e.roundUp(ttl)
	_, errs := fanout(ctx, ts, e.s.forLease(ttl), func(ctx context.Context, i int) (struct{}, error) {
		return struct{}{}, ts[i].b.Expire(ctx, ts[i].key, owner, ttl)
	}, nil)
	return verdict(e.kind, "renew", name, e.needed, ts, errs)
}
