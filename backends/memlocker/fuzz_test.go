package memlocker_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/locker"
)

// model is the lock semantics written as plainly as possible: the store
// must agree with it on every call.
type model struct {
	now    time.Duration
	locks  map[string]*modelHold
	tokens map[string]uint64
}

type modelHold struct {
	owner   string
	holds   int
	token   uint64
	expires time.Duration
}

func (m *model) live(key string) *modelHold {
	if h := m.locks[key]; h != nil && m.now < h.expires {
		return h
	}
	delete(m.locks, key)
	return nil
}

func (m *model) tryLock(key, owner string, ttl time.Duration) locker.Grant {
	h := m.live(key)
	if h != nil && h.owner != owner {
		return locker.Grant{Remaining: h.expires - m.now}
	}
	if h == nil {
		m.tokens[key]++
		h = &modelHold{owner: owner, token: m.tokens[key]}
		m.locks[key] = h
	}
	h.holds++
	h.expires = m.now + ttl
	return locker.Grant{Acquired: true, Holds: h.holds, Token: h.token}
}

func (m *model) unlock(key, owner string) error {
	h := m.live(key)
	if h == nil || h.owner != owner {
		return locker.ErrNotHeld
	}
	if h.holds--; h.holds == 0 {
		delete(m.locks, key)
	}
	return nil
}

func (m *model) expire(key, owner string, ttl time.Duration) error {
	h := m.live(key)
	if h == nil || h.owner != owner {
		return locker.ErrNotHeld
	}
	h.expires = m.now + ttl
	return nil
}

// FuzzStoreMatchesModel drives the store and the model with the same calls,
// three bytes a call, and fails at the first disagreement.
func FuzzStoreMatchesModel(f *testing.F) {
	f.Add([]byte{0, 0, 10, 0, 1, 10, 1, 0, 0, 1, 0, 0})
	f.Add([]byte{0, 0, 5, 5, 0, 9, 0, 1, 5, 2, 0, 40, 1, 1, 0})
	f.Add([]byte{0, 2, 3, 0, 2, 3, 1, 2, 0, 4, 0, 0, 0, 3, 1, 6, 0, 0})
	keys := []string{"a", "b", "{c}"}
	owners := []string{"o1", "o2", "o3"}
	f.Fuzz(func(t *testing.T, ops []byte) {
		ctx := context.Background()
		clock := memlocker.NewManualClock(time.Unix(1e9, 0))
		c := memlocker.New(memlocker.WithClock(clock))
		m := &model{locks: map[string]*modelHold{}, tokens: map[string]uint64{}}
		for i := 0; i+2 < len(ops); i += 3 {
			op, who, arg := ops[i]%7, ops[i+1], ops[i+2]
			key, owner := keys[int(who)%len(keys)], owners[int(who/3)%len(owners)]
			ttl := time.Duration(arg%50+1) * time.Millisecond
			switch op {
			case 0:
				got, err := c.TryLock(ctx, key, owner, ttl)
				if err != nil {
					t.Fatalf("call %d TryLock(%s, %s): %v", i/3, key, owner, err)
				}
				if want := m.tryLock(key, owner, ttl); got != want {
					t.Fatalf("call %d TryLock(%s, %s, %v) = %+v, model says %+v", i/3, key, owner, ttl, got, want)
				}
			case 1:
				got, want := c.Unlock(ctx, key, owner), m.unlock(key, owner)
				if !errors.Is(got, want) || (want == nil) != (got == nil) {
					t.Fatalf("call %d Unlock(%s, %s) = %v, model says %v", i/3, key, owner, got, want)
				}
			case 2:
				got, want := c.Expire(ctx, key, owner, ttl), m.expire(key, owner, ttl)
				if !errors.Is(got, want) || (want == nil) != (got == nil) {
					t.Fatalf("call %d Expire(%s, %s) = %v, model says %v", i/3, key, owner, got, want)
				}
			case 3, 4:
				d := time.Duration(arg%30) * time.Millisecond
				clock.Advance(d)
				m.now += d
			case 5:
				held, err := c.ForceUnlock(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				if want := m.live(key) != nil; held != want {
					t.Fatalf("call %d ForceUnlock(%s) = %v, model says %v", i/3, key, held, want)
				}
				delete(m.locks, key)
			case 6:
				st, err := c.Inspect(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				want := locker.State{Token: m.tokens[key]}
				if h := m.live(key); h != nil {
					want = locker.State{Held: true, Owner: h.owner, Holds: h.holds, Remaining: h.expires - m.now, Token: h.token}
				}
				if st != want {
					t.Fatalf("call %d Inspect(%s) = %+v, model says %+v", i/3, key, st, want)
				}
			}
		}
	})
}
