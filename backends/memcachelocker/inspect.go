package memcachelocker

import (
	"context"
	"errors"
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
	if err := driver.CheckKey(key); err != nil {
		return driver.State{}, err
	}
	if err := b.guard.Enter(); err != nil {
		return driver.State{}, err
	}
	defer b.guard.Exit()
	st, err := b.inspect(ctx, key)
	if err != nil {
		return driver.State{}, failed(err)
	}
	return st, nil
}

func (b *Backend) inspect(ctx context.Context, key string) (driver.State, error) {
	if err := b.live(ctx); err != nil {
		return driver.State{}, err
	}
	lk, ck := b.itemKeys(key)
	items, err := b.mc.GetMulti([]string{lk, ck})
	if err != nil {
		return driver.State{}, err
	}
	st := driver.State{Token: readCounter(items, ck)}
	it, ok := items[lk]
	if !ok {
		return st, nil
	}
	v, err := decodeItem(it.Value)
	if err != nil {
		return driver.State{}, err
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
	if err := driver.CheckKey(key); err != nil {
		return false, err
	}
	if err := b.guard.Enter(); err != nil {
		return false, err
	}
	defer b.guard.Exit()
	held, err := b.forceUnlock(ctx, key)
	return held, failed(err)
}

// forceUnlock begins a round only when the rounds before it wrote nothing.
func (b *Backend) forceUnlock(ctx context.Context, key string) (bool, error) {
	lk, _ := b.itemKeys(key)
	for range casRounds {
		if err := b.live(ctx); err != nil {
			return false, err
		}
		it, err := b.mc.Get(lk)
		if errors.Is(err, memcache.ErrCacheMiss) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		v, err := decodeItem(it.Value)
		if err != nil {
			return false, err
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
			return false, err
		}
	}
	return false, errContended
}
