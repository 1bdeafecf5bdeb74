package pglocker

import (
	"context"
	"math"

	"github.com/distlock/distlock/driver"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Unlock implements driver.Backend in one statement: one hold less, or, at
// the last, the row deleted and the table's channel notified (at commit,
// which is the statement's end).
func (b *Backend) Unlock(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	return b.unlock(ctx, key, owner, 0)
}

// UnlockHold implements driver.HoldUnlocker: Unlock of owner's hold whose
// fencing token is token.
func (b *Backend) UnlockHold(ctx context.Context, key, owner string, token uint64) error {
	if err := driver.CheckToken(key, owner, token); err != nil {
		return err
	}
	if token > math.MaxInt64 {
		return driver.ErrNotHeld // the sequence never reaches it
	}
	return b.unlock(ctx, key, owner, token)
}

// unlock drops owner's hold on key whose token is token (0: any).
func (b *Backend) unlock(ctx context.Context, key, owner string, token uint64) error {
	ctx, end, err := b.call(ctx)
	if err != nil {
		return err
	}
	defer end.End()
	var changed int64
	err = b.run(ctx, func(ctx context.Context, c *pgxpool.Conn) error {
		return c.QueryRow(ctx, b.sql.unlock, []byte(key), []byte(owner), int64(token)).Scan(&changed)
	})
	if err != nil {
		return failed(err)
	}
	if changed == 0 {
		return driver.ErrNotHeld
	}
	return nil
}

// ForceUnlock implements driver.ForceUnlocker: it deletes key's row, whoever
// holds it, notifies the watchers, and reports whether a live lease was
// there.
func (b *Backend) ForceUnlock(ctx context.Context, key string) (bool, error) {
	if err := driver.CheckKey(key); err != nil {
		return false, err
	}
	ctx, end, err := b.call(ctx)
	if err != nil {
		return false, err
	}
	defer end.End()
	var held bool
	err = b.run(ctx, func(ctx context.Context, c *pgxpool.Conn) error {
		return c.QueryRow(ctx, b.sql.forceUnlock, []byte(key)).Scan(&held)
	})
	if err != nil {
		return false, failed(err)
	}
	return held, nil
}
