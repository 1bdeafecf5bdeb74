package redislocker

import (
	"context"

	"github.com/distlock/distlock/driver"
)

// batchChunk is the most renewals one batch-expire script call carries, so
// that no single call holds the server for long.
const batchChunk = 256

// batchCall is one batch-expire script call: renewals of one Cluster slot.
type batchCall struct {
	index []int // positions in the caller's renewals
	keys  []any
	args  []any
	cmd   onceCmd
}

// ExpireBatch implements driver.BatchExpirer. Renewals are grouped by
// Cluster slot (all together on a standalone server) into batch-expire
// script calls of up to 256 locks, and all calls go out in one pipeline: a
// round trip per server, whatever the number of locks. Each renewal gets
// nil, an error wrapping driver.ErrNotHeld, ErrInvalid for bad input, or an
// unknown-state error when its call failed.
func (b *Backend) ExpireBatch(ctx context.Context, renewals []driver.Renewal) []error {
	return b.expireBatch(ctx, renewals, batchKind{
		script: expireBatchScript,
		head:   []any{millis(b.cfg.fenceLinger)},
		keys: func(key string) ([]any, int) {
			k := b.keys(key)
			return k.held, k.slot
		},
	})
}

// batchKind is how one kind of lock is renewed in batches: the script, its
// first arguments, and the KEYS and Cluster slot of a lock. The script
// takes each renewal's owner and lease in milliseconds after the first
// arguments, and returns 1 or 0 per lock.
type batchKind struct {
	script *script
	head   []any
	keys   func(key string) (names []any, slot int)
}

// expireBatch is ExpireBatch with the scripts of kind.
func (b *Backend) expireBatch(ctx context.Context, renewals []driver.Renewal, kind batchKind) []error {
	errs := make([]error, len(renewals))
	if len(renewals) == 0 {
		return errs
	}
	if err := b.guard.Enter(); err != nil {
		for i := range errs {
			errs[i] = err
		}
		return errs
	}
	defer b.guard.Exit()
	bySlot := make(map[int]*batchCall)
	var calls []*batchCall
	for i, r := range renewals {
		if err := driver.CheckLease(r.Key, r.Owner, r.TTL); err != nil {
			errs[i] = err
			continue
		}
		names, slot := kind.keys(r.Key)
		if b.cluster == nil {
			slot = 0
		}
		c := bySlot[slot]
		if c == nil || len(c.index) == batchChunk {
			c = &batchCall{args: append([]any(nil), kind.head...)}
			bySlot[slot] = c
			calls = append(calls, c)
		}
		c.index = append(c.index, i)
		c.keys = append(c.keys, names...)
		c.args = append(c.args, r.Owner, millis(r.TTL))
	}
	b.runBatch(ctx, kind.script, calls, true)
	var again []*batchCall
	for _, c := range calls {
		if isNoScript(c.cmd.Err()) {
			again = append(again, c)
		}
	}
	if len(again) > 0 {
		b.runBatch(ctx, kind.script, again, false)
	}
	for _, c := range calls {
		b.settleBatch(c, errs)
	}
	return errs
}

// runBatch sends calls of s in one pipeline (go-redis splits a Cluster
// pipeline by node).
func (b *Backend) runBatch(ctx context.Context, s *script, calls []*batchCall, byHash bool) {
	if len(calls) == 0 {
		return
	}
	pipe := b.client.Pipeline()
	for _, c := range calls {
		c.cmd = s.command(ctx, byHash, c.keys, c.args...)
		_ = pipe.Process(ctx, c.cmd)
	}
	_, _ = pipe.Exec(ctx) // per-command errors are read below
}

// settleBatch turns one call's reply into the errors of its renewals.
func (b *Backend) settleBatch(c *batchCall, errs []error) {
	fail := func(err error) {
		err = b.failed(err)
		for _, i := range c.index {
			errs[i] = err
		}
	}
	if err := c.cmd.Err(); err != nil {
		fail(err)
		return
	}
	r, err := replyArray(c.cmd.Val(), len(c.index))
	if err != nil {
		fail(err)
		return
	}
	for j, i := range c.index {
		ok, err := replyInt(r[j])
		switch {
		case err != nil:
			errs[i] = b.failed(err)
		case ok != 1:
			errs[i] = driver.ErrNotHeld
		}
	}
}
