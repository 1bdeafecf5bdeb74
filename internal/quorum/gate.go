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
	return least(ts, func(target) bool { return true })
}

// least returns the least of the targets that ok accepts in the fixed
// order of gateOf (by store, then key), or -1 when it accepts none.
func least(ts []target, ok func(target) bool) int {
	first := -1
	for i, t := range ts {
		if !ok(t) {
			continue
		}
		if first < 0 || cmp.Or(cmp.Compare(describe(t.b), describe(ts[first].b)), cmp.Compare(t.key, ts[first].key)) < 0 {
			first = i
		}
	}
	return first
}
