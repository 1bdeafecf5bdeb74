package pglocker

import (
	"context"
	"errors"
	"fmt"

	"github.com/distlock/distlock/driver"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SQLSTATEs the backend acts on.
const (
	undefinedTable   = "42P01"
	duplicateTable   = "42P07"
	duplicateObject  = "42710"
	uniqueViolation  = "23505"
	insufficientPriv = "42501"
)

// run runs op, one statement, on a connection of the pool, and makes the
// table when op found it missing, then runs op again: a statement on a
// missing table ran nothing, so trying it again cannot do it twice. A
// connection that cannot be had (the pool is full until ctx ends, or a new
// one cannot be made) is ErrUnavailable: nothing was sent.
func (b *Backend) run(ctx context.Context, op func(context.Context, *pgxpool.Conn) error) error {
	c, err := b.pool.Acquire(ctx)
	if err != nil {
		if misconfigured(err) != "" {
			return err // a refused login: failed says what to fix
		}
		return fmt.Errorf("pglocker: %w: no connection to the server, nothing was sent: %w", driver.ErrUnavailable, err)
	}
	defer c.Release()
	err = op(ctx, c)
	if !hasCode(err, undefinedTable) {
		return err
	}
	if cerr := b.create(ctx, c); cerr != nil {
		return cerr
	}
	return op(ctx, c)
}

// create makes the table and its sequence if they are missing. Two clients
// making them at once may collide on the catalog (the table, its row type,
// the catalog's unique indexes); the loser finds them made.
func (b *Backend) create(ctx context.Context, c *pgxpool.Conn) error {
	b.createMu.Lock()
	defer b.createMu.Unlock()
	if b.created {
		return nil
	}
	_, err := c.Exec(ctx, b.table.schema())
	if err != nil && !hasCode(err, duplicateTable) && !hasCode(err, duplicateObject) && !hasCode(err, uniqueViolation) {
		if hasCode(err, insufficientPriv) || hasCode(err, readOnly) {
			return cannotCreate(b.table, err)
		}
		return err
	}
	b.created = true
	return nil
}

// hasCode reports whether err is a server error with SQLSTATE code.
func hasCode(err error, code string) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == code
}
