package pglocker

import (
	"context"
	"time"

	"github.com/distlock/distlock/driver"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Inspect implements driver.Inspector: key's live lease, if any, read with
// the table's sequence in one statement. A key not held reports the
// sequence's last token, at least the last holder's and below every later
// one.
func (b *Backend) Inspect(ctx context.Context, key string) (driver.State, error) {
	if err := driver.CheckKey(key); err != nil {
		return driver.State{}, err
	}
	ctx, end, err := b.call(ctx)
	if err != nil {
		return driver.State{}, err
	}
	defer end.End()
	var (
		owner             []byte
		holds             *int
		token, remaining  *int64
		lastToken         int64
		sequenceWasCalled bool
	)
	err = b.run(ctx, func(ctx context.Context, c *pgxpool.Conn) error {
		return c.QueryRow(ctx, b.sql.inspect, []byte(key)).
			Scan(&owner, &holds, &token, &remaining, &lastToken, &sequenceWasCalled)
	})
	if err != nil {
		return driver.State{}, failed(err)
	}
	if holds == nil {
		if !sequenceWasCalled {
			lastToken = 0
		}
		return driver.State{Token: uint64(lastToken)}, nil
	}
	return driver.State{
		Held:      true,
		Owner:     string(owner),
		Holds:     *holds,
		Remaining: time.Duration(*remaining) * time.Microsecond,
		Token:     uint64(*token),
	}, nil
}
