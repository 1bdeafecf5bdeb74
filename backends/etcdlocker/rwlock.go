package etcdlocker

import (
	clientv3 "go.etcd.io/etcd/client/v3"
)

// decideRW decides an attempt of owner on the read-write lock of k, in the
// mode of letter (read or write), as it was in st; a nil st (nothing read
// yet) is taken for a free lock. The conditions of an acquisition are the
// rules themselves, checked by etcd when the transaction commits: no hold
// at all for a write, no write hold and no waiting writer for a read (or
// the owner's own write hold, still the same, for a downgrade).
func decideRW(k lockKeys, letter, owner string, st *lockState) decision {
	if st != nil {
		if own := st.hold(letter, owner); own != nil {
			return reentry(own)
		}
	}
	noRead := clientv3.Compare(clientv3.CreateRevision(k.hold(readLetter, owner)), "=", 0)
	if letter == writeLetter {
		if st != nil && len(st.holds) > 0 {
			// Any hold is in the way, the owner's own read hold too: there
			// is no upgrade.
			return decision{verdict: refuse, inWay: st.holds, join: true, queued: st.waiter(owner)}
		}
		return decision{verdict: admit, conds: []clientv3.Cmp{none(k.holds())}}
	}
	if st != nil {
		if w := st.hold(writeLetter, owner); w != nil {
			// A downgrade: the owner's write hold lets its read in, whoever
			// waits.
			return decision{verdict: admit, conds: []clientv3.Cmp{same(w), noRead}}
		}
		// Another's write hold, and any waiting writer, keep a new reader
		// out.
		var inWay []entry
		for _, h := range st.holds {
			if h.letter == writeLetter {
				inWay = append(inWay, h)
			}
		}
		if inWay = append(inWay, st.waiters...); len(inWay) > 0 {
			return decision{verdict: refuse, inWay: inWay}
		}
	}
	return decision{verdict: admit, conds: []clientv3.Cmp{none(k.holdsOf(writeLetter)), none(k.waiters()), noRead}}
}
