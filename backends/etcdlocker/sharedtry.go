package etcdlocker

import (
	"context"
	"slices"
	"strconv"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/driver"
)

// sharedRounds bounds the transactions of one attempt on a shared lock. A
// transaction whose conditions fail reads the lock instead, and the next
// round decides on what it read; each failure is another owner's change
// to the lock (see decision), so a few rounds are enough except under
// heavy contention, which the Store rides out by waiting.
const sharedRounds = 4

// contendedRetry is the Remaining of an attempt refused because the lock
// kept changing under its transactions: a waiter tries again soon.
const contendedRetry = 100 * time.Millisecond

// verdict is what an attempt on a shared lock does.
type verdict uint8

const (
	// admit takes a first hold in the view's mode.
	admit verdict = iota + 1
	// reenter adds a hold to the owner's.
	reenter
	// refuse takes nothing, and may join the wait list.
	refuse
)

// decision is an attempt's verdict on a shared lock as it read it, with
// the conditions under which the verdict still holds when its transaction
// commits. Those are exact where etcd can check the rule itself (a range
// of keys is empty), and otherwise conservative: keys only ever leave a
// lock without a write of its own (a lease runs out) by ending a hold or a
// wait, which frees the lock, so a condition that nothing was created
// since the read suffices. Keys whose presence lets the attempt in (the
// owner's own hold or place in line) are checked to be the same keys.
type decision struct {
	verdict verdict
	conds   []clientv3.Cmp
	// own is the hold a re-entry raises.
	own *entry
	// queued is the owner's place on the wait list as read, if any.
	queued *entry
	// inWay are the holds and waiters that refuse the attempt; Remaining is
	// the longest of their leases, or the shortest when shortest is set.
	inWay    []entry
	shortest bool
	// join says that a refused attempt with patience joins the wait list,
	// under conds.
	join bool
}

// reentry is the decision to add a hold to own, as long as own is what the
// read saw.
func reentry(own *entry) decision {
	return decision{verdict: reenter, own: own, conds: []clientv3.Cmp{
		clientv3.Compare(clientv3.ModRevision(string(own.kv.Key)), "=", own.kv.ModRevision),
	}}
}

// none is the condition that no key begins with prefix.
func none(prefix string) clientv3.Cmp {
	return clientv3.Compare(clientv3.CreateRevision(prefix), "=", 0).WithPrefix()
}

// createdBy is the condition that every key beginning with prefix was
// created at revision rev or before.
func createdBy(prefix string, rev int64) clientv3.Cmp {
	return clientv3.Compare(clientv3.CreateRevision(prefix), "<", rev+1).WithPrefix()
}

// same is the condition that e's key is still the one read (a key deleted
// and made again has another creation revision).
func same(e *entry) clientv3.Cmp {
	return clientv3.Compare(clientv3.CreateRevision(string(e.kv.Key)), "=", e.kv.CreateRevision)
}

// decide decides an attempt of owner on the view's lock of k as it was in
// st (nil: not read yet).
func (v *view) decide(k lockKeys, owner string, st *lockState) (decision, error) {
	if v.space == semSpace {
		return decideSem(k, v.share, owner, st)
	}
	return decideRW(k, v.letter, owner, st), nil
}

// TryLock implements driver.Backend for a shared lock: see driver.Sharer
// for whom it lets in. Its first transaction assumes that nothing is in
// the way, and that the token counter is as the backend last saw it, and
// takes the hold if etcd finds it so; otherwise it reads the lock, and a
// second transaction acts on what it read: one round trip for an
// uncontended read hold, and for a write hold or a hold of an unused
// semaphore whose counter no other client moved; two otherwise. A write or
// semaphore hold's token is the counter plus one, or r.Floor if higher. A
// semaphore in use with another limit, or a hold of other permits by
// r.Owner, fail with driver.ErrInvalid, changing nothing.
func (v *view) TryLock(ctx context.Context, r driver.Request) (driver.Grant, error) {
	if err := driver.CheckRequest(r); err != nil {
		return driver.Grant{}, err
	}
	if err := checkMaxLease(r.TTL); err != nil {
		return driver.Grant{}, err
	}
	ctx, call, err := v.b.call(ctx)
	if err != nil {
		return driver.Grant{}, err
	}
	defer call.End()
	a := attempt{v: v, r: r, k: v.keys(r.Key), start: v.b.clock()}
	a.counter = v.b.counterHint(a.k.token())
	g, err := a.run(ctx)
	a.end(ctx)
	if err != nil {
		return driver.Grant{}, failed(err)
	}
	return g, nil
}

