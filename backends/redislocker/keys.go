package redislocker

import (
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// keys are the Redis names of one lock. They carry the same hash tag,
// {escaped name}, so a Cluster keeps them in one slot and one script may
// touch them all; the marker is in that slot too.
type keys struct {
	lock    string // hash: the holder, its hold count and lease, the counter (see scripts.go)
	channel string // (shard) channel: a message at every release; queueLua names it too
	turns   string // prefix of the channel that tells an owner its turn; likewise
	queue   string // list: the owners waiting, in order of arrival
	waiters string // hash: waiting owner -> when its patience lapses, and its lease
	marker  string // string: the server's boot time, for Grant.Uptime
	slot    int    // the Cluster slot of the tag

	// The KEYS of the scripts, boxed once: go-redis takes a command's
	// arguments as []any, and boxing a string allocates, on every call.
	tried  []any // lock, queue, waiters, marker: the trylock script
	queued []any // lock, queue, waiters: scripts that may hand off
	held   []any // lock: the rest
}

// keysFor returns the names of lock name under prefix. On a Cluster the
// uptime marker is one per slot, as a script may only touch keys of one
// slot; on a standalone server it is one for all locks. Every call of the
// backend needs the names, so they are slices of one string, built with
// one allocation.
func keysFor(prefix, name string, cluster bool) keys {
	tag := escapeName(name)
	slot := int(crc16(tag) % clusterSlots)
	sep := ":"
	if prefix == "" {
		sep = ""
	}
	var b strings.Builder
	b.Grow(6 * (len(prefix) + len(tag) + 16))
	var ends [6]int
	// The lock's own names: "prefix:{tag}", then the same with a suffix.
	for i, suffix := range [...]string{"", ":released", ":turn:", ":queue", ":waiting"} {
		for _, part := range [...]string{prefix, sep, "{", tag, "}", suffix} {
			b.WriteString(part)
		}
		ends[i] = b.Len()
	}
	// The marker: "prefix:{slot tag}:booted" on a Cluster, else
	// "prefix:booted".
	b.WriteString(prefix)
	if cluster {
		for _, part := range [...]string{sep, "{", slotTag(slot), "}"} {
			b.WriteString(part)
		}
	}
	b.WriteString(":booted")
	ends[5] = b.Len()
	all := b.String()
	var names [len(ends)]string
	from := 0
	for i, to := range ends {
		names[i], from = all[from:to], to
	}
	k := keys{
		lock: names[0], channel: names[1], turns: names[2],
		queue: names[3], waiters: names[4], marker: names[5], slot: slot,
	}
	k.tried = []any{k.lock, k.queue, k.waiters, k.marker}
	k.queued = k.tried[:3:3]
	k.held = k.tried[:1:1]
	return k
}

// keyCacheLimit bounds the lock names whose keys a backend keeps: a program
// that locks more names than this at once rebuilds some at each call, as
// every call did before.
const keyCacheLimit = 1 << 12

// keyCache keeps the keys of the mutexes a backend used last.
type keyCache = nameCache[keys]

// nameCache keeps the Redis names (a T) of the lock names a backend used
// last, so that a call on a name in use costs no allocation for them.
type nameCache[T any] struct {
	m sync.Map // name → *T
	n atomic.Int64
}

// get returns the names of name, built by build the first time.
func (c *nameCache[T]) get(name string, build func(string) T) *T {
	if k, ok := c.m.Load(name); ok {
		return k.(*T)
	}
	k := build(name)
	if c.n.Add(1) > keyCacheLimit {
		// Forget them all: cheaper than tracking use, and names in use
		// come back at their next call.
		c.m.Clear()
		c.n.Store(1)
	}
	c.m.Store(name, &k)
	return &k
}

// slotTags holds, for each Cluster slot, a short hash tag in that slot.
var slotTags = sync.OnceValue(func() []string {
	tags := make([]string, clusterSlots)
	left := clusterSlots
	for i := 0; left > 0; i++ {
		tag := "slot-" + strconv.FormatInt(int64(i), 36)
		slot := crc16(tag) % clusterSlots
		if tags[slot] == "" {
			tags[slot] = tag
			left--
		}
	}
	return tags
})

// slotTag returns a hash tag whose keys live in slot.
func slotTag(slot int) string { return slotTags()[slot] }

// escapeName makes a lock name safe inside a hash tag. Bytes that could
// end or start a tag ('{', '}'), the escape byte '%' itself, and every byte
// outside printable ASCII become %XX. The mapping is one-to-one, so
// different names never share keys, and the result never contains a brace,
// so the tag is always well formed and never empty.
func escapeName(name string) string {
	const hex = "0123456789ABCDEF"
	if !needsEscape(name) {
		return name
	}
	var b strings.Builder
	b.Grow(len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		if mustEscape(c) {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// needsEscape reports whether escapeName changes name.
func needsEscape(name string) bool {
	for i := 0; i < len(name); i++ {
		if mustEscape(name[i]) {
			return true
		}
	}
	return false
}

// mustEscape reports whether escapeName escapes byte c.
func mustEscape(c byte) bool {
	return c <= ' ' || c >= 0x7f || c == '{' || c == '}' || c == '%'
}

// clusterSlots is the number of hash slots of a Redis Cluster.
const clusterSlots = 16384

// crc16 is the CRC-16/XMODEM checksum Redis Cluster hashes keys with
// (polynomial 0x1021, initial value 0).
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}
