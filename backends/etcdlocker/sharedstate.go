package etcdlocker

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"go.etcd.io/etcd/api/v3/mvccpb"

	"github.com/distlock/distlock/driver"
)

// entry is one key of a shared lock: an owner's hold in one mode, or its
// place on the wait list.
type entry struct {
	owner string
	// letter is a hold's mode letter; empty for a waiter.
	letter string
	kv     *mvccpb.KeyValue
	v      lockValue
}

// mode returns the hold's mode.
func (e *entry) mode() driver.Mode {
	switch e.letter {
	case readLetter:
		return driver.Read
	case writeLetter:
		return driver.Write
	}
	return driver.Permits
}

// lockState is a shared lock as one read saw it.
type lockState struct {
	// rev is the revision the read saw: no key it returned changed later
	// than that.
	rev int64
	// token is the token key's mod revision, 0 before the first write hold
	// or semaphore hold.
	token int64
	// holds are in key order (by mode, then owner); waiters first in line
	// first, which is in the order of their keys' creation.
	holds, waiters []entry
}

// parse makes the state of the lock out of the keys a read of its base
// returned at revision rev. It fails on a key distlock did not write.
func (k lockKeys) parse(rev int64, kvs []*mvccpb.KeyValue) (*lockState, error) {
	st := &lockState{rev: rev}
	for _, kv := range kvs {
		rest, ok := strings.CutPrefix(string(kv.Key), k.base)
		if !ok {
			return nil, fmt.Errorf("key %.60q is not the lock's", kv.Key)
		}
		if rest == tokenPart {
			st.token = kv.ModRevision
			continue
		}
		e := entry{kv: kv}
		switch {
		case strings.HasPrefix(rest, waitersPart):
			e.owner = rest[len(waitersPart):]
		case strings.HasPrefix(rest, holdsPart) && len(rest) > len(holdsPart)+2 && rest[len(holdsPart)+1] == '/':
			e.letter = rest[len(holdsPart) : len(holdsPart)+1]
			e.owner = rest[len(holdsPart)+2:]
		default:
			return nil, fmt.Errorf("key %.60q does not hold a distlock lock", kv.Key)
		}
		v, err := decodeValue(kv.Value)
		if err != nil {
			return nil, err
		}
		if v.owner != e.owner || v.waiting != (e.letter == "") {
			return nil, fmt.Errorf("key %.60q does not hold a distlock lock", kv.Key)
		}
		e.v = v
		if e.letter == "" {
			st.waiters = append(st.waiters, e)
		} else {
			st.holds = append(st.holds, e)
		}
	}
	slices.SortFunc(st.waiters, func(a, b entry) int { return cmp.Compare(a.kv.CreateRevision, b.kv.CreateRevision) })
	return st, nil
}

// hold returns owner's hold in the mode of letter, or nil.
func (st *lockState) hold(letter, owner string) *entry {
	for i := range st.holds {
		if h := &st.holds[i]; h.letter == letter && h.owner == owner {
			return h
		}
	}
	return nil
}

// waiter returns owner's place on the wait list, or nil.
func (st *lockState) waiter(owner string) *entry {
	for i := range st.waiters {
		if w := &st.waiters[i]; w.owner == owner {
			return w
		}
	}
	return nil
}

// limit returns the limit of a semaphore in use, 0 when nobody holds or
// waits. Every key of a semaphore has the same (see semaphore.go).
func (st *lockState) limit() int {
	for _, es := range [][]entry{st.holds, st.waiters} {
		if len(es) > 0 {
			return es[0].v.limit
		}
	}
	return 0
}
