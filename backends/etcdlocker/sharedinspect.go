package etcdlocker

import (
	"cmp"
	"context"
	"slices"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/driver"
)

// maxTTLCalls bounds the TimeToLive calls one call has in flight: etcd
// tells a lease's remaining time one lease at a time.
const maxTTLCalls = 16

// Inspect implements driver.Inspector over the whole lock: every holder in
// every mode, sorted by owner then mode, with its remaining lease rounded
// up to a whole second; the writer as Owner; the longest remaining lease;
// the token counter (0 before the first write hold or semaphore hold);
// a semaphore's limit while anybody holds or waits.
func (v *view) Inspect(ctx context.Context, key string) (driver.State, error) {
	if err := driver.CheckKey(key); err != nil {
		return driver.State{}, err
	}
	ctx, call, err := v.b.call(ctx)
	if err != nil {
		return driver.State{}, err
	}
	defer call.End()
	st, err := v.inspect(ctx, key)
	if err != nil {
		return driver.State{}, failed(err)
	}
	return st, nil
}

func (v *view) inspect(ctx context.Context, key string) (driver.State, error) {
	k := v.keys(key)
	resp, err := v.b.cli.Get(ctx, k.base, clientv3.WithPrefix())
	if err != nil {
		return driver.State{}, err
	}
	ls, err := k.parse(resp.Header.Revision, resp.Kvs)
	if err != nil {
		return driver.State{}, err
	}
	ttls, err := v.b.leaseTTLs(ctx, ls.holds)
	if err != nil {
		return driver.State{}, err
	}
	v.b.rememberCounter(k.token(), ls.counter.kv)
	st := driver.State{Token: ls.counter.n, Limit: ls.limit()}
	for _, h := range ls.holds {
		left := ttls[clientv3.LeaseID(h.kv.Lease)]
		if left <= 0 {
			continue // the lease ended after the read, and took the hold
		}
		st.Holders = append(st.Holders, driver.Holder{Owner: h.owner, Mode: h.mode(), Holds: h.v.holds, Permits: h.v.permits, Remaining: left, Token: h.v.token})
		st.Held = true
		st.Remaining = max(st.Remaining, left)
		if h.letter == writeLetter {
			st.Owner, st.Holds = h.owner, h.v.holds
		}
	}
	slices.SortFunc(st.Holders, func(a, b driver.Holder) int {
		return cmp.Or(cmp.Compare(a.Owner, b.Owner), cmp.Compare(a.Mode, b.Mode))
	})
	return st, nil
}

// leaseTTLs returns the remaining time of the leases of es, rounded up to
// a whole second, by lease; a lease that has ended is missing. On an error
// it returns what it learnt, and the error.
func (b *Backend) leaseTTLs(ctx context.Context, es []entry) (map[clientv3.LeaseID]time.Duration, error) {
	ids := make([]clientv3.LeaseID, 0, len(es))
	for _, e := range es {
		if id := clientv3.LeaseID(e.kv.Lease); id != clientv3.NoLease && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	ttls := make(map[clientv3.LeaseID]time.Duration, len(ids))
	var mu sync.Mutex
	var first error
	ask := func(id clientv3.LeaseID) {
		resp, err := b.cli.TimeToLive(ctx, id)
		mu.Lock()
		defer mu.Unlock()
		switch {
		case err != nil:
			first = cmp.Or(first, err)
		case resp.TTL >= 0:
			ttls[id] = remaining(resp.TTL, resp.GrantedTTL)
		}
	}
	if len(ids) == 1 {
		ask(ids[0])
		return ttls, first
	}
	// The calls share the client's connection, so asking together takes
	// about one round trip.
	limit := make(chan struct{}, maxTTLCalls)
	var wg sync.WaitGroup
	for _, id := range ids {
		limit <- struct{}{}
		wg.Go(func() {
			defer func() { <-limit }()
			ask(id)
		})
	}
	wg.Wait()
	return ttls, first
}
