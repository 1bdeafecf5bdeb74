package memcachelocker

import (
	"context"
	"time"

	"github.com/distlock/distlock/driver"
)

// Expire implements driver.Backend: with cas, it records a new lease end
// and gives the item a new expiry, if owner holds the lock. memcached has
// no command that renews many items at once, so the backend is no
// driver.BatchExpirer: the Store's watchdog renews its leases with
// concurrent Expire calls (driver.ExpireAll).
func (b *Backend) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	if err := driver.CheckLease(key, owner, ttl); err != nil {
		return err
	}
	if err := checkMaxLease(ttl); err != nil {
		return err
	}
	if err := b.guard.Enter(); err != nil {
		return err
	}
	defer b.guard.Exit()
	exp := expiration(ttl)
	return failed(b.update(ctx, key, owner, 0, func(v lockItem, now time.Time) (lockItem, int32) {
		v.expiry = now.Add(ttl).UnixNano()
		return v, exp
	}))
}
