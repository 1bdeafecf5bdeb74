package memcachelocker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bradfitz/gomemcache/memcache"

	"github.com/distlock/distlock/driver"
)

// Inspect implements driver.Inspector, in one round trip (to each server
// involved). The remaining lease comes from the lease end the holder's
// client recorded; it is at least a millisecond while the item exists. A
// free lock's Token is its counter, or the last token a tombstone
// remembers if higher: at least the last holder's token.
func (b *Backend) Inspect(ctx context.Context, key string) (driver.State, error) {
	if key == "" {
		return driver.State{}, fmt.Errorf("memcachelocker: %w: empty key", driver.ErrInvalid)
	}
	if err := b.ready(ctx); err != nil {
		return driver.State{}, keyError("inspect", key, err)
	}
	lk, ck := b.itemKeys(key)
	items, err := b.mc.GetMulti([]string{lk, ck})
	if err != nil {
		return driver.State{}, keyError("inspect", key, err)
	}
	st := driver.State{Token: readCounter(items, ck)}
	it, ok := items[lk]
	if !ok {
		return st, nil
	}
	v, err := decodeItem(it.Value)
	if err != nil {
		return driver.State{}, keyError("inspect", key, err)
	}
	if v.free {
		st.Token = max(st.Token, v.token)
		return st, nil
	}
	return driver.State{
		Held:      true,
		Owner:     v.owner,
		Holds:     v.holds,
		Token:     v.token,
		Remaining: max(v.remaining(time.Now()), time.Millisecond),
	}, nil
}

// ForceUnlock implements driver.ForceUnlocker: it replaces a hold by a
// tombstone with cas, whoever the owner, and reports whether the lock was
// held.
func (b *Backend) ForceUnlock(ctx context.Context, key string) (bool, error) {
	if key == "" {
		return false, fmt.Errorf("memcachelocker: %w: empty key", driver.ErrInvalid)
	}
	if err := b.ready(ctx); err != nil {
		return false, keyError("forceunlock", key, err)
	}
	lk, _ := b.itemKeys(key)
	for range casRounds {
		if err := ctx.Err(); err != nil {
			return false, keyError("forceunlock", key, err)
		}
		it, err := b.mc.Get(lk)
		if errors.Is(err, memcache.ErrCacheMiss) {
			return false, nil
		}
		if err != nil {
			return false, keyError("forceunlock", key, err)
		}
		v, err := decodeItem(it.Value)
		if err != nil {
			return false, keyError("forceunlock", key, err)
		}
		if v.free {
			return false, nil
		}
		it.Value, it.Expiration = lockItem{free: true, token: v.token}.encode(), tombstoneTTL
		err = b.mc.CompareAndSwap(it)
		if err == nil {
			return true, nil
		}
		if !isCASMiss(err) {
			return false, keyError("forceunlock", key, err)
		}
	}
	return false, keyError("forceunlock", key, errContended)
}
