package redislocker

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/internal/redistest"
)

// allNames lists every key and channel of name: its mutex's and its shared
// locks'.
func allNames(prefix, name string, cluster bool) []string {
	m := keysFor(prefix, name, cluster)
	names := []string{m.lock, m.channel, m.queue, m.waiters, m.turns + "owner"}
	for _, kind := range []string{rwKind, semKind} {
		k := sharedKeysFor(prefix, name, kind, cluster)
		names = append(names, k.channel)
		for _, key := range k.tried {
			if key != m.marker {
				names = append(names, key.(string))
			}
		}
	}
	return names
}

// TestSharedNamesApart: the mutex, the read-write lock and the semaphore
// of a name, and the locks of different names, never share a key or a
// channel, whatever the name.
func TestSharedNamesApart(t *testing.T) {
	seen := make(map[string]string)
	for _, name := range append(oddNames, "x:rw", "x:sem", "x}:rw", "rw", "sem") {
		for _, n := range allNames("app", name, false) {
			if other, ok := seen[n]; ok {
				t.Fatalf("%q is a name of %q and of %q", n, other, name)
			}
			seen[n] = name
		}
	}
	k := sharedKeysFor("app", "n", rwKind, false)
	assert.Equal(t, []any{"app:{n}:rw", "app:{n}:rw:leases", "app:booted"}, k.tried)
	assert.Equal(t, []any{"app:{n}:rw", "app:{n}:rw:leases"}, k.own)
	assert.Equal(t, k.own, k.held)
	assert.Equal(t, "app:{n}:rw:released", k.channel)
	s := sharedKeysFor("app", "n", semKind, false)
	assert.Equal(t, []any{"app:{n}:sem", "app:{n}:sem:leases", "app:{n}:sem:queue", "app:booted"}, s.tried)
	assert.Equal(t, []any{"app:{n}:sem", "app:{n}:sem:leases", "app:{n}:sem:queue"}, s.own)
	assert.Equal(t, []any{"app:{n}:sem", "app:{n}:sem:leases"}, s.held)
}

// TestSharedSlotsMatchTheCluster checks the client-side slot of the shared
// locks of every odd name against the server's CLUSTER KEYSLOT for all
// their keys and channels: one slot, the mutex's.
func TestSharedSlotsMatchTheCluster(t *testing.T) {
	cluster := redistest.StartCluster(t, 3)
	node := cluster.Servers()[0]
	for _, name := range oddNames {
		m := keysFor(DefaultPrefix, name, true)
		for _, kind := range []string{rwKind, semKind} {
			k := sharedKeysFor(DefaultPrefix, name, kind, true)
			require.Equal(t, m.slot, k.slot)
			for _, key := range append(k.tried, k.channel) {
				slot, err := node.Do("CLUSTER", "KEYSLOT", key.(string))
				require.NoError(t, err)
				assert.EqualValues(t, k.slot, slot, "name %q, key %q", name, key)
			}
		}
	}
}
