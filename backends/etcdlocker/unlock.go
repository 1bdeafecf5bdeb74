package etcdlocker

import (
	"context"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/driver"
)

// Unlock implements driver.Backend. In one transaction guarded by the key's
// revision, it lowers the hold count or, at the last hold, deletes the key;
// the deleted key's lease is then revoked in the background if no other key
// can be bound to it. The revision
// is the one of the backend's own last write of the key for owner when it
// has it, else a read's; when the key changed since, the transaction reads
// it instead and Unlock decides again.
func (b *Backend) Unlock(ctx context.Context, key, owner string) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	return b.unlockMutex(ctx, key, owner, 0)
}

// UnlockHold implements driver.HoldUnlocker: Unlock of owner's hold whose
// fencing token (the key's create revision) is token. (A release that
// reaches etcd late cannot drop a later hold anyway: its transaction
// compares the key's revision as it was.)
func (b *Backend) UnlockHold(ctx context.Context, key, owner string, token uint64) error {
	if err := driver.CheckToken(key, owner, token); err != nil {
		return err
	}
	return b.unlockMutex(ctx, key, owner, token)
}

// unlockMutex is one call that drops owner's hold on the mutex key whose
// token is token (0: any).
func (b *Backend) unlockMutex(ctx context.Context, key, owner string, token uint64) error {
	ctx, call, err := b.call(ctx)
	if err != nil {
		return err
	}
	defer call.End()
	return failed(b.unlock(ctx, b.etcdKey(key), owner, token))
}

// unlock drops one of owner's holds on the etcd key k: a mutex's key, or a
// shared lock's hold key, whose values are alike; a token other than 0
// names the hold by the key's create revision.
func (b *Backend) unlock(ctx context.Context, k, owner string, token uint64) error {
	kv := b.hints.recall(k, owner)
	hinted := kv != nil
	if kv == nil {
		resp, err := b.cli.Get(ctx, k)
		if err != nil {
			return err
		}
		kv = firstKV(resp.Kvs)
	}
	for round := 0; ; round++ {
		if kv == nil {
			b.hints.forget(k, owner)
			return driver.ErrNotHeld
		}
		v, err := decodeValue(kv.Value)
		if err != nil {
			return err
		}
		if v.owner != owner {
			b.hints.forget(k, owner)
			return driver.ErrNotHeld
		}
		if token != 0 && uint64(kv.CreateRevision) != token {
			if !hinted {
				return driver.ErrNotHeld // another hold of the owner
			}
			// The hint may be older than the key: read the key.
			resp, err := b.cli.Get(ctx, k)
			if err != nil {
				return err
			}
			kv, hinted = firstKV(resp.Kvs), false
			continue
		}
		if round == casRounds {
			return errContended
		}
		var op clientv3.Op
		var val string
		last := v.holds == 1
		if last {
			op = clientv3.OpDelete(k)
		} else {
			v.holds--
			val = v.encode()
			op = clientv3.OpPut(k, val, clientv3.WithIgnoreLease())
		}
		tresp, err := b.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(k), "=", kv.ModRevision)).
			Then(op).
			Else(clientv3.OpGet(k)).
			Commit()
		if err != nil {
			return err
		}
		if tresp.Succeeded {
			if last {
				b.hints.forget(k, owner)
				b.unbound(ctx, v, clientv3.LeaseID(kv.Lease))
			} else {
				b.hints.remember(k, owner, written(k, val, clientv3.LeaseID(kv.Lease), kv.CreateRevision, tresp.Header.Revision, kv.Version+1))
			}
			return nil
		}
		kv, hinted = lastKV(tresp), false
	}
}