// leased is a shared lease an attempt took, and what it did with it.
type leased struct {
	l   *sharedLease
	use leaseUse
}

// attempt is one TryLock on a shared lock.
type attempt struct {
	v     *view
	r     driver.Request
	k     lockKeys
	start time.Time
	// hold and wait are the leases for a hold and for a place on the wait
	// list, taken when needed.
	hold, wait leased
	// counter is the lock's token counter as last seen.
	counter counter
}

// run decides and commits, round by round.
func (a *attempt) run(ctx context.Context) (driver.Grant, error) {
	var st *lockState
	for range sharedRounds {
		d, err := a.v.decide(a.k, a.r.Owner, st)
		if err != nil {
			return driver.Grant{}, err
		}
		if d.verdict == refuse && (!d.join || a.r.Patience <= 0) {
			return a.refused(ctx, d), nil
		}
		resp, w, err := a.commit(ctx, d)
		if err != nil {
			return driver.Grant{}, err
		}
		if resp.Succeeded {
			if d.verdict == refuse {
				if d.queued != nil {
					a.v.b.unboundKV(ctx, d.queued.kv)
				}
				return a.refused(ctx, d), nil
			}
			return a.granted(ctx, d, resp, w)
		}
		if st, err = a.k.parse(resp.Header.Revision, lastRange(resp)); err != nil {
			return driver.Grant{}, err
		}
		a.counter = st.counter
		a.v.b.rememberCounter(a.k.token(), st.counter.kv)
	}
	return driver.Grant{Remaining: contendedRetry}, nil
}

// holdWrite is what an acquisition or re-entry writes: the hold's value
// and token, and the counter's new value (0: left alone).
type holdWrite struct {
	val     string
	token   uint64
	counter uint64
}

// commit sends d's transaction, which reads the lock when its conditions
// fail, and returns what it writes for a hold.
func (a *attempt) commit(ctx context.Context, d decision) (*clientv3.TxnResponse, holdWrite, error) {
	lease, ttl := &a.hold, a.r.TTL
	if d.verdict == refuse {
		lease, ttl = &a.wait, min(a.r.Patience, time.Duration(maxLeaseSeconds)*time.Second)
	}
	if lease.l == nil {
		l, err := a.v.b.takeLease(ctx, a.v.b.leaseSeconds(ttl), a.v.b.clock())
		if err != nil {
			// Nothing was written; at worst an unused lease runs out.
			return nil, holdWrite{}, err
		}
		lease.l = l
	}
	conds := d.conds
	var ops []clientv3.Op
	var w holdWrite
	if d.verdict == refuse {
		ops = []clientv3.Op{a.joinOp(lease.l)}
	} else {
		ops, w = a.holdOps(d, lease.l)
		if w.counter > 0 {
			conds = append(slices.Clip(conds), a.counter.unchanged(a.k.token()))
		}
	}
	resp, err := a.v.b.cli.Txn(ctx).If(conds...).Then(ops...).Else(clientv3.OpGet(a.k.base, clientv3.WithPrefix())).Commit()
	switch {
	case err != nil:
		lease.use = leaseUnknown
	case resp.Succeeded:
		lease.use = leaseBound
	}
	return resp, w, err
}

