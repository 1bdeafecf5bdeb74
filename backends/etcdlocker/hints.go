package etcdlocker

import (
	"sync"

	"go.etcd.io/etcd/api/v3/mvccpb"
)

// maxHints bounds how many keys the backend remembers for Unlock.
const maxHints = 1024

// holdHint is a lock key as the backend last wrote it for owner.
type holdHint struct {
	owner string
	kv    *mvccpb.KeyValue
}

// holdHints remembers the lock keys this backend wrote, so that Unlock can
// guard its write with the revision it already knows instead of reading the
// key first. A hint is only ever a guess about the key: every write made
// from it is guarded by the key's revision, and a key that changed since is
// read again in the same transaction. It is safe for concurrent use.
type holdHints struct {
	mu sync.Mutex
	m  map[string]holdHint
}

// remember records kv, the etcd key k as written for owner.
func (h *holdHints) remember(k, owner string, kv *mvccpb.KeyValue) {
	if kv == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.m == nil {
		h.m = make(map[string]holdHint)
	}
	if _, ok := h.m[k]; !ok && len(h.m) >= maxHints {
		for old := range h.m {
			delete(h.m, old) // any one: a hint only saves a read
			break
		}
	}
	h.m[k] = holdHint{owner: owner, kv: kv}
}

// recall returns the etcd key k as last written for owner, or nil.
func (h *holdHints) recall(k, owner string) *mvccpb.KeyValue {
	h.mu.Lock()
	defer h.mu.Unlock()
	if hint, ok := h.m[k]; ok && hint.owner == owner {
		return hint.kv
	}
	return nil
}

// forget drops the hint of k if it is owner's, or whoever's when owner is
// empty.
func (h *holdHints) forget(k, owner string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if hint, ok := h.m[k]; ok && (owner == "" || hint.owner == owner) {
		delete(h.m, k)
	}
}

// counterHint returns the token counter of a shared lock, whose token key
// is k, as this backend last saw it; none when it has not seen it.
func (b *Backend) counterHint(k string) counter {
	c, err := readCounter(b.hints.recall(k, ""))
	if err != nil {
		return counter{}
	}
	return c
}

// rememberCounter records kv, a shared lock's token key k as read or
// written (nil: absent), for the next acquisition's first transaction.
func (b *Backend) rememberCounter(k string, kv *mvccpb.KeyValue) {
	if kv == nil {
		b.hints.forget(k, "")
		return
	}
	b.hints.remember(k, "", kv)
}
