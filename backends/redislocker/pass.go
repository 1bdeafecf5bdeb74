package redislocker

import (
	"context"
	"fmt"
	"time"

	"github.com/distlock/distlock/driver"
)

// A release that names the waiter it grants the lock to (driver.Passer):
// see unlockToSrc and leaveSrc in scripts.go.

var _ driver.Passer = (*Backend)(nil)

// WatchTurns implements driver.Passer: WatchTurn, with the whole turn
// message (turnFormat), and the notices of owner's holds. With
// WithReplicaAck fn is only woken, as WatchTurn's is, and gets no
// notices: UnlockTo then names nobody.
func (b *Backend) WatchTurns(ctx context.Context, key, owner string, fn func(driver.Turn)) (stop func(), err error) {
	if err := driver.CheckOwner(key, owner); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, driver.Invalid("nil callback")
	}
	w := driver.NewTurnsCallback(fn)
	if b.cfg.replicas > 0 {
		w = driver.NewTurnsCallback(func(t driver.Turn) {
			if t.Behind == 0 { // UnlockTo would not name the waiter of a notice
				fn(driver.Turn{})
			}
		})
	}
	k := b.keys(key)
	return b.watchChannel(ctx, k.turns+owner, k.slot, w)
}

// UnlockTo implements driver.Passer. A successor's patience counts whole
// milliseconds: less than one is none. With WithReplicaAck it grants
// nothing to the successor, and releases as Unlock: a grant is the lock
// only once replicas have it, which only the waiter's own claim waits for
// (see WatchTurn), so a waiter could not hold it from the turn alone.
func (b *Backend) UnlockTo(ctx context.Context, key, owner string, token uint64, next driver.Successor) error {
	if token == 0 {
		if err := driver.CheckOwner(key, owner); err != nil {
			return err
		}
	} else if err := checkHold(key, owner, token); err != nil {
		return err
	}
	if next.Owner != "" {
		if err := driver.CheckLease(key, next.Owner, next.TTL); err != nil {
			return err
		}
		if next.Floor > maxFloor {
			return fmt.Errorf("redislocker: %w: floor %d above %d", driver.ErrInvalid, next.Floor, uint64(maxFloor))
		}
	}
	if next.Owner == "" || next.Patience < time.Millisecond || b.cfg.replicas > 0 {
		return b.unlock(ctx, key, owner, token)
	}
	if err := b.guard.Enter(); err != nil {
		return err
	}
	defer b.guard.Exit()
	k := b.keys(key)
	reply, err := unlockToScript.run(ctx, b.client, []any{k.lock, k.queue, k.waiters, leftKey(k, next.Owner)},
		b.unlockToArg(owner, token, next))
	if err != nil {
		return b.failed(err)
	}
	left, err := replyInt(reply)
	if err != nil {
		return b.failed(err)
	}
	if left < 0 {
		return driver.ErrNotHeld
	}
	return nil
}

// Leave implements driver.Passer; the mark lasts d rounded up to the
// millisecond.
func (b *Backend) Leave(ctx context.Context, key, owner string, d time.Duration) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	if d <= 0 {
		return driver.Invalid("non-positive time to leave")
	}
	if err := b.guard.Enter(); err != nil {
		return err
	}
	defer b.guard.Exit()
	k := b.keys(key)
	reply, err := leaveScript.run(ctx, b.client, []any{k.lock, k.queue, k.waiters, leftKey(k, owner)},
		b.releaseArg(owner, uint64(millis(d))))
	if err != nil {
		return b.failed(err)
	}
	if _, err := replyInt(reply); err != nil {
		return b.failed(err)
	}
	return nil
}

// leftKey names owner's left mark on the lock of k (see leaveSrc), in the
// lock's hash slot.
func leftKey(k *keys, owner string) string { return k.lock + ":left:" + owner }

// unlockToArg packs the argument of unlockToSrc.
func (b *Backend) unlockToArg(owner string, token uint64, next driver.Successor) string {
	var buf [argRoom]byte
	p := appendNum(buf[:0], millis(b.cfg.fenceLinger))
	p = appendNum(p, int64(token))
	p = appendNum(p, millis(next.TTL))
	p = appendNum(p, int64(next.Patience/time.Millisecond))
	p = appendNum(p, int64(next.Floor))
	return string(appendStr(appendStr(appendStr(p, b.publish), owner), next.Owner))
}
