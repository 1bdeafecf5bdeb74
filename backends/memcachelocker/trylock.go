package memcachelocker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bradfitz/gomemcache/memcache"

	"github.com/distlock/distlock/driver"
)

// TryLock implements driver.Backend; it ignores r.Patience and r.Floor. It
// reads the lock's item first. A free lock (no item, or a tombstone) is
// taken with add (or cas over the tombstone) by a token-less hold; then the
// counter is incremented and the token written with cas, guarded by the
// acquisition's nonce. A lock the owner holds gets one more hold and a new
// lease with cas. A lock another owner holds is refused, with the holder's
// remaining lease.
func (b *Backend) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	if err := driver.CheckRequest(r); err != nil {
		return driver.Grant{}, err
	}
	if err := checkMaxLease(r.TTL); err != nil {
		return driver.Grant{}, err
	}
	if err := b.guard.Enter(); err != nil {
		return driver.Grant{}, err
	}
	defer b.guard.Exit()
	g, err := b.tryLock(ctx, r.Key, r.Owner, r.TTL)
	if err != nil {
		return driver.Grant{}, failed(err)
	}
	return g, nil
}

func (b *Backend) tryLock(ctx context.Context, key, owner string, ttl time.Duration) (driver.Grant, error) {
	lk, ck := b.itemKeys(key)
	now := time.Now()
	exp := expiration(ttl)
	fresh := lockItem{owner: owner, holds: 1, expiry: now.Add(ttl).UnixNano(), nonce: newNonce()}

	add := func() (bool, error) {
		err := b.mc.Add(&memcache.Item{Key: lk, Value: fresh.encode(), Expiration: exp})
		switch {
		case err == nil:
			return true, nil
		case errors.Is(err, memcache.ErrNotStored):
			return false, nil
		}
		return false, unsent(err)
	}
	// Read first: a released lock leaves a tombstone that add cannot
	// replace, and a held one needs no write at all. A round begins only
	// when the rounds before it wrote nothing.
	for range casRounds {
		if err := b.live(ctx); err != nil {
			return driver.Grant{}, err
		}
		it, err := b.mc.Get(lk)
		if errors.Is(err, memcache.ErrCacheMiss) {
			added, err := add()
			if err != nil {
				return driver.Grant{}, err
			}
			if added {
				return b.assignToken(ctx, lk, ck, owner, fresh.nonce, 0)
			}
			continue
		}
		if err != nil {
			return driver.Grant{}, unsent(err)
		}
		v, err := decodeItem(it.Value)
		if err != nil {
			return driver.Grant{}, err
		}
		switch {
		case v.free:
			it.Value, it.Expiration = fresh.encode(), exp
			err := b.mc.CompareAndSwap(it)
			if err == nil {
				return b.assignToken(ctx, lk, ck, owner, fresh.nonce, v.token)
			}
			if !isCASMiss(err) {
				return driver.Grant{}, unsent(err)
			}
		case v.owner != owner:
			return driver.Grant{Remaining: v.remaining(time.Now())}, nil
		default:
			// Re-entry: one more hold and a new lease, in the same
			// acquisition (the nonce stays).
			v.holds++
			v.expiry = fresh.expiry
			it.Value, it.Expiration = v.encode(), exp
			err := b.mc.CompareAndSwap(it)
			if err == nil {
				if v.token == 0 {
					// The acquisition has not written its token yet.
					return b.assignToken(ctx, lk, ck, owner, v.nonce, 0)
				}
				return driver.Grant{Acquired: true, Holds: v.holds, Token: v.token}, nil
			}
			if !isCASMiss(err) {
				return driver.Grant{}, unsent(err)
			}
		}
	}
	return driver.Grant{}, errContended
}

// assignToken gives the acquisition nonce its fencing token: a new counter
// value, written with cas while the item still belongs to that acquisition.
// The counter is incremented after the acquisition began, so the token is
// above every earlier holder's. If the acquisition ended meanwhile (its
// lease ran out), the lock is not held and the Grant says so.
func (b *Backend) assignToken(ctx context.Context, lk, ck, owner, nonce string, floor uint64) (driver.Grant, error) {
	if err := ctx.Err(); err != nil {
		return driver.Grant{}, fmt.Errorf("the lock was taken without a token before the context ended: %w", err)
	}
	if b.guard.Closed() {
		return driver.Grant{}, errors.New("the lock was taken without a token before the backend closed")
	}
	t, err := b.nextToken(ck, floor)
	if err != nil {
		return driver.Grant{}, fmt.Errorf("the lock was taken without a token: %w", err)
	}
	for range casRounds {
		it, err := b.mc.Get(lk)
		if errors.Is(err, memcache.ErrCacheMiss) {
			return driver.Grant{}, nil
		}
		if err != nil {
			return driver.Grant{}, fmt.Errorf("the lock was taken without a token: %w", err)
		}
		v, err := decodeItem(it.Value)
		if err != nil {
			return driver.Grant{}, err
		}
		if v.free || v.nonce != nonce || v.owner != owner {
			return driver.Grant{}, nil
		}
		if v.token != 0 {
			// Another client of the same owner re-entered and wrote it.
			return driver.Grant{Acquired: true, Holds: v.holds, Token: v.token}, nil
		}
		v.token = t
		it.Value, it.Expiration = v.encode(), expirationUntil(v, time.Now())
		err = b.mc.CompareAndSwap(it)
		if err == nil {
			return driver.Grant{Acquired: true, Holds: v.holds, Token: t}, nil
		}
		if !isCASMiss(err) {
			return driver.Grant{}, fmt.Errorf("the lock was taken without a token: %w", err)
		}
	}
	return driver.Grant{}, fmt.Errorf("the lock was taken without a token: %w", errContended)
}
