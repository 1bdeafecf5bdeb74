package quorum

import (
	"context"
	"fmt"

	"github.com/distlock/distlock/driver"
)

// Watch implements driver.Notifier: fn is called on any release of key by
// a member that can notify; the others are not watched. It fails with an
// error wrapping errors.ErrUnsupported when no member can notify, and with
// an error when no member could be watched.
func (b *Backend) Watch(ctx context.Context, key string, fn func()) (func(), error) {
	if err := b.check("watch", key); err != nil {
		return nil, err
	}
	return b.watch(ctx, key, b.targets(key), fn)
}

// Inspect implements driver.Inspector. The lock is held when one owner
// holds it on the needed members; Holds and Remaining are what those
// members have in common, and Token is the combined fencing token. It fails
// with an error wrapping errors.ErrUnsupported when a member cannot be
// inspected, and with an unknown-state error when too few members answered
// to tell.
func (b *Backend) Inspect(ctx context.Context, key string) (driver.State, error) {
	if err := b.check("inspect", key); err != nil {
		return driver.State{}, err
	}
	return b.inspect(ctx, key, b.targets(key))
}

// ForceUnlock implements driver.ForceUnlocker: it deletes key on every
// member, and reports whether the needed members held it. It fails with an
// error wrapping errors.ErrUnsupported when a member cannot force-unlock,
// and with an unknown-state error when so many members did not answer that
// the lock may still be held.
func (b *Backend) ForceUnlock(ctx context.Context, key string) (bool, error) {
	if err := b.check("forceunlock", key); err != nil {
		return false, err
	}
	return b.forceUnlock(ctx, key, b.targets(key))
}

// Fence implements driver.Fencer, so that a combinator can be the member
// of another: it raises the token of owner's hold on every fencing member,
// and succeeds when a majority of them did. It fails with an error wrapping
// errors.ErrUnsupported when no member can fence, and wrapping ErrNotHeld
// when too many fencing members do not hold the lock for owner.
func (b *Backend) Fence(ctx context.Context, key, owner string, token uint64) error {
	if err := b.check("fence", key); err != nil {
		return err
	}
	if err := validLease(owner, 1); err != nil {
		return fmt.Errorf("%s fence %q: %w", b.kind.name, key, err)
	}
	if token == 0 {
		return fmt.Errorf("%s fence %q: %w: zero token", b.kind.name, key, driver.ErrInvalid)
	}
	if b.fencers == 0 {
		return fmt.Errorf("%s fence %q: %w: no member can fence", b.kind.name, key, errUnsupported)
	}
	var ts []target
	for _, t := range b.targets(key) {
		if t.fencer {
			ts = append(ts, t)
		}
	}
	_, errs := fanout(ctx, ts, b.s.plain, func(ctx context.Context, i int) (struct{}, error) {
		return struct{}{}, ts[i].b.(driver.Fencer).Fence(ctx, ts[i].key, owner, token)
	}, nil)
	return verdict(b.kind, "fence", key, b.fenceQuorum, ts, errs)
}
