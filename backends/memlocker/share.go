package memlocker

import (
	"context"
	"time"

	"github.com/distlock/distlock/driver"
)

// view is a view of a Client's shared locks (see Client.Share): its calls
// are the client's, through its faults, on the store's shared locks of one
// kind.
type view struct {
	c     *Client
	share driver.Share
	space space
}

var (
	_ driver.Sharer        = (*Client)(nil)
	_ driver.Backend       = (*view)(nil)
	_ driver.Notifier      = (*view)(nil)
	_ driver.Dequeuer      = (*view)(nil)
	_ driver.Inspector     = (*view)(nil)
	_ driver.ForceUnlocker = (*view)(nil)
	_ driver.BatchExpirer  = (*view)(nil)
	_ driver.Fencer        = (*view)(nil)
	_ driver.HoldUnlocker  = (*view)(nil)
	_ driver.Granular      = (*view)(nil)
	_ driver.Endpointer    = (*view)(nil)
	_ driver.Clocked       = (*view)(nil)
)

// Share implements driver.Sharer: the view of the store's read-write locks
// (Mode driver.Read or driver.Write) or semaphores (driver.Permits) that
// sh describes, with every capability of the client but its queue. The
// view's calls count as the client's (see Calls) and fail as the client's
// do: with its injected faults, its partition, and after its Close, which
// the view's Close is. It fails with driver.ErrInvalid for a malformed sh,
// and with driver.ErrClosed after Close.
func (c *Client) Share(sh driver.Share) (driver.Backend, error) {
	if err := driver.CheckShare(sh); err != nil {
		return nil, err
	}
	if c.guard.Closed() {
		return nil, driver.ErrClosed
	}
	sp := rwSpace
	if sh.Mode == driver.Permits {
		sp = semSpace
	}
	return &view{c: c, share: sh, space: sp}, nil
}

// lock names key's lock in the view's namespace.
func (v *view) lock(key string) sharedKey { return sharedKey{space: v.space, key: key} }

// hold names owner's hold in the view's mode.
func (v *view) hold(owner string) holdID { return holdID{owner: owner, mode: v.share.Mode} }

// do runs op on the store as the client's call of that name, and then
// calls the watchers op returns.
func (v *view) do(ctx context.Context, name string, op func() []*driver.Callback) error {
	var n []*driver.Callback
	err := v.c.call(ctx, name, func() { n = op() })
	notify(n)
	return err
}

// answer is do for an op that answers with an error of its own: it
// returns the call's failure, or else op's answer.
func (v *view) answer(ctx context.Context, name string, op func() ([]*driver.Callback, error)) error {
	var result error
	if err := v.do(ctx, name, func() (n []*driver.Callback) {
		n, result = op()
		return n
	}); err != nil {
		return err
	}
	return result
}

// TryLock implements driver.Backend for a shared lock: see driver.Sharer
// for whom it lets in. Unlike the client's mutexes, r.Floor is honoured.
// A semaphore in use with another limit, or a hold of other permits by
// r.Owner, fail with driver.ErrInvalid, changing nothing.
func (v *view) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	if err := driver.CheckRequest(r); err != nil {
		return driver.Grant{}, err
	}
	op := "trylock"
	if r.Patience > 0 {
		op = "trylockqueued"
	}
	var g driver.Grant
	err := v.answer(ctx, op, func() (n []*driver.Callback, err error) {
		if v.space == semSpace {
			g, n, err = v.c.store.semTryLock(v.share, r)
			return n, err
		}
		g, n = v.c.store.rwTryLock(v.share.Mode, r)
		return n, nil
	})
	if err != nil {
		return driver.Grant{}, err
	}
	return g, nil
}

// Unlock implements driver.Backend: it drops one of owner's holds in the
// view's mode.
func (v *view) Unlock(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	return v.unlock(ctx, key, owner, 0)
}

// UnlockHold implements driver.HoldUnlocker: Unlock of owner's hold in
// the view's mode whose token is token. It counts as an Unlock call.
func (v *view) UnlockHold(ctx context.Context, key, owner string, token uint64) error {
	if err := driver.CheckToken(key, owner, token); err != nil {
		return err
	}
	return v.unlock(ctx, key, owner, token)
}

// unlock drops one of owner's holds in the view's mode whose token is
// token (0: any).
func (v *view) unlock(ctx context.Context, key, owner string, token uint64) error {
	return v.answer(ctx, "unlock", func() ([]*driver.Callback, error) {
		return v.c.store.sharedUnlock(v.lock(key), v.hold(owner), token)
	})
}

// Expire implements driver.Backend: it resets the lease of owner's hold in
// the view's mode.
func (v *view) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	if err := driver.CheckLease(key, owner, ttl); err != nil {
		return err
	}
	return v.answer(ctx, "expire", func() ([]*driver.Callback, error) {
		return v.c.store.sharedExpire(v.lock(key), v.hold(owner), ttl)
	})
}

// ExpireBatch implements driver.BatchExpirer: the renewals share one call,
// and so one fault.
func (v *view) ExpireBatch(ctx context.Context, renewals []driver.Renewal) []error {
	errs := make([]error, len(renewals))
	err := v.do(ctx, "expirebatch", func() (all []*driver.Callback) {
		for i, r := range renewals {
			if errs[i] = driver.CheckLease(r.Key, r.Owner, r.TTL); errs[i] == nil {
				var n []*driver.Callback
				n, errs[i] = v.c.store.sharedExpire(v.lock(r.Key), v.hold(r.Owner), r.TTL)
				all = append(all, n...)
			}
		}
		return all
	})
	if err != nil {
		for i := range errs {
			errs[i] = err
		}
	}
	return errs
}

// Close implements driver.Backend: it closes the client, and so every view
// of it.
func (v *view) Close() error { return v.c.Close() }
