package etcdlocker

import (
	"context"
	"fmt"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/driver"
)

// maxTxnReads is how many keys one read transaction fetches; etcd's default
// limit on operations per transaction is 128.
const maxTxnReads = 128

// Expire implements driver.Backend. When the key is on a lease of its own
// of the length asked for, it renews that lease and then checks that the
// key is still the owner's and bound to it (a renewed lease whose key is
// gone extends nothing, and is reported as ErrNotHeld). Otherwise (a lease
// of another length, or a shared lease, which nobody renews since other
// keys are bound to it) it grants the key a lease of its own and moves the
// key to it in a transaction guarded by the key's revision; a lease of the
// key's own that it left is revoked.
func (b *Backend) Expire(ctx context.Context, key, owner string, ttl time.Duration) error {
	if err := checkLease(key, owner, ttl); err != nil {
		return err
	}
	ctx, call, err := b.call(ctx)
	if err != nil {
		return err
	}
	defer call.End()
	errs := []error{nil}
	b.renew(ctx, []driver.Renewal{{Key: key, Owner: owner, TTL: ttl}}, []string{b.etcdKey(key)}, []int{0}, errs)
	return errs[0]
}

// ExpireBatch implements driver.BatchExpirer, as Expire does for each
// renewal but in a fixed number of round trips: one transaction reads
// every key, one keep-alive stream renews the leases, and one more
// transaction checks that the keys are still bound to them.
func (b *Backend) ExpireBatch(ctx context.Context, renewals []driver.Renewal) []error {
	return b.expireBatch(ctx, renewals, b.mutexKey)
}

// mutexKey is the etcd key of the mutex r renews.
func (b *Backend) mutexKey(r driver.Renewal) string { return b.etcdKey(r.Key) }

