package quorum

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// Backend is a combinator as a driver.Backend: key k on it is key k on every
// member. It has every optional capability (see Supports).
type Backend struct {
	engine
	members  []driver.Backend
	template []target // the members' targets, key unset

	closed    atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

var (
	_ driver.Backend       = (*Backend)(nil)
	_ driver.Notifier      = (*Backend)(nil)
	_ driver.Inspector     = (*Backend)(nil)
	_ driver.ForceUnlocker = (*Backend)(nil)
	_ driver.BatchExpirer  = (*Backend)(nil)
	_ driver.Fencer        = (*Backend)(nil)
	_ driver.Granular      = (*Backend)(nil)
)

// New returns the combinator of kind over members with settings s. It fails
// with ErrInvalid when there are no members, a member is nil, or two
// members are the same store (the same backend value, equal endpoints, or a
// member shared by two nested combinators).
func New(kind Kind, members []driver.Backend, s Settings) (*Backend, error) {
	if len(members) == 0 {
		return nil, fmt.Errorf("%s: %w: no members", kind.name, driver.ErrInvalid)
	}
	ts := make([]target, len(members))
	for i, m := range members {
		if isNil(m) {
			return nil, fmt.Errorf("%s: %w: member %d is nil", kind.name, driver.ErrInvalid, i+1)
		}
		ts[i] = target{b: m, label: fmt.Sprintf("member %d (%s)", i+1, describe(m)), fencer: has(m, capFence), rtt: new(rtt)}
	}
	if err := checkIndependent(ts); err != nil {
		return nil, fmt.Errorf("%s: %w", kind.name, err)
	}
	return &Backend{engine: newEngine(kind, s, ts), members: members, template: ts}, nil
}

// Build is New with kind's default settings changed by opts.
func Build[O ~func(*Settings) error](kind Kind, members []driver.Backend, opts []O) (*Backend, error) {
	s, err := Apply(kind, opts)
	if err != nil {
		return nil, err
	}
	return New(kind, members, s)
}

func (b *Backend) quorumBackend() *Backend { return b }

// targets returns the members' targets for key.
func (b *Backend) targets(key string) []target {
	ts := slices.Clone(b.template)
	for i := range ts {
		ts[i].key = key
	}
	return ts
}

// check fails on a closed combinator or an empty key.
func (b *Backend) check(op, key string) error {
	if b.closed.Load() {
		return fmt.Errorf("%s %s %q: %w", b.kind.name, op, key, driver.ErrClosed)
	}
	if key == "" {
		return fmt.Errorf("%s %s: %w: empty key", b.kind.name, op, driver.ErrInvalid)
	}
	return nil
}

// Members returns the member backends, in order.
func (b *Backend) Members() []driver.Backend { return slices.Clone(b.members) }

// Needed returns how many members must hold a lock for the combinator to
// hold it.
func (b *Backend) Needed() int { return b.needed }

// String describes the combinator and its members.
func (b *Backend) String() string {
	names := make([]string, len(b.template))
	for i, t := range b.template {
		names[i] = describe(t.b)
	}
	return fmt.Sprintf("%s(%s)", b.kind.name, strings.Join(names, ", "))
}

// Granularity implements driver.Granular: the coarsest member's. Leases are
// rounded up to it before they go to the members, so every member holds
// the same lease.
func (b *Backend) Granularity() time.Duration { return b.gran }

// TryLock implements driver.Backend: one attempt on every member at once.
// The deadline of ctx, if any, is the caller's remaining wait budget. It
// returns a grant with Acquired false when the attempt failed and the
// owner is known not to hold the lock, and an error that is none of the
// sentinels when enough members may hold it that the outcome is unknown.
func (b *Backend) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	key, owner, ttl := r.Key, r.Owner, r.TTL
	if err := b.check("trylock", key); err != nil {
		return driver.Grant{}, err
	}
	return b.tryLock(ctx, key, b.targets(key), owner, ttl)
}

// Unlock implements driver.Backend: it drops one hold on every member that
// has one for owner. It returns nil when the needed members dropped one, an
// error wrapping ErrNotHeld when so many members did not hold it that the
// owner did not hold the lock (members that did are released all the
// same), and an unknown-state error otherwise. Repeated Unlocks thus drain
// every member, also one with more holds than the others (TryLock's
// Grant.Holds shows the largest hold count): each drops a hold wherever one
// is left, and reports ErrNotHeld once fewer than the needed members still
// had one, though a member may have dropped one in that very call.
func (b *Backend) Unlock(ctx context.Context, key, owner string) error {
	if err := b.check("unlock", key); err != nil {
		return err
	}
	return b.unlock(ctx, key, b.targets(key), owner)
}

// Expire implements driver.Backend: it renews the lease on every member,
// and succeeds when the needed members renewed it. It returns an error
// wrapping ErrNotHeld when enough members no longer hold it that no quorum
// can, and an unknown-state error otherwise.
func (b *Backend) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	if err := b.check("renew", key); err != nil {
		return err
	}
	return b.expire(ctx, key, b.targets(key), owner, ttl)
}

// Close implements driver.Backend: it stops the releases that failed
// attempts left running in the background (the members' leases end them
// anyway), closes every member, once, and returns their errors joined. The
// combinator owns its members.
func (b *Backend) Close() error {
	b.closeOnce.Do(func() {
		b.closed.Store(true)
		b.bg.close() // the members are about to be closed: their releases would fail
		errs := make([]error, len(b.members))
		for i, m := range b.members {
			if err := m.Close(); err != nil {
				errs[i] = fmt.Errorf("%s: %w", b.template[i].label, err)
			}
		}
		b.closeErr = errors.Join(errs...)
	})
	return b.closeErr
}

// Supports reports whether the combinator's optional capability c works:
// for release notification, whether at least one member notifies (see
// Watch); for the others, whether every member offers it. The methods
// exist either way; without the capability they fail with an error
// wrapping errors.ErrUnsupported.
func (b *Backend) Supports(c locker.Capability) bool {
	switch c {
	case locker.CapWatch:
		return b.has(capWatch)
	case locker.CapInspect:
		return b.has(capInspect)
	case locker.CapForceUnlock:
		return b.has(capForceUnlock)
	}
	return false
}

// has reports whether the combinator offers c: fencing needs one fencing
// member and notification one notifying member, the rest need every
// member.
func (b *Backend) has(c capability) bool {
	switch c {
	case capFence:
		return b.fencers > 0
	case capWatch:
		for _, t := range b.template {
			if has(t.b, capWatch) {
				return true
			}
		}
		return false
	}
	return unsupported(b.template, c) == nil
}
