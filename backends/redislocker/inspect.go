package redislocker

import (
	"context"
	"errors"
	"fmt"

	"github.com/distlock/distlock/driver"
)

// Inspect implements driver.Inspector: the holder, its hold count and
// remaining lease, and the lock's current fencing token (kept after the
// release for the fence linger).
func (b *Backend) Inspect(ctx context.Context, key string) (driver.State, error) {
	if err := driver.CheckKey(key); err != nil {
		return driver.State{}, err
	}
	if err := b.guard.Enter(); err != nil {
		return driver.State{}, err
	}
	defer b.guard.Exit()
	k := b.keys(key)
	reply, err := inspectScript.run(ctx, b.client, k.held)
	if err != nil {
		return driver.State{}, b.failed(err)
	}
	st, err := parseState(reply)
	if err != nil {
		return driver.State{}, b.failed(err)
	}
	return st, nil
}

func parseState(reply any) (driver.State, error) {
	r, err := replyArray(reply, 5)
	if err != nil {
		return driver.State{}, err
	}
	held, err1 := replyInt(r[0])
	owner, err2 := replyString(r[1])
	holds, err3 := replyInt(r[2])
	pttl, err4 := replyInt(r[3])
	token, err5 := replyToken(r[4])
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return driver.State{}, fmt.Errorf("malformed script reply %v: %w", reply, err)
	}
	if held != 1 {
		return driver.State{Token: token}, nil
	}
	return driver.State{Held: true, Owner: owner, Holds: int(holds), Remaining: remaining(pttl), Token: token}, nil
}

// ForceUnlock implements driver.ForceUnlocker: it releases the lock
// whoever holds it, hands it to the first waiter in its queue, if any, and
// publishes the release.
func (b *Backend) ForceUnlock(ctx context.Context, key string) (bool, error) {
	if err := driver.CheckKey(key); err != nil {
		return false, err
	}
	if err := b.guard.Enter(); err != nil {
		return false, err
	}
	defer b.guard.Exit()
	k := b.keys(key)
	reply, err := forceUnlockScript.run(ctx, b.client, k.queued, b.releaseArg("", 0))
	if err != nil {
		return false, b.failed(err)
	}
	n, err := replyInt(reply)
	if err != nil {
		return false, b.failed(err)
	}
	return n == 1, nil
}
