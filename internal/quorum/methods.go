package quorum

import (
	"context"
	"time"

	"github.com/distlock/distlock/driver"
)

// TryLock implements driver.Backend: one attempt on every member at once
// (see attempt.go). The deadline of ctx, if any, bounds the attempt (a
// Mutex's wait budget bounds only its waiting, not the attempt in
// flight). It returns a grant with Acquired false when the attempt failed
// and the owner is known not to hold the lock, and an error that is none
// of the sentinels when enough members may hold it that the outcome is
// unknown. Patience is checked, and passed on only to the members that
// keep a view's wait list (see waitsAt): a combinator of mutexes keeps no
// queue. A Floor above the attempt's own (tokenFloor) is what its fencing
// members get instead, so that a view, whose members honour it, hands out
// no token below it.
func (c *combinator) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	ts, key, err := c.enter(r.Key)
	if err != nil {
		return driver.Grant{}, err
	}
	defer c.guard.Exit()
	r.Key = key
	if err := driver.CheckRequest(r); err != nil {
		return driver.Grant{}, c.labelled(err)
	}
	return c.tryLock(ctx, ts, r)
}

// Unlock implements driver.Backend: it drops one hold on every member that
// has one for owner (see release.go).
func (c *combinator) Unlock(ctx context.Context, key, owner string) error {
	ts, err := c.enterOwner(key, owner)
	if err != nil {
		return err
	}
	defer c.guard.Exit()
	return c.unlock(ctx, ts, owner)
}

// Expire implements driver.Backend: it renews the lease on every member
// (see release.go).
func (c *combinator) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	ts, key, err := c.enter(key)
	if err != nil {
		return err
	}
	defer c.guard.Exit()
	if err := driver.CheckLease(key, owner, ttl); err != nil {
		return c.labelled(err)
	}
	return c.expire(ctx, ts, owner, ttl)
}

// Drift implements driver.Drifter: a renewal is counted as an acquisition
// is, less the drift its lease allows for (see Settings.drift).
func (c *combinator) Drift(ttl time.Duration) time.Duration { return c.s.drift(ttl) }

// watchKey is Notifier.Watch, for the combinators with a notifying member.
func (c *combinator) watchKey(ctx context.Context, key string, fn func()) (func(), error) {
	ts, _, err := c.enter(key)
	if err != nil {
		return nil, err
	}
	defer c.guard.Exit()
	if fn == nil {
		return nil, c.labelled(driver.Invalid("nil callback"))
	}
	return c.engine.watch(ctx, ts, fn)
}

// inspectKey is Inspector.Inspect, for the combinators whose every member
// inspects.
func (c *combinator) inspectKey(ctx context.Context, key string) (driver.State, error) {
	ts, _, err := c.enter(key)
	if err != nil {
		return driver.State{}, err
	}
	defer c.guard.Exit()
	return c.engine.inspect(ctx, ts)
}

// forceUnlockKey is ForceUnlocker.ForceUnlock, for the combinators whose every
// member force-unlocks.
func (c *combinator) forceUnlockKey(ctx context.Context, key string) (bool, error) {
	ts, _, err := c.enter(key)
	if err != nil {
		return false, err
	}
	defer c.guard.Exit()
	return c.engine.forceUnlock(ctx, ts)
}

// fenceKey raises the token of owner's hold on key on every fencing member,
// for a combinator that has this one as a member (see nestedFencer).
func (c *combinator) fenceKey(ctx context.Context, key, owner string, token uint64) error {
	ts, err := c.enterOwner(key, owner)
	if err != nil {
		return err
	}
	defer c.guard.Exit()
	if token == 0 {
		return c.labelled(driver.Invalid("zero token"))
	}
	return c.engine.fence(ctx, ts, owner, token)
}