// expireBatch is ExpireBatch for the locks whose etcd keys keyOf names.
func (b *Backend) expireBatch(ctx context.Context, renewals []driver.Renewal, keyOf func(driver.Renewal) string) []error {
	errs := make([]error, len(renewals))
	keys := make([]string, len(renewals))
	var todo []int
	for i, r := range renewals {
		if errs[i] = checkLease(r.Key, r.Owner, r.TTL); errs[i] == nil {
			keys[i] = keyOf(r)
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return errs
	}
	ctx, call, err := b.call(ctx)
	if err != nil {
		for _, i := range todo {
			errs[i] = err
		}
		return errs
	}
	defer call.End()
	b.renew(ctx, renewals, keys, todo, errs)
	return errs
}

// renew performs the renewals[todo], whose etcd keys are keys[todo], and
// sets their errors in errs.
func (b *Backend) renew(ctx context.Context, renewals []driver.Renewal, keys []string, todo []int, errs []error) {
	kvs, err := b.readKeys(ctx, keys, todo)
	if err != nil {
		for _, i := range todo {
			errs[i] = failed(err)
		}
		return
	}
	leases := make(map[int]clientv3.LeaseID)
	var kept, moves []int
	for j, i := range todo {
		r, kv := renewals[i], kvs[j]
		v, err := b.ownedBy(kv, r.Owner)
		if err != nil {
			errs[i] = failed(err)
			continue
		}
		if kv.Lease != 0 && !v.shared && v.ttl == b.leaseSeconds(r.TTL) {
			leases[i] = clientv3.LeaseID(kv.Lease)
			kept = append(kept, i)
		} else {
			moves = append(moves, i)
		}
	}

	b.keepAlive(ctx, kept, leases, errs)
	var renewed []int
	for _, i := range kept {
		if errs[i] == nil {
			renewed = append(renewed, i)
		}
	}
	if len(renewed) > 0 {
		kvs, err := b.readKeys(ctx, keys, renewed)
		for j, i := range renewed {
			switch {
			case err != nil:
				errs[i] = failed(err)
			case kvs[j] == nil || kvs[j].Lease != int64(leases[i]):
				errs[i] = driver.ErrNotHeld
			}
		}
	}

	for _, i := range moves {
		errs[i] = failed(b.move(ctx, keys[i], renewals[i]))
	}
}

// ownedBy decodes kv and checks that owner holds it; it returns ErrNotHeld
// when kv is nil or another owner's.
func (b *Backend) ownedBy(kv *mvccpb.KeyValue, owner string) (lockValue, error) {
	if kv == nil {
		return lockValue{}, driver.ErrNotHeld
	}
	v, err := decodeValue(kv.Value)
	if err != nil {
		return lockValue{}, err
	}
	if v.owner != owner {
		return lockValue{}, driver.ErrNotHeld
	}
	return v, nil
}

// readKeys reads the etcd keys keys[idx] in as few transactions as etcd's
// limit allows; kvs[j] is nil for an absent key.
func (b *Backend) readKeys(ctx context.Context, keys []string, idx []int) ([]*mvccpb.KeyValue, error) {
	kvs := make([]*mvccpb.KeyValue, len(idx))
	for start := 0; start < len(idx); start += maxTxnReads {
		end := min(start+maxTxnReads, len(idx))
		ops := make([]clientv3.Op, 0, end-start)
		for _, i := range idx[start:end] {
			ops = append(ops, clientv3.OpGet(keys[i]))
		}
		resp, err := b.cli.Txn(ctx).Then(ops...).Commit()
		if err != nil {
			return nil, err
		}
		for j, r := range resp.Responses {
			if rr := r.GetResponseRange(); rr != nil {
				kvs[start+j] = firstKV(rr.Kvs)
			}
		}
	}
	return kvs, nil
}

// keepAlive renews the leases of renewals[idx] over one keep-alive stream:
// the requests go out together and etcd answers them in order. A lease the
// server no longer has is ErrNotHeld; a stream that fails leaves the
// renewals it has not answered unknown.
func (b *Backend) keepAlive(ctx context.Context, idx []int, leases map[int]clientv3.LeaseID, errs []error) {
	if len(idx) == 0 {
		return
	}
	fail := func(from int, err error) {
		for _, i := range idx[from:] {
			errs[i] = failed(err)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := clientv3.RetryLeaseClient(b.cli).LeaseKeepAlive(ctx)
	if err != nil {
		fail(0, err)
		return
	}
	sent := make(chan error, 1)
	go func() {
		for _, i := range idx {
			if err := stream.Send(&pb.LeaseKeepAliveRequest{ID: int64(leases[i])}); err != nil {
				sent <- err
				return
			}
		}
		sent <- stream.CloseSend()
	}()
	for j, i := range idx {
		resp, err := stream.Recv()
		if err != nil {
			fail(j, err)
			break
		}
		if resp.ID != int64(leases[i]) {
			fail(j, fmt.Errorf("keep-alive answer for lease %x, not %x", resp.ID, int64(leases[i])))
			break
		}
		if resp.TTL <= 0 {
			errs[i] = driver.ErrNotHeld
		}
	}
	cancel() // ends a sender still blocked on a stream that failed
	<-sent
}

// move binds k, r's etcd key, to a new lease of its own of r.TTL, guarded
// by the revision it read, and lets go of the old lease.
func (b *Backend) move(ctx context.Context, k string, r driver.Renewal) error {
	lease, err := b.grant(ctx, b.leaseSeconds(r.TTL))
	if err != nil {
		return err
	}
	resp, err := b.cli.Get(ctx, k)
	if err != nil {
		b.revokeLater(ctx, lease.id)
		return err
	}
	kv := firstKV(resp.Kvs)
	for range casRounds {
		old, err := b.ownedBy(kv, r.Owner)
		if err != nil {
			b.revokeLater(ctx, lease.id)
			return err
		}
		v := old
		v.ttl = lease.ttl
		v.shared = false
		val := v.encode()
		tresp, err := b.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(k), "=", kv.ModRevision)).
			Then(clientv3.OpPut(k, val, clientv3.WithLease(lease.id))).
			Else(clientv3.OpGet(k)).
			Commit()
		if err != nil {
			// The key may be bound to the new lease: keep it.
			return err
		}
		if tresp.Succeeded {
			b.hints.remember(k, r.Owner, written(k, val, lease.id, kv.CreateRevision, tresp.Header.Revision, kv.Version+1))
			b.unbound(ctx, old, clientv3.LeaseID(kv.Lease))
			return nil
		}
		kv = lastKV(tresp)
	}
	b.revokeLater(ctx, lease.id)
	return errContended
}
