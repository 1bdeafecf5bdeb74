package etcdlocker

import (
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/driver"
)

// decideSem decides an attempt of owner on the semaphore of k, for
// sh.Permits of its sh.Limit, as it was in st; a nil st (nothing read yet)
// is taken for an unused semaphore. It fails, changing nothing, when the
// semaphore is in use with another limit or owner holds another number of
// permits.
//
// Free permits cannot be a condition of a transaction, so an acquisition
// is conditioned on no hold key created since st was read: a hold that
// ended meanwhile (released, run out, or forced) only frees more permits.
// Nobody overtakes a live waiter: unless the owner is first in line (its
// own place unchanged), no waiter may have joined since either. (Every
// acquisition also moves the token counter, and is conditioned on it, so
// two acquisitions never commit on one read of the semaphore.)
//
// Every key of a semaphore carries its limit, and all of them carry the
// same: a key is only created while a key of the same limit, read before,
// is still there (its creation revision unchanged), or while the semaphore
// is unused.
func decideSem(k lockKeys, sh driver.Share, owner string, st *lockState) (decision, error) {
	if st == nil {
		return decision{verdict: admit, conds: []clientv3.Cmp{none(k.holds()), none(k.waiters())}}, nil
	}
	if limit := st.limit(); limit != 0 && limit != sh.Limit {
		return decision{}, driver.Invalid(fmt.Sprintf("a semaphore of %d permits is in use with %d", sh.Limit, limit))
	}
	if own := st.hold(permitsLetter, owner); own != nil {
		if own.v.permits != sh.Permits {
			return decision{}, driver.Invalid(fmt.Sprintf("a hold of %d permits asked of an owner holding %d", sh.Permits, own.v.permits))
		}
		return reentry(own), nil
	}
	queued := st.waiter(owner)
	free := sh.Limit
	for _, h := range st.holds {
		free -= h.v.permits
	}
	if (len(st.waiters) == 0 || st.waiters[0].owner == owner) && free >= sh.Permits {
		conds := []clientv3.Cmp{createdBy(k.holds(), st.rev)}
		if queued != nil {
			conds = append(conds, same(queued))
		} else {
			conds = append(conds, createdBy(k.waiters(), st.rev))
		}
		return decision{verdict: admit, conds: conds}, nil
	}
	// The shortest remaining lease of the holders, or the patience of the
	// first waiter when nobody holds.
	inWay := st.holds
	if len(inWay) == 0 {
		inWay = st.waiters[:1]
	}
	// Refused, the semaphore is in use: some key of it anchors the limit.
	anchor := queued
	if anchor == nil {
		anchor = &inWay[0]
	}
	return decision{verdict: refuse, inWay: inWay, shortest: true, join: true, queued: queued, conds: []clientv3.Cmp{same(anchor)}}, nil
}
