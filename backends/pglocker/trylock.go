package pglocker

import (
	"context"
	"time"

	"github.com/distlock/distlock/driver"
	"github.com/jackc/pgx/v5/pgxpool"
)

// TryLock implements driver.Backend in one statement: it takes a free or
// expired key with a new token from the table's sequence, re-enters the
// owner's own live hold (one hold more, the lease reset, the token kept),
// or, when another owner holds the key, changes nothing and reports the
// holder's remaining lease. r.Patience is ignored (PostgreSQL keeps no wait
// queue here), and so is r.Floor (see the package doc, "Fencing tokens").
func (b *Backend) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	if err := driver.CheckRequest(r); err != nil {
		return driver.Grant{}, err
	}
	ctx, end, err := b.call(ctx)
	if err != nil {
		return driver.Grant{}, err
	}
	defer end.End()
	var (
		acquired  bool
		holds     int
		token     int64
		remaining int64
	)
	err = b.run(ctx, func(ctx context.Context, c *pgxpool.Conn) error {
		rows, err := c.Query(ctx, b.sql.tryLock,
			[]byte(r.Key), []byte(r.Owner), micros(r.TTL), b.table.lockSpan, keyLock(r.Key))
		if err != nil {
			return err
		}
		defer rows.Close()
		acquired, holds, token, remaining = false, 0, 0, 0
		if rows.Next() {
			if err := rows.Scan(&acquired, &holds, &token, &remaining); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	if err != nil {
		return driver.Grant{}, failed(err)
	}
	if !acquired {
		// No row: a holder the statement's snapshot did not see yet; its
		// lease is unknown.
		return driver.Grant{Remaining: time.Duration(remaining) * time.Microsecond}, nil
	}
	return driver.Grant{Acquired: true, Holds: holds, Token: uint64(token)}, nil
}
