package redislocker

// sharedKeys are the Redis names of one shared lock: a read-write lock or
// a semaphore. They follow the mutex of the same name, "prefix:{name}",
// with the kind after the tag ("prefix:{name}:rw", "prefix:{name}:sem"), so
// that they share its hash tag, and so its Cluster slot and uptime marker,
// but never a key or a channel: a mutex's names end in "}", ":queue",
// ":waiting", ":released" or ":turn:" and an owner.
type sharedKeys struct {
	lock    string // hash: the counter, the holds and what they need (see sharedlua.go)
	channel string // (shard) channel: a message when a hold ends or a waiter leaves
	slot    int    // the Cluster slot of the tag

	// The KEYS of the scripts, boxed once (see keys).
	tried []any // lock, leases, [queue,] marker: the trylock scripts
	held  []any // lock, leases: expire, fence, inspect
	own   []any // lock, leases[, queue]: the scripts that release
}

// sharedKeysFor returns the names of the shared lock name of kind ("rw" or
// "sem") under prefix. A semaphore has a wait queue of its own; a
// read-write lock keeps its waiting writers with the leases.
func sharedKeysFor(prefix, name, kind string, cluster bool) sharedKeys {
	m := keysFor(prefix, name, cluster)
	lock := m.lock + ":" + kind
	k := sharedKeys{lock: lock, channel: lock + ":released", slot: m.slot}
	if kind == semKind {
		k.tried = []any{lock, lock + ":leases", lock + ":queue", m.marker}
		k.own = k.tried[:3:3]
	} else {
		k.tried = []any{lock, lock + ":leases", m.marker}
		k.own = k.tried[:2:2]
	}
	k.held = k.tried[:2:2]
	return k
}

// The kinds of shared lock, as their names say.
const (
	rwKind  = "rw"
	semKind = "sem"
)

// sharedNames keeps the names of a backend's shared locks in use, one
// cache per kind.
type sharedNames struct {
	rw, sem nameCache[sharedKeys]
}
