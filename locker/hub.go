package locker

import (
	"context"
	"reflect"
	"sync"
	"time"
)

// The hub shares subscriptions: all goroutines of this process that wait on
// the same lock use one Watch on the store, and all that wait for the same
// owner's turn in a lock's queue one WatchTurn. A subscription outlives its
// last waiter by subscriptionLinger, so that a goroutine that locks again
// soon after (the usual case under contention) finds it still active and
// the store is not asked to subscribe and unsubscribe at every wait.
var hub = struct {
	sync.Mutex
	topics map[any]*topic
}{topics: make(map[any]*topic)}

// subscriptionLinger is how long a subscription stays after its last
// waiter left.
const subscriptionLinger = 250 * time.Millisecond

// topic is one shared subscription. Each event closes gen and replaces it,
// so a waiter that took gen before its attempt cannot miss an event that
// happens after.
type topic struct {
	id    any
	ready chan struct{} // closed once the watch has returned
	stop  func()        // set before ready closes; nil if the watch failed
	refs  int           // guarded by hub
	idle  *time.Timer   // guarded by hub: stops a topic nobody uses

	mu  sync.Mutex
	gen chan struct{}
}

func newTopic(id any) *topic {
	return &topic{id: id, ready: make(chan struct{}), gen: make(chan struct{})}
}

func (t *topic) fire() {
	t.mu.Lock()
	close(t.gen)
	t.gen = make(chan struct{})
	t.mu.Unlock()
}

// watchFunc starts a store subscription that calls fire at each event.
type watchFunc func(ctx context.Context, fire func()) (stop func(), err error)

// subscription is one waiter's share of a topic. A nil *subscription is
// valid and never wakes.
type subscription struct {
	t *topic
}

// subscribe returns a waiter's subscription to l: to its releases when
// owner is "", else to owner's turns in l's queue (which a Mutex only asks
// for when l has one). If the lock cannot be watched, the subscription is
// inactive; if it is not comparable and so cannot be shared, the waiter
// gets a subscription of its own.
func subscribe(ctx context.Context, l Lockable, owner string) *subscription {
	id := topicID(l, owner)
	start := watchFunc(func(ctx context.Context, fire func()) (func(), error) {
		return l.(Watchable).Watch(ctx, fire)
	})
	if owner != "" {
		start = func(ctx context.Context, fire func()) (func(), error) {
			return l.(Queueable).WatchTurn(ctx, owner, fire)
		}
	}
	if id == nil {
		t := newTopic(nil)
		t.watch(ctx, start)
		return &subscription{t: t}
	}
	hub.Lock()
	t, ok := hub.topics[id]
	if !ok {
		t = newTopic(id)
		hub.topics[id] = t
	}
	t.use()
	hub.Unlock()
	if !ok {
		t.watch(ctx, start)
	}
	<-t.ready
	return &subscription{t: t}
}

// rejoin returns a share of the subscription subscribe would return if it
// is already active, else nil. A waiter that rejoins before its first
// attempt needs no second attempt after subscribing.
func rejoin(l Lockable, owner string) *subscription {
	id := topicID(l, owner)
	if id == nil {
		return nil
	}
	hub.Lock()
	defer hub.Unlock()
	t, ok := hub.topics[id]
	if !ok {
		return nil
	}
	select {
	case <-t.ready:
	default:
		return nil
	}
	if t.stop == nil {
		return nil
	}
	t.use()
	return &subscription{t: t}
}

// use counts one more waiter of t; the caller holds hub.
func (t *topic) use() {
	t.refs++
	if t.idle != nil {
		t.idle.Stop() // if it already fired, it finds refs > 0
		t.idle = nil
	}
}

// topicID identifies the subscription to l's releases (owner "") or to
// owner's turns; nil when l cannot be shared.
func topicID(l Lockable, owner string) any {
	id := shareID(l)
	if id == nil || owner == "" {
		return id
	}
	return struct {
		lock  any
		owner string
	}{id, owner}
}

// watch starts the store's subscription for t. A failed watch leaves t
// inactive, and its waiters poll.
func (t *topic) watch(ctx context.Context, start watchFunc) {
	defer close(t.ready)
	stop, err := start(context.WithoutCancel(ctx), t.fire)
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

// active reports whether the subscription delivers events.
func (s *subscription) active() bool {
	return s != nil && s.t.stop != nil
}

// next returns a channel closed at the next event.
func (s *subscription) next() <-chan struct{} {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	return s.t.gen
}

// close leaves the subscription. The store's watch stops
// subscriptionLinger after the last waiter left, unless another joined.
func (s *subscription) close() {
	if s == nil {
		return
	}
	t := s.t
	if t.id == nil {
		t.unwatch()
		return
	}
	hub.Lock()
	defer hub.Unlock()
	t.refs--
	if t.refs == 0 {
		t.idle = time.AfterFunc(subscriptionLinger, t.retire)
	}
}

// retire stops t's watch if it is still unused.
func (t *topic) retire() {
	hub.Lock()
	if t.refs > 0 || hub.topics[t.id] != t {
		hub.Unlock()
		return
	}
	delete(hub.topics, t.id)
	hub.Unlock()
	t.unwatch()
}

func (t *topic) unwatch() {
	if t.stop != nil {
		t.stop()
	}
}
