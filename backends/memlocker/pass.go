package memlocker

import (
	"context"
	"fmt"
	"maps"
	"time"

	"github.com/distlock/distlock/driver"
)

// A release that names the waiter it grants the lock to (driver.Passer).

var _ driver.Passer = (*Client)(nil)

// WatchTurns implements driver.Passer: WatchTurn, with the whole turn. It
// shares WatchTurn's partition rule: while the client is partitioned fn
// hears nothing, and when it heals fn gets a zero Turn.
func (c *Client) WatchTurns(ctx context.Context, key, owner string, fn func(driver.Turn)) (func(), error) {
	if err := driver.CheckOwner(key, owner); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, driver.Invalid("nil callback")
	}
	return c.watch(ctx, "watchturn", watched{key: key, owner: owner}, fn)
}

// UnlockTo implements driver.Passer: UnlockHold, or Unlock when token is
// 0, whose final release grants key to next when next may have it. A
// named grant's token is max(the key's last token + 1, next.Floor), unlike
// a queue grant's, which counts up by one: members of a combinator that
// agreed on the holder's token thus agree on the successor's too. It
// counts as an Unlock call (see Calls).
func (c *Client) UnlockTo(ctx context.Context, key, owner string, token uint64, next driver.Successor) error {
	check := driver.CheckOwner(key, owner)
	if token != 0 {
		check = driver.CheckToken(key, owner, token)
	}
	if check != nil {
		return check
	}
	if next.Owner != "" {
		if err := driver.CheckLease(key, next.Owner, next.TTL); err != nil {
			return err
		}
	}
	return c.unlock(ctx, key, owner, token, next)
}

// Leave implements driver.Passer: Dequeue, and a mark, by the store's
// clock, that keeps UnlockTo from naming owner to key for d. It counts as
// a Dequeue call (see Calls).
func (c *Client) Leave(ctx context.Context, key, owner string, d time.Duration) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	if d <= 0 {
		return driver.Invalid(fmt.Sprintf("non-positive time to leave %v", d))
	}
	var n notice
	err := c.call(ctx, "dequeue", func() { n = c.store.leave(key, owner, d) })
	n.send()
	return err
}

// handTo runs when key has just become free by a release that named next:
// it grants key to next (see grant: one unclaimed hold, the lease next.TTL,
// a token of at least next.Floor), out of its place in line if it has one,
// unless next names nobody, has no patience left or left key (see Leave);
// then it hands key off as any release does. s.mu must be held, and key
// must have no hold.
func (s *Store) handTo(key string, next driver.Successor, now time.Time) notice {
	if next.Owner == "" || next.Patience <= 0 || s.hasLeft(key, next.Owner, now) {
		return s.handOff(key, now)
	}
	s.leaveQueue(key, next.Owner)
	s.tokens[key] = max(s.tokens[key]+1, next.Floor)
	return s.grant(key, next, s.tokens[key], true, now)
}

// leave is dequeue after marking owner as having left key for d (see
// Leave). The notice is for after s.mu is released.
func (s *Store) leave(key, owner string, d time.Duration) notice {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	s.markLeft(leftMark{key: key, owner: owner}, now.Add(d), now)
	return s.withdraw(key, owner, now)
}

// leftMark names an owner's Leave of a key.
type leftMark struct {
	key, owner string
}

// minLeftSweep is the fewest marks markLeft sweeps.
const minLeftSweep = 64

// markLeft keeps releases from naming m.owner to m.key until until. Most
// marks are never looked at again (the waiter gave up), so it also drops
// the lapsed marks whenever their number has doubled since the last time:
// the marks kept stay within twice the live ones (or minLeftSweep), at a
// constant cost per mark on average. s.mu must be held.
func (s *Store) markLeft(m leftMark, until, now time.Time) {
	s.left[m] = until
	if len(s.left) < s.leftSweep {
		return
	}
	maps.DeleteFunc(s.left, func(_ leftMark, u time.Time) bool { return !now.Before(u) })
	s.leftSweep = max(2*len(s.left), minLeftSweep)
}

// hasLeft reports whether owner's mark on key (see Leave) still holds at
// now, dropping it if it has lapsed. s.mu must be held.
func (s *Store) hasLeft(key, owner string, now time.Time) bool {
	m := leftMark{key: key, owner: owner}
	until, ok := s.left[m]
	if ok && !now.Before(until) {
		delete(s.left, m)
		return false
	}
	return ok
}
