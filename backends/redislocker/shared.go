package redislocker

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/distlock/distlock/driver"
)

var _ driver.Sharer = (*Backend)(nil)

// Share implements driver.Sharer: the view of the backend's read-write
// locks (Mode driver.Read or driver.Write) or semaphores (driver.Permits)
// that sh describes. A view implements driver.Notifier, driver.Dequeuer,
// driver.Inspector, driver.ForceUnlocker, driver.BatchExpirer,
// driver.Fencer, driver.HoldUnlocker and driver.Endpointer, as the backend
// does, over the backend's connections: its calls fail as the backend's do
// (see Errors in the package doc), and its Close is the backend's. Each
// lock is one script per operation, leased by the server's clock, in keys
// of its own under the name's hash tag (see the package doc). Share fails
// with driver.ErrInvalid for a malformed sh, and with driver.ErrClosed
// after Close.
func (b *Backend) Share(sh driver.Share) (driver.Backend, error) {
	if err := driver.CheckShare(sh); err != nil {
		return nil, err
	}
	if b.guard.Closed() {
		return nil, driver.ErrClosed
	}
	v := &view{b: b, share: sh, linger: millis(b.cfg.fenceLinger), publish: b.publish}
	switch sh.Mode {
	case driver.Read:
		v.mode, v.kind, v.names, v.lock = "r", rwKind, &b.shared.rw, rwReadLockScript
		v.unlock, v.forceUnlock, v.dequeue = rwUnlockScript, rwForceUnlockScript, rwDequeueScript
	case driver.Write:
		v.mode, v.kind, v.names, v.lock = "w", rwKind, &b.shared.rw, rwWriteLockScript
		v.unlock, v.forceUnlock, v.dequeue = rwUnlockScript, rwForceUnlockScript, rwDequeueScript
	default:
		v.mode, v.kind, v.names, v.lock = "h", semKind, &b.shared.sem, semLockScript
		v.unlock, v.forceUnlock, v.dequeue = semUnlockScript, semForceUnlockScript, semDequeueScript
		v.limit, v.permits = sh.Limit, sh.Permits
	}
	v.batch = batchKind{script: sharedExpireScript, head: []any{v.linger, v.mode}, keys: v.batchKeys}
	return v, nil
}

// view is a view of a Backend's shared locks (see Backend.Share).
type view struct {
	b     *Backend
	share driver.Share
	// mode is the letter that names the view's holds in the scripts.
	mode any
	kind string
	// names caches the keys of the locks of the view's kind.
	names *nameCache[sharedKeys]
	// The scripts of the view's kind and mode.
	lock, unlock, forceUnlock, dequeue *script
	batch                              batchKind
	// The arguments that never change, boxed once.
	linger, publish, limit, permits any
}

var (
	_ driver.Backend       = (*view)(nil)
	_ driver.Notifier      = (*view)(nil)
	_ driver.Dequeuer      = (*view)(nil)
	_ driver.Inspector     = (*view)(nil)
	_ driver.ForceUnlocker = (*view)(nil)
	_ driver.BatchExpirer  = (*view)(nil)
	_ driver.Fencer        = (*view)(nil)
	_ driver.HoldUnlocker  = (*view)(nil)
	_ driver.Endpointer    = (*view)(nil)
)

// keys returns the Redis names of the view's lock key.
func (v *view) keys(key string) *sharedKeys {
	return v.names.get(key, func(name string) sharedKeys {
		return sharedKeysFor(v.b.cfg.prefix, name, v.kind, v.b.cluster != nil)
	})
}

// batchKeys returns what ExpireBatch needs of key.
func (v *view) batchKeys(key string) ([]any, int) {
	k := v.keys(key)
	return k.held, k.slot
}

// TryLock implements driver.Backend: see driver.Sharer for whom it lets
// in. r.Patience makes a refused writer wait, or a refused semaphore
// attempt join the wait list, counted by the server's clock; a reader
// ignores it. r.Floor is honoured up to 2^53. With WithReplicaAck it also
// waits for the replicas, as the mutexes do. A semaphore in use with
// another limit, or an owner holding other permits than the view's, fail
// with driver.ErrInvalid, changing nothing.
func (v *view) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	if err := driver.CheckRequest(r); err != nil {
		return driver.Grant{}, err
	}
	if r.Floor > maxFloor {
		return driver.Grant{}, fmt.Errorf("redislocker: %w: floor %d above %d", driver.ErrInvalid, r.Floor, uint64(maxFloor))
	}
	if err := v.b.guard.Enter(); err != nil {
		return driver.Grant{}, err
	}
	defer v.b.guard.Exit()
	k := v.keys(r.Key)
	var args []any
	switch v.share.Mode {
	case driver.Read:
		args = []any{r.Owner, millis(r.TTL), v.linger, v.publish}
	case driver.Write:
		args = []any{r.Owner, millis(r.TTL), v.linger, millis(r.Patience), r.Floor, v.publish}
	default:
		args = []any{r.Owner, millis(r.TTL), v.linger, millis(r.Patience), r.Floor, v.limit, v.permits, v.publish}
	}
	if v.b.cfg.replicas > 0 {
		release := func(ctx context.Context) error { return v.release(ctx, k, r.Owner, 0) }
		return v.b.acked(ctx, k.lock, v.lock, k.tried, args, v.parseGrant, release)
	}
	reply, err := v.lock.run(ctx, v.b.client, k.tried, args...)
	if err == nil {
		var g driver.Grant
		if g, err = v.parseGrant(reply); err == nil {
			return g, nil
		}
	}
	return driver.Grant{}, v.b.failed(err)
}

