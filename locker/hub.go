package locker

import (
	"context"
	"reflect"
	"sync"
)

// The hub shares release subscriptions: all goroutines of this process that
// wait on the same lock use one Watch on the store.
var hub = struct {
	sync.Mutex
	topics map[any]*topic
}{topics: make(map[any]*topic)}

// topic is one shared subscription. Each release closes gen and replaces it,
// so a waiter that took gen before its attempt cannot miss a release that
// happens after.
type topic struct {
	id    any
	ready chan struct{} // closed once Watch has returned
	stop  func()        // set before ready closes; nil if Watch failed
	refs  int           // guarded by hub

	mu  sync.Mutex
	gen chan struct{}
}

func (t *topic) fire() {
	t.mu.Lock()
	close(t.gen)
	t.gen = make(chan struct{})
	t.mu.Unlock()
}

// subscription is one waiter's share of a topic. A nil *subscription is
// valid and never wakes.
type subscription struct {
	t *topic
}

// subscribe joins l's shared subscription, starting it if needed. If the
// lock cannot be watched, or it is not comparable and so cannot be shared,
// the waiter gets a subscription of its own or none.
func subscribe(ctx context.Context, l Lockable) *subscription {
	id := shareID(l)
	if id == nil {
		t := &topic{ready: make(chan struct{}), gen: make(chan struct{})}
		watch(ctx, l, t)
		return &subscription{t: t}
	}
	hub.Lock()
	t, ok := hub.topics[id]
	if !ok {
		t = &topic{id: id, ready: make(chan struct{}), gen: make(chan struct{})}
		hub.topics[id] = t
	}
	t.refs++
	hub.Unlock()
	if !ok {
		watch(ctx, l, t)
	}
	<-t.ready
	return &subscription{t: t}
}

// watch starts the store's subscription for t. A failed Watch leaves t
// inactive, and its waiters poll.
func watch(ctx context.Context, l Lockable, t *topic) {
	defer close(t.ready)
	stop, err := l.(Watchable).Watch(context.WithoutCancel(ctx), t.fire)
	if err == nil {
		t.stop = stop
	}
}

// shareID identifies l's subscription: the backend and key for a KeyLock,
// l itself for other comparable locks, nil when l cannot be shared.
func shareID(l Lockable) any {
	if k, ok := l.(*KeyLock); ok {
		if !reflect.TypeOf(k.backend).Comparable() {
			return nil
		}
		return struct {
			b   Backend
			key string
		}{k.backend, k.key}
	}
	if !reflect.TypeOf(l).Comparable() {
		return nil
	}
	return l
}

// active reports whether the subscription delivers releases.
func (s *subscription) active() bool {
	return s != nil && s.t.stop != nil
}

// next returns a channel closed at the next release.
func (s *subscription) next() <-chan struct{} {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	return s.t.gen
}

// close leaves the subscription, stopping the store's Watch with the last
// waiter.
func (s *subscription) close() {
	if s == nil {
		return
	}
	t := s.t
	last := true
	if t.id != nil {
		hub.Lock()
		t.refs--
		last = t.refs == 0
		if last {
			delete(hub.topics, t.id)
		}
		hub.Unlock()
	}
	if last && t.stop != nil {
		t.stop()
	}
}
