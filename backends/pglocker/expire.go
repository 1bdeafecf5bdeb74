package pglocker

import (
	"context"
	"time"

	"github.com/distlock/distlock/driver"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Expire implements driver.Backend: the owner's live lease is reset to ttl
// from now on the server's clock.
func (b *Backend) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	if err := driver.CheckLease(key, owner, ttl); err != nil {
		return err
	}
	ctx, end, err := b.call(ctx)
	if err != nil {
		return err
	}
	defer end.End()
	var n int64
	err = b.run(ctx, func(ctx context.Context, c *pgxpool.Conn) error {
		tag, err := c.Exec(ctx, b.sql.expire, []byte(key), []byte(owner), micros(ttl))
		n = tag.RowsAffected()
		return err
	})
	if err != nil {
		return failed(err)
	}
	if n == 0 {
		return driver.ErrNotHeld
	}
	return nil
}

// ExpireBatch implements driver.BatchExpirer: every valid renewal in one
// UPDATE over the batch's arrays. A renewal repeated in the batch shares
// the first one's result.
func (b *Backend) ExpireBatch(ctx context.Context, renewals []driver.Renewal) []error {
	errs := make([]error, len(renewals))
	type hold struct{ key, owner string }
	first := make(map[hold]int, len(renewals))
	var keys, owners [][]byte
	var ttls []int64
	var sent []int // renewals' indexes, by position in the arrays
	for i, r := range renewals {
		if errs[i] = driver.CheckLease(r.Key, r.Owner, r.TTL); errs[i] != nil {
			continue
		}
		if _, dup := first[hold{r.Key, r.Owner}]; dup {
			continue
		}
		first[hold{r.Key, r.Owner}] = i
		keys, owners, ttls = append(keys, []byte(r.Key)), append(owners, []byte(r.Owner)), append(ttls, micros(r.TTL))
		sent = append(sent, i)
	}
	if len(sent) > 0 {
		b.expireBatch(ctx, keys, owners, ttls, sent, errs)
	}
	for i, r := range renewals {
		if j, ok := first[hold{r.Key, r.Owner}]; ok && j != i && errs[i] == nil {
			errs[i] = errs[j]
		}
	}
	return errs
}

// expireBatch runs the batch's statement and sets the errors of the sent
// renewals: nil for those it renewed, ErrNotHeld for the others, or the
// call's error for all.
func (b *Backend) expireBatch(ctx context.Context, keys, owners [][]byte, ttls []int64, sent []int, errs []error) {
	fail := func(err error) {
		for _, i := range sent {
			errs[i] = err
		}
	}
	ctx, end, err := b.call(ctx)
	if err != nil {
		fail(err)
		return
	}
	defer end.End()
	renewed := make([]bool, len(sent))
	err = b.run(ctx, func(ctx context.Context, c *pgxpool.Conn) error {
		clear(renewed)
		rows, err := c.Query(ctx, b.sql.expireBatch, keys, owners, ttls)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var pos int64 // WITH ORDINALITY counts from 1
			if err := rows.Scan(&pos); err != nil {
				return err
			}
			if pos >= 1 && pos <= int64(len(sent)) {
				renewed[pos-1] = true
			}
		}
		return rows.Err()
	})
	if err != nil {
		fail(failed(err))
		return
	}
	for j, i := range sent {
		if !renewed[j] {
			errs[i] = driver.ErrNotHeld
		}
	}
}
