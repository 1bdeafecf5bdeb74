package conformance

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// oddKeys are names a backend must store faithfully and keep apart.
var oddKeys = []string{
	"ключ/锁/🔒",
	"with spaces and\ttabs\nand newlines",
	"{braces}",
	"}{",
	"colons:a:b::c",
	"quotes'\"`\\",
	"nul\x00byte",
	"invalid utf-8 \xff\xfe",
	strings.Repeat("k", 1024),
	strings.Repeat("k", 1023) + "x",
}

func testOddKeys(ctx context.Context, t *testing.T, s *suite) {
	b1, b2 := s.backend(ctx, t), s.backend(ctx, t)
	o1, o2 := locker.NewOwner(), locker.NewOwner()
	keys := make([]string, len(oddKeys))
	for i, k := range oddKeys {
		keys[i] = s.key(t, "/"+k)
		g, err := b1.TryLock(ctx, driver.Request{Key: keys[i], Owner: o1, TTL: s.long})
		require.NoError(t, err, "key %q", k)
		require.True(t, g.Acquired, "key %q: each odd key is a lock of its own", k)
	}
	for i, k := range oddKeys {
		g, err := b2.TryLock(ctx, driver.Request{Key: keys[i], Owner: o2, TTL: s.long})
		require.NoError(t, err, "key %q", k)
		assert.False(t, g.Acquired, "key %q must be held", k)
		require.NoError(t, b1.Unlock(ctx, keys[i], o1), "key %q", k)
		g, err = b2.TryLock(ctx, driver.Request{Key: keys[i], Owner: o2, TTL: s.long})
		require.NoError(t, err, "key %q", k)
		assert.True(t, g.Acquired, "key %q must be free after its release", k)
		require.NoError(t, b2.Unlock(ctx, keys[i], o2), "key %q", k)
	}
}

func testInvalidInput(ctx context.Context, t *testing.T, s *suite) {
	b, st := s.client(ctx, t)
	key, o := s.key(t, ""), locker.NewOwner()
	// The driver's own checks speak the kit's words (driver.CheckRequest
	// and the others), whatever the driver puts before them.
	kit := []struct {
		name string
		call func() error
		want error
	}{
		{"TryLock empty key", func() error { _, err := b.TryLock(ctx, driver.Request{Key: "", Owner: o, TTL: s.long}); return err }, driver.CheckKey("")},
		{"TryLock empty owner", func() error { _, err := b.TryLock(ctx, driver.Request{Key: key, Owner: "", TTL: s.long}); return err }, driver.CheckOwner(key, "")},
		{"TryLock zero lease", func() error { _, err := b.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: 0}); return err }, driver.CheckLease(key, o, 0)},
		{"TryLock negative lease", func() error {
			_, err := b.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: -time.Second})
			return err
		}, driver.CheckLease(key, o, -time.Second)},
		{"Expire zero lease", func() error { return b.Expire(ctx, key, o, 0) }, driver.CheckLease(key, o, 0)},
		{"Unlock empty key", func() error { return b.Unlock(ctx, "", o) }, driver.CheckKey("")},
		{"Unlock empty owner", func() error { return b.Unlock(ctx, key, "") }, driver.CheckOwner(key, "")},
	}
	for _, c := range kit {
		err := c.call()
		if assert.ErrorIs(t, err, driver.ErrInvalid, c.name) {
			assert.True(t, strings.HasSuffix(err.Error(), c.want.Error()), "%s: %q is not in the kit's words (%q)", c.name, err, c.want)
		}
	}
	cases := []struct {
		name string
		call func() error
	}{
		{"Store.Mutex empty name", func() error { _, err := st.Mutex(""); return err }},
		{"NewStore nil driver", func() error { _, err := locker.NewStore(nil).Mutex(key); return err }},
		{"WithOwner empty", func() error { _, err := st.Mutex(key, locker.WithOwner("")); return err }},
		{"WithWatchdogLease zero", func() error { _, err := st.Mutex(key, locker.WithWatchdogLease(0)); return err }},
		{"WithLease zero", func() error {
			_, err := s.mutex(t, st, key).TryLock(ctx, locker.WithLease(0))
			return err
		}},
		{"WithWait negative", func() error {
			_, err := s.mutex(t, st, key).TryLock(ctx, locker.WithWait(-time.Second))
			return err
		}},
	}
	for _, c := range cases {
		assert.ErrorIs(t, c.call(), driver.ErrInvalid, c.name)
	}
	assert.False(t, isHeld(ctx, t, b, key), "bad input must leave nothing behind")
}

func testUseAfterClose(ctx context.Context, t *testing.T, s *suite) {
	b, st := s.client(ctx, t)
	key, o := s.key(t, ""), locker.NewOwner()
	require.NoError(t, b.Close())
	_, err := b.TryLock(ctx, driver.Request{Key: key, Owner: o, TTL: s.long})
	assert.ErrorIs(t, err, driver.ErrClosed, "TryLock after Close")
	assert.ErrorIs(t, b.Unlock(ctx, key, o), driver.ErrClosed, "Unlock after Close")
	assert.ErrorIs(t, b.Expire(ctx, key, o, s.long), driver.ErrClosed, "Expire after Close")
	// A Store over a closed driver passes the driver's answer on.
	_, err = s.mutex(t, st, key).TryLock(ctx)
	assert.ErrorIs(t, err, driver.ErrClosed, "Mutex.TryLock after the driver's Close")
	assert.NotPanics(t, func() { _ = b.Close() }, "closing twice")
	assert.False(t, isHeld(ctx, t, s.backend(ctx, t), key), "calls after Close must leave nothing behind")
}
