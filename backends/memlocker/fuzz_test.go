package memlocker_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
)

// model is the lock semantics written as plainly as possible: the store
// must agree with it on every call.
type model struct {
	now    time.Duration
	locks  map[string]*modelHold
	tokens map[string]uint64
	queues map[string][]modelWaiter
	// heard is what watchers must hear during the current call:
	// "key=owner#token" for a grant, "key=" for a release with nobody
	// waiting.
	heard []string
}

type modelHold struct {
	owner   string
	holds   int
	granted bool // the hold is a grant to a waiter, not yet claimed
	token   uint64
	expires time.Duration
}

type modelWaiter struct {
	owner    string
	deadline time.Duration
	ttl      time.Duration
}

func (m *model) live(key string) *modelHold {
	if h := m.locks[key]; h != nil && m.now < h.expires {
		return h
	}
	delete(m.locks, key)
	return nil
}

// dropLapsed removes waiters whose patience ran out from the head of key's
// queue.
func (m *model) dropLapsed(key string) {
	for len(m.queues[key]) > 0 && m.queues[key][0].deadline <= m.now {
		m.queues[key] = m.queues[key][1:]
	}
}

// freed is called when key has just lost its hold: the first live waiter
// is granted it, or, with nobody waiting, the key is released.
func (m *model) freed(key string) {
	m.dropLapsed(key)
	if len(m.queues[key]) == 0 {
		m.heard = append(m.heard, key+"=")
		return
	}
	w := m.queues[key][0]
	m.queues[key] = m.queues[key][1:]
	m.tokens[key]++
	m.locks[key] = &modelHold{owner: w.owner, holds: 1, granted: true, token: m.tokens[key], expires: m.now + w.ttl}
	m.heard = append(m.heard, fmt.Sprintf("%s=%s#%d", key, w.owner, m.tokens[key]))
}

func (m *model) leave(key, owner string) {
	m.queues[key] = slices.DeleteFunc(m.queues[key], func(w modelWaiter) bool { return w.owner == owner })
}

func (m *model) tryLock(key, owner string, ttl, patience time.Duration) driver.Grant {
	h := m.live(key)
	if h == nil {
		m.dropLapsed(key)
		if q := m.queues[key]; len(q) > 0 && q[0].owner != owner {
			m.freed(key)
			h = m.locks[key]
		}
	}
	if h != nil && h.owner != owner {
		if patience <= 0 {
			return driver.Grant{Remaining: h.expires - m.now, Reserved: h.granted}
		}
		if i := slices.IndexFunc(m.queues[key], func(w modelWaiter) bool { return w.owner == owner }); i >= 0 {
			m.queues[key][i].deadline, m.queues[key][i].ttl = m.now+patience, ttl
		} else {
			m.queues[key] = append(m.queues[key], modelWaiter{owner, m.now + patience, ttl})
		}
		return driver.Grant{Remaining: h.expires - m.now, Reserved: h.granted, Token: h.token}
	}
	if h == nil {
		m.leave(key, owner)
		m.tokens[key]++
		h = &modelHold{owner: owner, token: m.tokens[key]}
		m.locks[key] = h
	}
	if !h.granted || patience == 0 {
		h.holds++
	}
	h.granted = false
	h.expires = m.now + ttl
	return driver.Grant{Acquired: true, Holds: h.holds, Token: h.token}
}

