package etcdlocker

import (
	"cmp"
	"context"
	"strconv"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/driver"
)

// Fence implements driver.Fencer: it raises the lock's token counter to at
// least token, and the token of owner's hold with it when the hold is a
// write or semaphore hold, in one transaction guarded by the revisions of
// the hold's key and the token key as read. It fails with ErrNotHeld,
// changing nothing, when owner holds no hold in the view's mode.
func (v *view) Fence(ctx context.Context, key, owner string, token uint64) error {
	if err := driver.CheckOwner(key, owner); err != nil {
		return err
	}
	ctx, call, err := v.b.call(ctx)
	if err != nil {
		return err
	}
	defer call.End()
	return failed(v.fence(ctx, v.keys(key), owner, token))
}

func (v *view) fence(ctx context.Context, k lockKeys, owner string, token uint64) error {
	hk, tk := k.hold(v.letter, owner), k.token()
	read := []clientv3.Op{clientv3.OpGet(hk), clientv3.OpGet(tk)}
	resp, err := v.b.cli.Txn(ctx).Then(read...).Commit()
	for round := 0; ; round++ {
		if err != nil {
			return err
		}
		// The reads, of the first transaction or of a guarded one's Else.
		hkv := firstKV(resp.Responses[0].GetResponseRange().GetKvs())
		tkv := firstKV(resp.Responses[1].GetResponseRange().GetKvs())
		hv, herr := v.b.ownedBy(hkv, owner)
		c, cerr := readCounter(tkv)
		if herr != nil || cerr != nil {
			return cmp.Or(herr, cerr)
		}
		var ops []clientv3.Op
		var val string
		raise := v.share.Mode != driver.Read && hv.token < token
		if raise {
			hv.token = token
			val = hv.encode()
			ops = append(ops, clientv3.OpPut(hk, val, clientv3.WithIgnoreLease()))
		}
		if c.n < token {
			ops = append(ops, clientv3.OpPut(tk, strconv.FormatUint(token, 10)))
		}
		if len(ops) == 0 {
			return nil
		}
		if round == sharedRounds {
			return errContended
		}
		resp, err = v.b.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(hk), "=", hkv.ModRevision), c.unchanged(tk)).
			Then(ops...).
			Else(read...).
			Commit()
		if err == nil && resp.Succeeded {
			if raise {
				v.b.hints.remember(hk, owner, written(hk, val, clientv3.LeaseID(hkv.Lease), hkv.CreateRevision, resp.Header.Revision, hkv.Version+1))
			}
			v.b.hints.forget(tk, "") // the next acquisition reads the counter
			return nil
		}
	}
}
