package etcdlocker

import (
	"context"
	"errors"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/locker"
)

// errContended reports a key that kept changing under a guarded write.
var errContended = errors.New("the key kept changing under the write; nothing was changed")

// TryLock implements locker.Backend. It grants a lease of ttl (rounded up to
// whole seconds) and, in one transaction, binds the key to it if the key is
// absent; if owner already holds the key, a second transaction guarded by
// the key's revision raises the hold count and moves the key to the new
// lease. When another owner holds the key the new lease is revoked and the
// Grant carries the holder's remaining lease.
func (b *Backend) TryLock(ctx context.Context, key, owner string, ttl time.Duration) (locker.Grant, error) {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	if err := validate(key, owner, ttl, true); err != nil {
		return locker.Grant{}, err
	}
	if err := b.checkOpen(); err != nil {
		return locker.Grant{}, err
	}
	asked := b.leaseSeconds(ttl)
	lease, err := b.cli.Grant(ctx, asked)
	if err != nil {
		// No key was touched; at worst an unused lease runs out.
		return locker.Grant{}, keyError("trylock", key, err)
	}
	b.noteGranted(asked, lease.TTL)
	g, used, err := b.acquire(ctx, key, owner, lease.ID, lease.TTL)
	if err != nil {
		// The lease may be bound to the key now: leave it to run out.
		return locker.Grant{}, keyError("trylock", key, err)
	}
	if !used {
		// Nobody else knows this lease; revoking it is only tidiness.
		_, _ = b.cli.Revoke(ctx, lease.ID)
	}
	return g, nil
}

// acquire binds key to lease for owner. It reports whether the lease was
// bound to the key.
func (b *Backend) acquire(ctx context.Context, key, owner string, lease clientv3.LeaseID, ttl int64) (locker.Grant, bool, error) {
	k := b.etcdKey(key)
	// First round: create the key if absent.
	resp, err := b.cli.Txn(ctx).
		If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
		Then(clientv3.OpPut(k, lockValue{owner: owner, holds: 1, ttl: ttl}.encode(), clientv3.WithLease(lease)), clientv3.OpGet(k)).
		Else(clientv3.OpGet(k)).
		Commit()
	if err != nil {
		return locker.Grant{}, false, err
	}
	for round := 0; ; round++ {
		if resp.Succeeded {
			kv := lastKV(resp)
			if kv == nil {
				return locker.Grant{}, true, errors.New("the transaction's read found no key")
			}
			v, err := decodeValue(kv.Value)
			if err != nil {
				return locker.Grant{}, true, err
			}
			return locker.Grant{Acquired: true, Holds: v.holds, Token: uint64(kv.CreateRevision)}, true, nil
		}
		if round == casRounds {
			return locker.Grant{}, false, errContended
		}
		kv := lastKV(resp)
		if kv == nil {
			// Released since the first round: create it.
			resp, err = b.cli.Txn(ctx).
				If(clientv3.Compare(clientv3.CreateRevision(k), "=", 0)).
				Then(clientv3.OpPut(k, lockValue{owner: owner, holds: 1, ttl: ttl}.encode(), clientv3.WithLease(lease)), clientv3.OpGet(k)).
				Else(clientv3.OpGet(k)).
				Commit()
			if err != nil {
				return locker.Grant{}, false, err
			}
			continue
		}
		v, err := decodeValue(kv.Value)
		if err != nil {
			return locker.Grant{}, false, err
		}
		if v.owner != owner {
			return b.refused(ctx, kv), false, nil
		}
		// Re-entry: one more hold, and the key moves to the new lease, which
		// resets the lease to ttl. The revision guard makes sure the hold
		// count is the one read.
		old := clientv3.LeaseID(kv.Lease)
		v.holds++
		v.ttl = ttl
		resp, err = b.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(k), "=", kv.ModRevision)).
			Then(clientv3.OpPut(k, v.encode(), clientv3.WithLease(lease)), clientv3.OpGet(k)).
			Else(clientv3.OpGet(k)).
			Commit()
		if err != nil {
			return locker.Grant{}, false, err
		}
		if resp.Succeeded && old != clientv3.NoLease {
			// The old lease has no key any more.
			_, _ = b.cli.Revoke(ctx, old)
		}
	}
}

// refused is the Grant for a key another owner holds, with the holder's
// remaining lease when the server tells it.
func (b *Backend) refused(ctx context.Context, kv *mvccpb.KeyValue) locker.Grant {
	g := locker.Grant{}
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
// branch (every branch here ends with a read), or nil when the key is
// absent.
func lastKV(resp *clientv3.TxnResponse) *mvccpb.KeyValue {
	if len(resp.Responses) == 0 {
		return nil
	}
	r := resp.Responses[len(resp.Responses)-1].GetResponseRange()
	if r == nil || len(r.Kvs) == 0 {
		return nil
	}
	return r.Kvs[0]
}
