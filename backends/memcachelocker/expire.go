package memcachelocker

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/bradfitz/gomemcache/memcache"

	"github.com/distlock/distlock/driver"
)

// maxConcurrentRenewals bounds the cas calls of one batch in flight.
const maxConcurrentRenewals = 16

var _ driver.BatchExpirer = (*Backend)(nil)

// Expire implements driver.Backend: with cas, it records a new lease end
// and gives the item a new expiry, if owner holds the lock.
func (b *Backend) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	if err := b.check(ctx, key, owner, ttl, true); err != nil {
		return keyError("expire", key, err)
	}
	if err := b.expire(ctx, key, owner, ttl); err != nil {
		return keyError("expire", key, err)
	}
	return nil
}

func (b *Backend) expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	exp := expiration(ttl)
	return b.update(ctx, key, owner, func(v lockItem, now time.Time) (lockItem, int32) {
		v.expiry = now.Add(ttl).UnixNano()
		return v, exp
	})
}

// ExpireBatch implements driver.BatchExpirer: one multi-get reads every
// lock (one round trip per server), then the owners' items get their new
// leases with concurrent cas calls. A renewal whose item changed after the
// read is done again on its own, as Expire.
func (b *Backend) ExpireBatch(ctx context.Context, renewals []driver.Renewal) []error {
	errs := make([]error, len(renewals))
	if len(renewals) == 0 {
		return errs
	}
	var todo []int
	var keys []string
	for i, r := range renewals {
		if errs[i] = b.check(ctx, r.Key, r.Owner, r.TTL, true); errs[i] != nil {
			errs[i] = keyError("expire", r.Key, errs[i])
			continue
		}
		todo = append(todo, i)
		keys = append(keys, b.LockKey(r.Key))
	}
	if len(todo) == 0 {
		return errs
	}
	items, err := b.mc.GetMulti(keys)
	if err != nil {
		err = unsent(err)
		for _, i := range todo {
			errs[i] = keyError("expire", renewals[i].Key, err)
		}
		return errs
	}
	var wg sync.WaitGroup
	limit := make(chan struct{}, maxConcurrentRenewals)
	for j, i := range todo {
		r := renewals[i]
		var it *memcache.Item
		if got, ok := items[keys[j]]; ok {
			// Copied: two renewals of one key must not share an item.
			c := *got
			it = &c
		}
		limit <- struct{}{}
		wg.Go(func() {
			defer func() { <-limit }()
			if err := b.renewRead(ctx, r, it); err != nil {
				errs[i] = keyError("expire", r.Key, err)
			}
		})
	}
	wg.Wait()
	return errs
}

// renewRead renews r from the item read for it (nil when absent), and
// falls back to a fresh read when the item changed since.
func (b *Backend) renewRead(ctx context.Context, r driver.Renewal, it *memcache.Item) error {
	if it == nil {
		return driver.ErrNotHeld
	}
	v, err := decodeItem(it.Value)
	if err != nil {
		return err
	}
	if v.free || v.owner != r.Owner {
		return driver.ErrNotHeld
	}
	v.expiry = time.Now().Add(r.TTL).UnixNano()
	it.Value, it.Expiration = v.encode(), expiration(r.TTL)
	err = b.mc.CompareAndSwap(it)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, memcache.ErrCacheMiss):
		return driver.ErrNotHeld
	case isCASMiss(err):
		return b.expire(ctx, r.Key, r.Owner, r.TTL)
	}
	return unsent(err)
}
