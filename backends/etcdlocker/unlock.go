package etcdlocker

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/locker"
)

// Unlock implements locker.Backend. It reads the key and, in a transaction
// guarded by the revision it read, lowers the hold count or, at the last
// hold, deletes the key; then it revokes the deleted key's lease.
func (b *Backend) Unlock(ctx context.Context, key, owner string) error {
	ctx, cancel := b.bound(ctx)
	defer cancel()
	if err := validate(key, owner, 0, false); err != nil {
		return err
	}
	if err := b.checkOpen(); err != nil {
		return err
	}
	k := b.etcdKey(key)
	resp, err := b.cli.Get(ctx, k)
	if err != nil {
		return keyError("unlock", key, err)
	}
	kv := firstKV(resp.Kvs)
	for round := 0; ; round++ {
		if kv == nil {
			return keyError("unlock", key, locker.ErrNotHeld)
		}
		v, err := decodeValue(kv.Value)
		if err != nil {
			return keyError("unlock", key, err)
		}
		if v.owner != owner {
			return keyError("unlock", key, locker.ErrNotHeld)
		}
		if round == casRounds {
			return keyError("unlock", key, errContended)
		}
		var op clientv3.Op
		last := v.holds == 1
		if last {
			op = clientv3.OpDelete(k)
		} else {
			v.holds--
			op = clientv3.OpPut(k, v.encode(), clientv3.WithIgnoreLease())
		}
		tresp, err := b.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(k), "=", kv.ModRevision)).
			Then(op).
			Else(clientv3.OpGet(k)).
			Commit()
		if err != nil {
			return keyError("unlock", key, err)
		}
		if tresp.Succeeded {
			if last && kv.Lease != 0 {
				// The lease has no key any more; it would run out anyway.
				_, _ = b.cli.Revoke(ctx, clientv3.LeaseID(kv.Lease))
			}
			return nil
		}
		kv = lastKV(tresp)
	}
}
