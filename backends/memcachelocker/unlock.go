package memcachelocker

import (
	"context"
	"errors"
	"time"

	"github.com/bradfitz/gomemcache/memcache"

	"github.com/distlock/distlock/driver"
)

// Unlock implements driver.Backend. It reads the item and, with cas, lowers
// the hold count or, at the last hold, replaces the item by a tombstone.
func (b *Backend) Unlock(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	return b.unlock(ctx, key, owner, 0)
}

// UnlockHold implements driver.HoldUnlocker: Unlock of owner's hold whose
// fencing token is token. (A release that reaches memcached late cannot
// drop a later hold anyway: its compare-and-swap names the item as it was.)
func (b *Backend) UnlockHold(ctx context.Context, key, owner string, token uint64) error {
	if err := driver.CheckToken(key, owner, token); err != nil {
		return err
	}
	return b.unlock(ctx, key, owner, token)
}

// unlock drops owner's hold on key whose token is token (0: any).
func (b *Backend) unlock(ctx context.Context, key, owner string, token uint64) error {
	if err := b.guard.Enter(); err != nil {
		return err
	}
	defer b.guard.Exit()
	return failed(b.update(ctx, key, owner, token, func(v lockItem, now time.Time) (lockItem, int32) {
		if v.holds > 1 {
			v.holds--
			return v, expirationUntil(v, now)
		}
		return lockItem{free: true, token: v.token}, tombstoneTTL
	}))
}

// update replaces owner's hold on key by change(hold) with cas, reading
// again when the item changed in between. It returns driver.ErrNotHeld when
// owner does not hold key, or holds it under another token than a token
// other than 0. A round begins only when the rounds before it
// wrote nothing.
func (b *Backend) update(ctx context.Context, key, owner string, token uint64, change func(lockItem, time.Time) (lockItem, int32)) error {
	lk, _ := b.itemKeys(key)
	for range casRounds {
		if err := b.live(ctx); err != nil {
			return err
		}
		it, err := b.mc.Get(lk)
		if errors.Is(err, memcache.ErrCacheMiss) {
			return driver.ErrNotHeld
		}
		if err != nil {
			return unsent(err)
		}
		v, err := decodeItem(it.Value)
		if err != nil {
			return err
		}
		if v.free || v.owner != owner || token != 0 && v.token != token {
			return driver.ErrNotHeld
		}
		next, exp := change(v, time.Now())
		it.Value, it.Expiration = next.encode(), exp
		err = b.mc.CompareAndSwap(it)
		if err == nil {
			return nil
		}
		if !isCASMiss(err) {
			return unsent(err)
		}
	}
	return errContended
}
