package etcdlocker

import (
	"context"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/driver"
)

// Inspect implements driver.Inspector. The remaining lease is rounded up to
// a whole second. A free key's Token is the cluster's current revision,
// which is at least the last holder's token and below every later one.
func (b *Backend) Inspect(ctx context.Context, key string) (driver.State, error) {
	if err := driver.CheckKey(key); err != nil {
		return driver.State{}, err
	}
	ctx, call, err := b.call(ctx)
	if err != nil {
		return driver.State{}, err
	}
	defer call.End()
	st, err := b.inspect(ctx, key)
	if err != nil {
		return driver.State{}, failed(err)
	}
	return st, nil
}

func (b *Backend) inspect(ctx context.Context, key string) (driver.State, error) {
	resp, err := b.cli.Get(ctx, b.etcdKey(key))
	if err != nil {
		return driver.State{}, err
	}
	free := driver.State{Token: uint64(resp.Header.Revision)}
	kv := firstKV(resp.Kvs)
	if kv == nil {
		return free, nil
	}
	v, err := decodeValue(kv.Value)
	if err != nil {
		return driver.State{}, err
	}
	st := driver.State{Held: true, Owner: v.owner, Holds: v.holds, Token: uint64(kv.CreateRevision)}
	if kv.Lease != 0 {
		ttl, err := b.cli.TimeToLive(ctx, clientv3.LeaseID(kv.Lease))
		if err != nil {
			return driver.State{}, err
		}
		if ttl.TTL < 0 {
			// The lease ended after the read, and took the key with it.
			return free, nil
		}
		st.Remaining = remaining(ttl.TTL, ttl.GrantedTTL)
	}
	return st, nil
}

// ForceUnlock implements driver.ForceUnlocker: it deletes the key whoever
// holds it, lets go of its lease as Unlock does, and reports whether it was
// held.
func (b *Backend) ForceUnlock(ctx context.Context, key string) (bool, error) {
	if err := driver.CheckKey(key); err != nil {
		return false, err
	}
	ctx, call, err := b.call(ctx)
	if err != nil {
		return false, err
	}
	defer call.End()
	k := b.etcdKey(key)
	resp, err := b.cli.Delete(ctx, k, clientv3.WithPrevKV())
	if err != nil {
		return false, failed(err)
	}
	b.hints.forget(k, "")
	kv := firstKV(resp.PrevKvs)
	if kv == nil {
		return false, nil
	}
	b.unboundKV(ctx, kv)
	// A key that holds something else may share its lease: leave it.
	return true, nil
}

// firstKV returns the first of kvs, or nil.
func firstKV(kvs []*mvccpb.KeyValue) *mvccpb.KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	return kvs[0]
}
