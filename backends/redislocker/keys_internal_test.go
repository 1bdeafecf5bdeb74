package redislocker

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/internal/redistest"
)

var oddNames = []string{
	"plain",
	"{braces}",
	"}{",
	"{",
	"}",
	"{}",
	"a{b}c",
	"%7B",
	"%",
	"nul\x00byte",
	"spaces and\ttabs\n",
	"ключ/锁/🔒",
	"invalid utf-8 \xff\xfe",
	strings.Repeat("k", 1024),
}

func TestEscapeNameIsSafeAndOneToOne(t *testing.T) {
	seen := make(map[string]string)
	for _, name := range oddNames {
		e := escapeName(name)
		assert.NotEmpty(t, e)
		assert.NotContains(t, e, "{", "name %q", name)
		assert.NotContains(t, e, "}", "name %q", name)
		if other, dup := seen[e]; dup {
			t.Errorf("names %q and %q share the escaped form %q", name, other, e)
		}
		seen[e] = name
	}
	assert.Equal(t, "orders/42", escapeName("orders/42"), "readable names stay readable")
	assert.Equal(t, "%7Ba%7D%25", escapeName("{a}%"))
}

func TestKeysShareOneHashTag(t *testing.T) {
	for _, name := range oddNames {
		k := keysFor("app", name, false)
		tag := "{" + escapeName(name) + "}"
		assert.Equal(t, "app:"+tag, k.lock)
		assert.Equal(t, "app:"+tag+":released", k.channel)
		assert.Equal(t, "app:booted", k.marker)
	}
	assert.Equal(t, "{x}", keysFor("", "x", false).lock, "an empty prefix")
	assert.NotEqual(t, keysFor("a", "b:c", false).lock, keysFor("a:b", "c", false).lock, "the tag keeps prefix and name apart")
}

func TestCRC16(t *testing.T) {
	// The CRC-16/XMODEM check value, and the slots the Redis Cluster
	// specification gives as examples.
	assert.Equal(t, uint16(0x31C3), crc16("123456789"))
	assert.Equal(t, 12182, int(crc16("foo")%clusterSlots))
	assert.Equal(t, 5061, int(crc16("bar")%clusterSlots))
}

func TestSlotTagsCoverEverySlot(t *testing.T) {
	seen := make(map[string]bool)
	for slot := range clusterSlots {
		tag := slotTag(slot)
		require.Equal(t, slot, int(crc16(tag)%clusterSlots), "the tag of slot %d", slot)
		require.False(t, seen[tag])
		seen[tag] = true
	}
}

// TestSlotsMatchTheCluster checks the client-side slot of every odd name
// against the server's CLUSTER KEYSLOT for all its keys.
func TestSlotsMatchTheCluster(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	node := cluster.Servers()[0]
	for _, name := range oddNames {
		k := keysFor(DefaultPrefix, name, true)
		for _, key := range []string{k.lock, k.channel, k.queue, k.waiters, k.marker} {
			slot, err := node.Do("CLUSTER", "KEYSLOT", key)
			require.NoError(t, err)
			assert.EqualValues(t, k.slot, slot, "name %q, key %q", name, key)
		}
	}
}

func TestKeyCacheIsBoundedAndRight(t *testing.T) {
	var c keyCache
	build := func(name string) keys { return keysFor("p", name, false) }
	first := c.get("a", build)
	if again := c.get("a", build); again != first {
		t.Fatal("a name in use must keep its keys")
	}
	for i := range 2 * keyCacheLimit {
		name := strconv.Itoa(i)
		if k := c.get(name, build); k.lock != keysFor("p", name, false).lock {
			t.Fatalf("keys of %q: %q", name, k.lock)
		}
	}
	if n := c.n.Load(); n > keyCacheLimit {
		t.Fatalf("%d names kept, more than %d", n, keyCacheLimit)
	}
	k := c.get("a", build)
	if k.lock != "p:{a}" || len(k.tried) != 4 || k.tried[0] != "p:{a}" || k.queued[1] != k.queue || k.held[0] != k.lock {
		t.Fatalf("keys of a after the cache was cleared: %+v", *k)
	}
}
