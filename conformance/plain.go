package conformance

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/distlock/distlock/driver"
)

// plain passes on the Backend methods of the driver it wraps, its lease
// granularity and its clock, and none of its other capabilities: a Store
// over it finds no release notification, wait queue, inspection, force
// unlock, batched renewal or fencing. It names its methods one by one,
// since a wrapper that embedded the driver would pass them all.
type plain struct {
	d driver.Backend
	// closeErr, when set, is what Close returns once it has closed d, as
	// a driver whose Close fails would.
	closeErr error
	// closes counts the calls of Close.
	closes atomic.Int32
}

var (
	_ driver.Granular = (*plain)(nil)
	_ driver.Clocked  = (*plain)(nil)
)

func (p *plain) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	return p.d.TryLock(ctx, r)
}

func (p *plain) Unlock(ctx context.Context, key, owner string) error {
	return p.d.Unlock(ctx, key, owner)
}

func (p *plain) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	return p.d.Expire(ctx, key, owner, ttl)
}

func (p *plain) Close() error {
	p.closes.Add(1)
	if err := p.d.Close(); err != nil {
		return err
	}
	return p.closeErr
}

// Granularity passes the driver's on: a Store sizes its shortest lease
// from it.
func (p *plain) Granularity() time.Duration { return driver.Granularity(p.d) }

// Clock passes the driver's on: the Store times leases by it.
func (p *plain) Clock() driver.Clock {
	if c, ok := p.d.(driver.Clocked); ok {
		return c.Clock()
	}
	return nil
}
