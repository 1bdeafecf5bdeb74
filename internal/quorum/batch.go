package quorum

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/distlock/distlock/driver"
)

// maxConcurrentRenewals bounds the Expire calls in flight to one member
// that cannot renew in batches.
const maxConcurrentRenewals = 16

// ExpireBatch implements driver.BatchExpirer: each member gets the whole
// batch at once (one ExpireBatch call if it is a BatchExpirer, concurrent
// Expire calls otherwise), all members in parallel. Each renewal's result
// is as Expire's: nil when the needed members renewed it, ErrNotHeld when
// enough of them do not hold it that no quorum can, an unknown-state error
// otherwise, and ErrInvalid (not sent) for a bad renewal.
func (b *Backend) ExpireBatch(ctx context.Context, renewals []driver.Renewal) []error {
	out := make([]error, len(renewals))
	var batch []driver.Renewal
	var index []int // batch position → renewals position
	for i, r := range renewals {
		if err := b.check("renew", r.Key); err != nil {
			out[i] = err
			continue
		}
		if err := validLease(r.Owner, r.TTL); err != nil {
			out[i] = fmt.Errorf("%s renew %q: %w", b.kind.name, r.Key, err)
			continue
		}
		batch = append(batch, driver.Renewal{Key: r.Key, Owner: r.Owner, TTL: b.roundUp(r.TTL)})
		index = append(index, i)
	}
	if len(batch) == 0 {
		return out
	}
	shortest := batch[0].TTL
	for _, r := range batch {
		shortest = min(shortest, r.TTL)
	}
	results, abandoned := fanout(ctx, b.template, b.s.forLease(shortest), func(ctx context.Context, m int) ([]error, error) {
		errs := expireAll(ctx, b.members[m], batch)
		return errs, errs[0]
	}, nil)
	errs := make([]error, len(b.members))
	for j, r := range batch {
		for m := range b.members {
			if errors.Is(abandoned[m], errAbandoned) {
				errs[m] = errAbandoned
			} else {
				errs[m] = results[m][j]
			}
		}
		out[index[j]] = verdict(b.kind, "renew", r.Key, b.needed, b.targets(r.Key), errs)
	}
	return out
}

// expireAll renews the batch on one member and returns one result per
// renewal.
func expireAll(ctx context.Context, m driver.Backend, batch []driver.Renewal) []error {
	if be, ok := m.(driver.BatchExpirer); ok {
		errs := be.ExpireBatch(ctx, batch)
		if len(errs) == len(batch) {
			return errs
		}
		err := fmt.Errorf("member returned %d results for %d renewals", len(errs), len(batch))
		errs = make([]error, len(batch))
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	errs := make([]error, len(batch))
	limit := make(chan struct{}, maxConcurrentRenewals)
	var wg sync.WaitGroup
	for i, r := range batch {
		limit <- struct{}{}
		wg.Go(func() {
			defer func() { <-limit }()
			errs[i] = m.Expire(ctx, r.Key, r.Owner, r.TTL)
		})
	}
	wg.Wait()
	return errs
}
