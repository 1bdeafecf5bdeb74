package redislocker

import (
	"strconv"
	"strings"
	"sync"
)

// keys are the Redis names of one lock. The first three carry the same
// hash tag, {escaped name}, so a Cluster keeps them in one slot and one
// script may touch them all; the marker is in that slot too.
type keys struct {
	lock    string // hash: owner → hold count
	fence   string // string: the last fencing token handed out
	channel string // (shard) channel: a message at every release
	marker  string // string: the server's boot time, for Grant.Uptime
	slot    int    // the Cluster slot of the tag
}

// keysFor returns the names of lock name under prefix. On a Cluster the
// uptime marker is one per slot, as a script may only touch keys of one
// slot; on a standalone server it is one for all locks.
func keysFor(prefix, name string, cluster bool) keys {
	tag := escapeName(name)
	slot := int(crc16(tag) % clusterSlots)
	k := keys{
		lock: withPrefix(prefix, "{"+tag+"}"),
		slot: slot,
	}
	k.fence = k.lock + ":fence"
	k.channel = k.lock + ":released"
	if cluster {
		k.marker = withPrefix(prefix, "{"+slotTag(slot)+"}:booted")
	} else {
		k.marker = prefix + ":booted"
	}
	return k
}

func withPrefix(prefix, s string) string {
	if prefix == "" {
		return s
	}
	return prefix + ":" + s
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
	var b strings.Builder
	b.Grow(len(name))
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || c == '{' || c == '}' || c == '%' {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
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
