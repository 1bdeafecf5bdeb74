package redislocker_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/internal/redistest"
	"github.com/distlock/distlock/locker"
)

// FuzzScriptsKeepIdentities sends keys and owners of any bytes through the
// Lua scripts of a real redis-server: a round trip of TryLock, Inspect,
// Expire and Unlock must preserve the owner's identity byte for byte, keep
// different keys apart, refuse a second owner, and leave no lock behind.
func FuzzScriptsKeepIdentities(f *testing.F) {
	srv := redistest.Start(f)
	client := redis.NewClient(&redis.Options{Addr: srv.Addr(), ContextTimeoutEnabled: true})
	b, err := redislocker.New(client, redislocker.WithOwnedClient(), redislocker.WithPrefix("fuzz"),
		redislocker.WithFenceLinger(time.Second))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = b.Close() })

	for _, seed := range [][4]string{
		{"k", "k2", "owner", "other"},
		{"{", "}", "a", "b"},
		{"a%41", "aA", "o", "O"},
		{"%", "%25", "\x00", "\x00\x00"},
		{"\xff\xfe", "\xff", "\xe2\x82\xac", "€"},
		{"with space", "with\tspace", "o\r\nx", "o\nx"},
		{"x:fence", "x", "*", "?"},
		{"{a}:b", "{a}", "owner", "owner "},
		{"same", "same", "o1", "o2"},
		{"", "k", "o", "p"},
		{"k", "k", "", "p"},
		{"ключ", "鍵", "владелец", "所有者"},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	f.Fuzz(func(t *testing.T, key, key2, owner, owner2 string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		const lease = 10 * time.Second
		if key == "" || owner == "" {
			_, err := b.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: lease})
			if !errors.Is(err, locker.ErrInvalid) {
				t.Fatalf("TryLock(%q, %q) = %v, want ErrInvalid", key, owner, err)
			}
			return
		}
		g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: lease})
		if err != nil || !g.Acquired || g.Holds != 1 || g.Token == 0 {
			t.Fatalf("TryLock(%q, %q) = %+v, %v; want a first hold with a token", key, owner, g, err)
		}
		defer func() {
			// Leave nothing behind for the next input, whatever failed.
			_, _ = b.ForceUnlock(context.Background(), key)
		}()
		expectState(ctx, t, b, key, driver.State{Held: true, Owner: owner, Holds: 1, Token: g.Token})

		again, err := b.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: lease})
		if err != nil || !again.Acquired || again.Holds != 2 || again.Token != g.Token {
			t.Fatalf("re-entry of %q by %q = %+v, %v; want hold 2 with token %d", key, owner, again, err, g.Token)
		}
		if err := b.Expire(ctx, key, owner, lease); err != nil {
			t.Fatalf("Expire(%q, %q) by the holder: %v", key, owner, err)
		}

		if owner2 != "" && owner2 != owner {
			refused, err := b.TryLock(ctx, driver.Request{Key: key, Owner: owner2, TTL: lease})
			if err != nil || refused.Acquired || refused.Remaining <= 0 {
				t.Fatalf("TryLock(%q, %q) while %q holds it = %+v, %v; want refused with the holder's lease", key, owner2, owner, refused, err)
			}
			if err := b.Unlock(ctx, key, owner2); !errors.Is(err, locker.ErrNotHeld) {
				t.Fatalf("Unlock(%q) by non-holder %q = %v, want ErrNotHeld", key, owner2, err)
			}
			if err := b.Expire(ctx, key, owner2, lease); !errors.Is(err, locker.ErrNotHeld) {
				t.Fatalf("Expire(%q) by non-holder %q = %v, want ErrNotHeld", key, owner2, err)
			}
			expectState(ctx, t, b, key, driver.State{Held: true, Owner: owner, Holds: 2, Token: g.Token})
		}

		if key2 != "" && key2 != key {
			other := owner2
			if other == "" {
				other = owner
			}
			st, err := b.Inspect(ctx, key2)
			if err != nil || st.Held {
				t.Fatalf("Inspect(%q) while only %q is held = %+v, %v; want free", key2, key, st, err)
			}
			g2, err := b.TryLock(ctx, driver.Request{Key: key2, Owner: other, TTL: lease})
			if err != nil || !g2.Acquired || g2.Holds != 1 {
				t.Fatalf("TryLock(%q, %q) while %q is held = %+v, %v; want a hold of its own", key2, other, key, g2, err)
			}
			expectState(ctx, t, b, key2, driver.State{Held: true, Owner: other, Holds: 1, Token: g2.Token})
			if err := b.Unlock(ctx, key2, other); err != nil {
				t.Fatalf("Unlock(%q, %q): %v", key2, other, err)
			}
			expectState(ctx, t, b, key, driver.State{Held: true, Owner: owner, Holds: 2, Token: g.Token})
		}

		for range 2 {
			if err := b.Unlock(ctx, key, owner); err != nil {
				t.Fatalf("Unlock(%q, %q): %v", key, owner, err)
			}
		}
		if err := b.Unlock(ctx, key, owner); !errors.Is(err, locker.ErrNotHeld) {
			t.Fatalf("a third Unlock(%q, %q) after two holds = %v, want ErrNotHeld", key, owner, err)
		}
		expectState(ctx, t, b, key, driver.State{Token: g.Token})
		expectNoLocks(t, srv)
	})
}

// expectState checks what Inspect reports for key; the remaining lease of
// a held lock must be positive and at most the fuzz lease.
func expectState(ctx context.Context, t *testing.T, b *redislocker.Backend, key string, want driver.State) {
	t.Helper()
	st, err := b.Inspect(ctx, key)
	if err != nil {
		t.Fatalf("Inspect(%q): %v", key, err)
	}
	if want.Held && (st.Remaining <= 0 || st.Remaining > 10*time.Second) {
		t.Fatalf("Inspect(%q): remaining lease %v, want within (0, 10s]", key, st.Remaining)
	}
	st.Remaining = 0
	if !reflect.DeepEqual(st, want) {
		t.Fatalf("Inspect(%q) = %+v, want %+v", key, st, want)
	}
}

// expectNoLocks checks that no lock hash under the fuzz prefix has a
// holder (the hashes linger with their fencing counters by design).
func expectNoLocks(t *testing.T, srv *redistest.Server) {
	t.Helper()
	cursor := "0"
	for {
		reply, err := srv.Do("SCAN", cursor, "MATCH", "fuzz:*", "TYPE", "hash", "COUNT", "1000")
		if err != nil {
			t.Fatalf("SCAN: %v", err)
		}
		r, ok := reply.([]any)
		if !ok || len(r) != 2 {
			t.Fatalf("SCAN: unexpected reply %v", reply)
		}
		keys, _ := r[1].([]any)
		for _, key := range keys {
			name, _ := key.(string)
			if st, _ := readState(t, srv, name); st.Owner != "" {
				t.Fatalf("a lock left behind on the server: %q held by %q", name, st.Owner)
			}
		}
		if cursor, _ = r[0].(string); cursor == "0" {
			return
		}
	}
}