// holdOps are the writes of an acquisition or re-entry bound to lease. An
// acquisition takes the owner off the wait list and, of a write or
// semaphore hold, moves the token counter on to the hold's token; a read
// hold reads the counter.
func (a *attempt) holdOps(d decision, lease *sharedLease) ([]clientv3.Op, holdWrite) {
	v := lockValue{owner: a.r.Owner, holds: 1, ttl: lease.ttl, shared: true, permits: a.v.share.Permits, limit: a.v.share.Limit}
	read := a.v.share.Mode == driver.Read
	var w holdWrite
	switch {
	case d.verdict == reenter:
		v.holds, v.token = d.own.v.holds+1, d.own.v.token
	case !read:
		v.token = max(a.counter.n+1, a.r.Floor)
		w.counter = v.token
	}
	w.val, w.token = v.encode(), v.token
	ops := []clientv3.Op{clientv3.OpPut(a.k.hold(a.v.letter, a.r.Owner), w.val, clientv3.WithLease(lease.id))}
	if d.verdict == admit {
		ops = append(ops, clientv3.OpDelete(a.k.waiter(a.r.Owner), clientv3.WithPrevKV()))
	}
	if w.counter > 0 {
		ops = append(ops, clientv3.OpPut(a.k.token(), strconv.FormatUint(w.counter, 10)))
	}
	if read {
		ops = append(ops, clientv3.OpGet(a.k.token()))
	}
	return ops, w
}

// joinOp puts the owner on the wait list for the lease's length, or keeps
// its place there (a key written again keeps its creation revision).
func (a *attempt) joinOp(lease *sharedLease) clientv3.Op {
	v := lockValue{owner: a.r.Owner, ttl: lease.ttl, shared: true, waiting: true, permits: a.v.share.Permits, limit: a.v.share.Limit}
	return clientv3.OpPut(a.k.waiter(a.r.Owner), v.encode(), clientv3.WithLease(lease.id))
}

// granted is the Grant of d's transaction, which succeeded writing w.
func (a *attempt) granted(ctx context.Context, d decision, resp *clientv3.TxnResponse, w holdWrite) (driver.Grant, error) {
	b := a.v.b
	k := a.k.hold(a.v.letter, a.r.Owner)
	rev := resp.Header.Revision
	g := driver.Grant{Acquired: true, Holds: 1, Token: w.token}
	created, version := rev, int64(1)
	if d.verdict == reenter {
		g.Holds = d.own.v.holds + 1
		created, version = d.own.kv.CreateRevision, d.own.kv.Version+1
		b.unboundKV(ctx, d.own.kv)
	} else if prev := resp.Responses[1].GetResponseDeleteRange().GetPrevKvs(); len(prev) > 0 {
		b.unboundKV(ctx, prev[0]) // the owner left the wait list
	}
	b.hints.remember(k, a.r.Owner, written(k, w.val, a.hold.l.id, created, rev, version))
	tk := a.k.token()
	switch {
	case a.v.share.Mode == driver.Read:
		// A read hold carries the counter: the last write's token.
		kv := lastKV(resp)
		c, err := readCounter(kv)
		if err != nil {
			return driver.Grant{}, err
		}
		g.Token = c.n
		b.rememberCounter(tk, kv)
	case w.counter > 0:
		created, version := rev, int64(1)
		if a.counter.kv != nil {
			created, version = a.counter.kv.CreateRevision, a.counter.kv.Version+1
		}
		b.rememberCounter(tk, written(tk, strconv.FormatUint(w.counter, 10), clientv3.NoLease, created, rev, version))
	}
	g.Validity = a.hold.l.validity(a.start, a.r.TTL)
	return g, nil
}

// refused is the Grant of an attempt that d refused: Remaining is the
// longest (or shortest) remaining lease of the keys in the way, when etcd
// tells them.
func (a *attempt) refused(ctx context.Context, d decision) driver.Grant {
	ttls, _ := a.v.b.leaseTTLs(ctx, d.inWay) // without them, Remaining is unknown
	var g driver.Grant
	for _, e := range d.inWay {
		left := ttls[clientv3.LeaseID(e.kv.Lease)]
		if left > 0 && (g.Remaining == 0 || d.shortest == (left < g.Remaining)) {
			g.Remaining = left
		}
	}
	return g
}

// end ends the attempt's use of its leases.
func (a *attempt) end(ctx context.Context) {
	for _, l := range []leased{a.hold, a.wait} {
		if l.l != nil {
			a.v.b.leaseDone(ctx, l.l, l.use)
		}
	}
}
