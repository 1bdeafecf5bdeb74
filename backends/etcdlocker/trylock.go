package etcdlocker

import (
	"context"
	"errors"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/driver"
)

// errContended reports a key that kept changing under a guarded write.
var errContended = errors.New("the key kept changing under the write; nothing was changed")

// leaseUse is what an attempt did with its lease.
type leaseUse int

const (
	// leaseUnused: the attempt certainly bound no key to the lease.
	leaseUnused leaseUse = iota
	// leaseBound: the key is bound to the lease.
	leaseBound
	// leaseUnknown: a call's outcome is unknown, so the key may be bound to
	// the lease.
	leaseUnknown
)

// TryLock implements driver.Backend; it ignores r.Patience and r.Floor
// (etcd's revisions are the tokens). The key is bound to one of the
// backend's shared leases of ttl (rounded up to whole seconds): one granted
// less than a tenth of its length ago (at most a second), ahead in the
// background when the backend locks often, else by this call. One
// transaction creates the key bound to it if the key is absent; if owner
// already holds the key, a second transaction guarded by the key's revision
// raises the hold count and moves the key to the new lease, which resets
// the lease. When another owner holds the key nothing is written and the
// Grant carries the holder's remaining lease.
//
// A shared lease counts from its grant, a little before the attempt: when
// what is left of it is shorter than ttl, Grant.Validity says how long
// after the start of the attempt the lock is held.
func (b *Backend) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	if err := driver.CheckRequest(r); err != nil {
		return driver.Grant{}, err
	}
	if err := checkMaxLease(r.TTL); err != nil {
		return driver.Grant{}, err
	}
	ctx, call, err := b.call(ctx)
	if err != nil {
		return driver.Grant{}, err
	}
	defer call.End()
	g, err := b.tryLock(ctx, r.Key, r.Owner, r.TTL)
	if err != nil {
		return driver.Grant{}, failed(err)
	}
	return g, nil
}

func (b *Backend) tryLock(ctx context.Context, key, owner string, ttl time.Duration) (driver.Grant, error) {
	start := b.clock()
	lease, err := b.takeLease(ctx, b.leaseSeconds(ttl), start)
	if err != nil {
		// No key was touched; at worst an unused lease runs out.
		return driver.Grant{}, err
	}
	g, use, err := b.acquire(ctx, key, owner, lease)
	b.leaseDone(ctx, lease, use)
	if err != nil {
		return driver.Grant{}, err
	}
	if use == leaseBound {
		g.Validity = lease.validity(start, ttl)
	}
	return g, nil
}

// takeLease returns a shared lease of asked seconds for an attempt that
// starts at start, granting one when the pool has none; the attempt ends
// its use with leaseDone.
func (b *Backend) takeLease(ctx context.Context, asked int64, start time.Time) (*sharedLease, error) {
	lease, revoke, wake := b.pool.take(asked, start)
	b.revokeLater(ctx, revoke...)
	if lease == nil {
		gl, err := b.grant(ctx, asked)
		if err != nil {
			return nil, err
		}
		lease, revoke = b.pool.adopt(asked, gl)
		b.revokeLater(ctx, revoke...)
		wake = true // the stocker watches the new lease's window
	}
	if wake {
		b.poke()
	}
	return lease, nil
}

// leaseDone ends an attempt's use of lease, which did use with it. An
// unknown outcome leaves the lease alone for good: a key may be bound to
// it, and the lease runs out.
func (b *Backend) leaseDone(ctx context.Context, lease *sharedLease, use leaseUse) {
	b.revokeLater(ctx, b.pool.done(lease, use)...)
}