// parseGrant reads the reply of a trylock script.
func (v *view) parseGrant(reply any) (driver.Grant, error) {
	if r, ok := reply.([]any); ok && len(r) == 2 {
		code, err1 := replyInt(r[0])
		n, err2 := replyInt(r[1])
		switch {
		case err1 != nil || err2 != nil:
		case code == -1:
			return driver.Grant{}, driver.Invalid(fmt.Sprintf("a semaphore of %d permits is in use with %d", v.share.Limit, n))
		case code == -2:
			return driver.Grant{}, driver.Invalid(fmt.Sprintf("a hold of %d permits asked of an owner holding %d", v.share.Permits, n))
		}
	}
	return parseGrantArray(reply)
}

// parseGrantArray reads the grant a shared trylock script returns, as an
// array {acquired 0|1, holds, token, remaining ms when refused, uptime ms
// or -1}.
func parseGrantArray(reply any) (driver.Grant, error) {
	r, err := replyArray(reply, 5)
	if err != nil {
		return driver.Grant{}, err
	}
	acquired, err1 := replyInt(r[0])
	holds, err2 := replyInt(r[1])
	token, err3 := replyToken(r[2])
	left, err4 := replyInt(r[3])
	up, err5 := replyInt(r[4])
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return driver.Grant{}, fmt.Errorf("malformed script reply %v: %w", reply, err)
	}
	if acquired != 1 {
		return driver.Grant{Remaining: remaining(left), Token: token, Uptime: uptime(up)}, nil
	}
	return driver.Grant{Acquired: true, Holds: int(holds), Token: token, Uptime: uptime(up)}, nil
}

// Unlock implements driver.Backend: it drops one of owner's holds in the
// view's mode. The last one ends the hold, and is announced on the lock's
// channel.
func (v *view) Unlock(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	return v.unlockHold(ctx, key, owner, 0)
}

// UnlockHold implements driver.HoldUnlocker: Unlock of owner's hold in the
// view's mode whose token is token (see driver.Sharer).
func (v *view) UnlockHold(ctx context.Context, key, owner string, token uint64) error {
	if err := checkHold(key, owner, token); err != nil {
		return err
	}
	return v.unlockHold(ctx, key, owner, token)
}

// unlockHold runs the unlock script on owner's hold whose token is token
// (0: any), and classifies its errors.
func (v *view) unlockHold(ctx context.Context, key, owner string, token uint64) error {
	if err := v.b.guard.Enter(); err != nil {
		return err
	}
	defer v.b.guard.Exit()
	return v.classify(v.release(ctx, v.keys(key), owner, token))
}

// release runs the unlock script on owner's hold whose token is token (0:
// any). Its errors are unclassified, but for ErrNotHeld.
func (v *view) release(ctx context.Context, k *sharedKeys, owner string, token uint64) error {
	reply, err := v.unlock.run(ctx, v.b.client, k.own, v.mode, owner, token, v.publish)
	return held(reply, err)
}

// held reads the reply of a script that returns a negative number when
// the owner does not hold the lock: ErrNotHeld then. Its other errors are
// unclassified.
func held(reply any, err error) error {
	if err != nil {
		return err
	}
	n, err := replyInt(reply)
	if err != nil {
		return err
	}
	if n < 0 {
		return driver.ErrNotHeld
	}
	return nil
}

// classify is the backend's classification of err, but for ErrNotHeld.
func (v *view) classify(err error) error {
	if err != nil && err != driver.ErrNotHeld {
		return v.b.failed(err)
	}
	return err
}

// Expire implements driver.Backend: it resets the lease of owner's hold in
// the view's mode, with the batch script.
func (v *view) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	if err := driver.CheckLease(key, owner, ttl); err != nil {
		return err
	}
	if err := v.b.guard.Enter(); err != nil {
		return err
	}
	defer v.b.guard.Exit()
	reply, err := sharedExpireScript.run(ctx, v.b.client, v.keys(key).held, v.linger, v.mode, owner, millis(ttl))
	if r, ok := reply.([]any); ok && len(r) == 1 {
		reply = r[0]
	}
	return v.classify(held(reply, err))
}

// ExpireBatch implements driver.BatchExpirer, as the backend's: batch
// scripts grouped by Cluster slot, in one pipeline.
func (v *view) ExpireBatch(ctx context.Context, renewals []driver.Renewal) []error {
	return v.b.expireBatch(ctx, renewals, v.batch)
}

// Watch implements driver.Notifier: fn is called whenever a hold of key
// ends (Unlock, ForceUnlock) or a waiter leaves (Dequeue, or an
// acquisition), and when an attempt finds that a lease or a patience ran
// out. As for the mutexes, nothing is announced at the moment a lease
// runs out: a refused Grant's Remaining bounds the wait for it. Watch
// shares the backend's pub/sub connection.
func (v *view) Watch(ctx context.Context, key string, fn func()) (func(), error) {
	if err := driver.CheckKey(key); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, driver.Invalid("nil callback")
	}
	k := v.keys(key)
	return v.b.watchChannel(ctx, k.channel, k.slot, driver.NewCallback(fn))
}

// Endpoint implements driver.Endpointer: the backend's endpoint.
func (v *view) Endpoint() string { return v.b.Endpoint() }

// Close implements driver.Backend: it closes the backend, and so every
// view of it.
func (v *view) Close() error { return v.b.Close() }
