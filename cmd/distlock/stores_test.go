package main

import (
	"net/url"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/distlock/distlock/internal/etcdtest"
	"github.com/distlock/distlock/internal/memcachedtest"
)

// TestRunOnEtcdAndMemcached runs the command against the other real
// stores: a second run is refused while the first holds the lock, status
// sees the holder, and a forced unlock stops the holder's CMD.
func TestRunOnEtcdAndMemcached(t *testing.T) {
	for _, store := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"etcd", func(t *testing.T) string {
			u, err := url.Parse(etcdtest.Start(t).Endpoints()[0])
			if err != nil {
				t.Fatal(err)
			}
			return "etcd://" + u.Host
		}},
		{"memcached", func(t *testing.T) string { return "memcache://" + memcachedtest.Start(t).Addr() }},
	} {
		t.Run(store.name, func(t *testing.T) {
			env := []string{"DISTLOCK_BACKEND=" + store.url(t)}
			// Leases are whole seconds on both stores: renew every second.
			holder := start(t, env, "run", "--watchdog", "3s", "job", "--", "sh", "-c", holderScript)
			token := tokenOf(t, holder.expectLine("token="))

			marker := filepath.Join(t.TempDir(), "ran")
			r := distlock(t, env, "run", "--wait", "0", "job", "--", "touch", marker)
			assert.Equal(t, exitNotAcquired, r.code)
			assert.NoFileExists(t, marker)

			r = distlock(t, env, "status", "job")
			assert.Equal(t, exitOK, r.code)
			assert.Contains(t, r.stdout, "held:      yes")
			assert.Contains(t, r.stdout, "token:     "+strconv.FormatUint(token, 10))

			r = distlock(t, env, "unlock", "--force", "job")
			assert.Equal(t, exitOK, r.code)
			holder.expectLine("stopping")
			assert.Equal(t, exitLost, holder.wait())

			r = distlock(t, env, "run", "--wait", "0", "job", "--", "touch", marker)
			assert.Equal(t, exitOK, r.code, "the broken lock is free")
			assert.FileExists(t, marker)
		})
	}
}
