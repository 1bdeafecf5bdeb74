package quorum

import "cmp"

// gateOf picks the target that an attempt of kind asks first, alone: for
// a lock that needs every member (All) with more than one, the least in a
// fixed order (by store, then key), so that every combinator over the same
// members, or over overlapping sets of keys, agrees on it; -1 otherwise.
//
// Why: when contenders ask every member at once, each may win a different
// member, and then all of them are refused somewhere, fail and release:
// a round without a winner on a free lock, as often as their calls cross.
// Asking the gate first makes the gate's holder the only contender that
// asks the rest: the others are refused at the gate and take nothing.
// Among contenders for the same members at most one gets past the gate,
// and nobody else competes with it for the rest, so every round in which
// the lock is free has a winner (the ordering of locks that prevents
// deadlock, reduced to its first lock, since an attempt never waits). The
// price is one more round trip per attempt. Contenders over different but
// overlapping key sets have gates of their own and can still cross on the
// keys past them; the fixed order makes that need a key set whose lowest
// key is not in the other's. A majority lock cannot gate: it must be able
// to do without any one member.
func gateOf(kind Kind, ts []target) int {
	if kind.needed(len(ts)) < len(ts) || len(ts) < 2 {
		return -1
	}
	gate := 0
	for i, t := range ts {
		if c := cmp.Or(cmp.Compare(describe(t.b), describe(ts[gate].b)), cmp.Compare(t.key, ts[gate].key)); c < 0 {
			gate = i
		}
	}
	return gate
}
