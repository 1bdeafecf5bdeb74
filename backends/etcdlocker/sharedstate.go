package etcdlocker

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

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
	// counter is the lock's token counter as read (see counter).
	counter counter
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
			c, err := readCounter(kv)
			if err != nil {
				return nil, err
			}
			st.counter = c
			continue
		}
		e := entry{kv: kv}
		switch {
		case strings.HasPrefix(rest, waitersPart):
			e.owner = rest[len(waitersPart):]
		case strings.HasPrefix(rest, holdsPart) && len(rest) > len(holdsPart)+2 && rest[len(holdsPart)+1] == '/' &&
			strings.Contains(readLetter+writeLetter+permitsLetter, rest[len(holdsPart):len(holdsPart)+1]):
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

// counter is a lock's token counter: the token of its last write hold or
// semaphore hold (or the highest a Fence asked for), which outlives the
// holds, so that tokens rise from one holder to the next.
type counter struct {
	// kv is the token key as read or written; nil while absent.
	kv *mvccpb.KeyValue
	// n is the counter, 0 before the first hold.
	n uint64
}

// readCounter reads the token key kv (nil when absent).
func readCounter(kv *mvccpb.KeyValue) (counter, error) {
	if kv == nil {
		return counter{}, nil
	}
	n, err := strconv.ParseUint(string(kv.Value), 10, 64)
	if err != nil {
		return counter{}, fmt.Errorf("key %.60q does not hold a distlock token counter (value %.40q)", kv.Key, kv.Value)
	}
	return counter{kv: kv, n: n}, nil
}

// unchanged is the condition that the token key k is still as c read it.
func (c counter) unchanged(k string) clientv3.Cmp {
	if c.kv == nil {
		return clientv3.Compare(clientv3.CreateRevision(k), "=", 0)
	}
	return clientv3.Compare(clientv3.ModRevision(k), "=", c.kv.ModRevision)
}
