package pglocker

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
)

// SQLSTATEs the backend acts on.
const (
	undefinedTable   = "42P01"
	duplicateTable   = "42P07"
	duplicateObject  = "42710"
	uniqueViolation  = "23505"
	insufficientPriv = "42501"
)

// run runs op, one statement, and makes the table when op found it
// missing, then runs op again: a statement on a missing table ran nothing,
// so trying it again cannot do it twice.
func (b *Backend) run(ctx context.Context, op func(context.Context) error) error {
	err := op(ctx)
	if !hasCode(err, undefinedTable) {
		return err
	}
	if cerr := b.create(ctx); cerr != nil {
		return cerr
	}
	return op(ctx)
}

// create makes the table and its sequence if they are missing. Two clients
// making them at once may collide on the catalog (the table, its row type,
// the catalog's unique indexes); the loser finds them made.
func (b *Backend) create(ctx context.Context) error {
	b.createMu.Lock()
	defer b.createMu.Unlock()
	if b.created {
		return nil
	}
	_, err := b.pool.Exec(ctx, b.table.schema())
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