func (m *model) unlock(key, owner string) error {
	h := m.live(key)
	if h == nil || h.owner != owner {
		return locker.ErrNotHeld
	}
	if h.holds--; h.holds <= 0 {
		delete(m.locks, key)
		m.freed(key)
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

func (m *model) dequeue(key, owner string) {
	m.leave(key, owner)
	if h := m.live(key); h != nil && h.owner == owner && h.granted {
		delete(m.locks, key)
		m.freed(key)
	}
}

// FuzzStoreMatchesModel drives the store and the model with the same calls,
// three bytes a call, and fails at the first disagreement, in results or in
// what release and turn watchers hear.
func FuzzStoreMatchesModel(f *testing.F) {
	f.Add([]byte{0, 0, 10, 0, 1, 10, 1, 0, 0, 1, 0, 0})
	f.Add([]byte{0, 0, 5, 5, 0, 9, 0, 1, 5, 2, 0, 40, 1, 1, 0})
	f.Add([]byte{0, 2, 3, 0, 2, 3, 1, 2, 0, 4, 0, 0, 0, 3, 1, 6, 0, 0})
	// o1 holds a; o2 and o3 queue; o1 unlocks, o2 is granted it and
	// gives it back to o3, who claims it.
	f.Add([]byte{0, 0, 40, 7, 3, 30, 7, 6, 36, 1, 0, 0, 6, 0, 0, 8, 3, 0, 6, 0, 0, 7, 6, 10, 1, 6, 0})
	// o1's lease on a runs out with o2 and o3 queued; o1's next attempt
	// grants a to o2, whose grant lapses, as did o3's place.
	f.Add([]byte{0, 0, 10, 7, 3, 36, 7, 6, 5, 3, 0, 20, 0, 0, 10, 6, 0, 0, 3, 0, 25, 0, 6, 5, 5, 0, 0})
	keys := []string{"a", "b", "{c}"}
	owners := []string{"o1", "o2", "o3"}
	f.Fuzz(func(t *testing.T, ops []byte) {
		ctx := context.Background()
		clock := memlocker.NewManualClock(time.Unix(1e9, 0))
		c := memlocker.New(memlocker.WithClock(clock))
		m := &model{locks: map[string]*modelHold{}, tokens: map[string]uint64{}, queues: map[string][]modelWaiter{}}
		var mu sync.Mutex
		var heard []string
		hear := func(what string) func() {
			return func() {
				mu.Lock()
				heard = append(heard, what)
				mu.Unlock()
			}
		}
		for _, key := range keys {
			stop, err := c.Watch(ctx, key, hear(key+"="))
			if err != nil {
				t.Fatal(err)
			}
			defer stop()
			for _, owner := range owners {
				stop, err := c.WatchTurn(ctx, key, owner, func(g driver.Grant) {
					hear(fmt.Sprintf("%s=%s#%d", key, owner, g.Token))()
				})
				if err != nil {
					t.Fatal(err)
				}
				defer stop()
			}
		}
		for i := 0; i+2 < len(ops); i += 3 {
			op, who, arg := ops[i]%9, ops[i+1], ops[i+2]
			key, owner := keys[int(who)%len(keys)], owners[int(who/3)%len(owners)]
			ttl := time.Duration(arg%50+1) * time.Millisecond
			patience := time.Duration(arg%37+1) * time.Millisecond
			m.heard = nil
			switch op {
			case 0:
				got, err := c.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: ttl})
				if err != nil {
					t.Fatalf("call %d TryLock(%s, %s): %v", i/3, key, owner, err)
				}
				if want := m.tryLock(key, owner, ttl, 0); got != want {
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
				want := m.live(key) != nil
				if held != want {
					t.Fatalf("call %d ForceUnlock(%s) = %v, model says %v", i/3, key, held, want)
				}
				if want {
					delete(m.locks, key)
					m.freed(key)
				}
			case 6:
				st, err := c.Inspect(ctx, key)
				if err != nil {
					t.Fatal(err)
				}
				want := driver.State{Token: m.tokens[key]}
				if h := m.live(key); h != nil {
					want = driver.State{Held: true, Owner: h.owner, Holds: h.holds, Remaining: h.expires - m.now, Token: h.token}
				}
				if !reflect.DeepEqual(st, want) {
					t.Fatalf("call %d Inspect(%s) = %+v, model says %+v", i/3, key, st, want)
				}
			case 7:
				got, err := c.TryLock(ctx, driver.Request{Key: key, Owner: owner, TTL: ttl, Patience: patience})
				if err != nil {
					t.Fatalf("call %d TryLock with patience (%s, %s): %v", i/3, key, owner, err)
				}
				if want := m.tryLock(key, owner, ttl, patience); got != want {
					t.Fatalf("call %d TryLock(%s, %s, %v, patience %v) = %+v, model says %+v", i/3, key, owner, ttl, patience, got, want)
				}
			case 8:
				if err := c.Dequeue(ctx, key, owner); err != nil {
					t.Fatalf("call %d Dequeue(%s, %s): %v", i/3, key, owner, err)
				}
				m.dequeue(key, owner)
			}
			mu.Lock()
			got := heard
			heard = nil
			mu.Unlock()
			if !slices.Equal(got, m.heard) {
				t.Fatalf("call %d (op %d on %s by %s): watchers heard %q, model says %q", i/3, op, key, owner, got, m.heard)
			}
		}
	})
}