// acquire binds key to the shared lease for owner, and reports what it did
// with the lease.
func (b *Backend) acquire(ctx context.Context, key, owner string, lease *sharedLease) (driver.Grant, leaseUse, error) {
	k := b.etcdKey(key)
	var kv *mvccpb.KeyValue // the key as last read; nil while absent
	for round := 0; ; round++ {
		if round > casRounds {
			return driver.Grant{}, leaseUnused, errContended
		}
		if kv == nil {
			// Create the key if absent.
			v := lockValue{owner: owner, holds: 1, ttl: lease.ttl, shared: true}
			val := v.encode()
			resp, err := b.cli.Txn(ctx).
				If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
				Then(clientv3.OpPut(k, val, clientv3.WithLease(lease.id))).
				Else(clientv3.OpGet(k)).
				Commit()
			if err != nil {
				return driver.Grant{}, leaseUnknown, err
			}
			if resp.Succeeded {
				// The transaction's revision is the one it created the key at.
				rev := resp.Header.Revision
				b.hints.remember(k, owner, written(k, val, lease.id, rev, rev, 1))
				return driver.Grant{Acquired: true, Holds: 1, Token: uint64(rev)}, leaseBound, nil
			}
			kv = lastKV(resp)
			continue
		}
		old, err := decodeValue(kv.Value)
		if err != nil {
			return driver.Grant{}, leaseUnused, err
		}
		if old.owner != owner {
			return b.refused(ctx, kv), leaseUnused, nil
		}
		// Re-entry: one more hold, and the key moves to the new lease, which
		// resets the lease to ttl. The revision guard makes sure the hold
		// count is the one read.
		v := old
		v.holds++
		v.ttl = lease.ttl
		v.shared = true
		val := v.encode()
		resp, err := b.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(k), "=", kv.ModRevision)).
			Then(clientv3.OpPut(k, val, clientv3.WithLease(lease.id))).
			Else(clientv3.OpGet(k)).
			Commit()
		if err != nil {
			return driver.Grant{}, leaseUnknown, err
		}
		if resp.Succeeded {
			// The key left its old lease (when that is this very lease, the
			// bind the caller counts is no new one).
			b.unbound(ctx, old, clientv3.LeaseID(kv.Lease))
			b.hints.remember(k, owner, written(k, val, lease.id, kv.CreateRevision, resp.Header.Revision, kv.Version+1))
			return driver.Grant{Acquired: true, Holds: v.holds, Token: uint64(kv.CreateRevision)}, leaseBound, nil
		}
		kv = lastKV(resp)
	}
}

// written is the key k as a transaction at revision rev left it, having
// put val bound to lease: a transaction's writes all carry its revision,
// which its response's header reports.
func written(k, val string, lease clientv3.LeaseID, created, rev, version int64) *mvccpb.KeyValue {
	return &mvccpb.KeyValue{
		Key:            []byte(k),
		Value:          []byte(val),
		CreateRevision: created,
		ModRevision:    rev,
		Version:        version,
		Lease:          int64(lease),
	}
}

// refused is the Grant for a key another owner holds, with the holder's
// remaining lease when the server tells it.
func (b *Backend) refused(ctx context.Context, kv *mvccpb.KeyValue) driver.Grant {
	g := driver.Grant{}
	if kv.Lease == 0 {
		return g
	}
	ttl, err := b.cli.TimeToLive(ctx, clientv3.LeaseID(kv.Lease))
	if err == nil {
		g.Remaining = remaining(ttl.TTL, ttl.GrantedTTL)
	}
	return g
}

// lastKV returns the key read by the last operation of a transaction's
// branch (every branch that reads ends with its read), or nil when the key
// is absent.
func lastKV(resp *clientv3.TxnResponse) *mvccpb.KeyValue {
	return firstKV(lastRange(resp))
}

// lastRange returns the keys read by the last operation of a transaction's
// branch, none when it read none.
func lastRange(resp *clientv3.TxnResponse) []*mvccpb.KeyValue {
	if len(resp.Responses) == 0 {
		return nil
	}
	if r := resp.Responses[len(resp.Responses)-1].GetResponseRange(); r != nil {
		return r.Kvs
	}
	return nil
}
