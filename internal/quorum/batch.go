package quorum

import (
	"context"
	"errors"
	"time"

	"github.com/distlock/distlock/driver"
)

// ExpireBatch implements driver.BatchExpirer: each member gets the whole
// batch at once through driver.ExpireAll (one ExpireBatch call if it is a
// BatchExpirer, the kit's Expire calls otherwise), all members in
// parallel. Each renewal's result is as Expire's: nil when the needed
// members renewed it, ErrNotHeld when enough of them do not hold it that
// no quorum can, an unknown-state error otherwise, and ErrInvalid (not
// sent) for a bad renewal; after Close, ErrClosed for every one.
func (c *combinator) ExpireBatch(ctx context.Context, renewals []driver.Renewal) []error {
	out := make([]error, len(renewals))
	if err := c.guard.Enter(); err != nil {
		for i := range out {
			out[i] = c.labelled(err)
		}
		return out
	}
	defer c.guard.Exit()
	// batches[m] is member m's part of the batch, in the order of index
	// (batch position → renewals position).
	batches := make([][]driver.Renewal, len(c.template))
	targets := make([][]target, 0, len(renewals))
	var index []int
	var shortest time.Duration
	for i, r := range renewals {
		ts, key, err := c.enterKey(r.Key)
		if err == nil {
			err = driver.CheckLease(key, r.Owner, r.TTL)
		}
		if err != nil {
			out[i] = c.labelled(err)
			continue
		}
		ttl := c.roundUp(r.TTL)
		if shortest == 0 || ttl < shortest {
			shortest = ttl
		}
		for m, t := range ts {
			batches[m] = append(batches[m], driver.Renewal{Key: t.key, Owner: r.Owner, TTL: ttl})
		}
		targets = append(targets, ts)
		index = append(index, i)
	}
	if len(index) == 0 {
		return out
	}
	results, abandoned := fanout(ctx, c.template, c.s.forLease(shortest), func(ctx context.Context, m int) ([]error, error) {
		errs := driver.ExpireAll(ctx, c.template[m].b, batches[m])
		return errs, errs[0]
	}, nil)
	errs := make([]error, len(c.template))
	for j, i := range index {
		for m := range c.template {
			if errors.Is(abandoned[m], errAbandoned) {
				errs[m] = errAbandoned
			} else {
				errs[m] = results[m][j]
			}
		}
		out[i] = verdict(c.kind, "renew", c.needed, targets[j], errs)
	}
	return out
}
