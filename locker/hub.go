package locker

import (
	"context"
	"sync"
	"time"

	"github.com/distlock/distlock/driver"
)

// A Store's hub shares subscriptions: all goroutines of the Store that wait
// on the same lock use one Watch on the store, and all that wait for the
// same owner's turn in a lock's queue one WatchTurn. A subscription outlives
// its last waiter by subscriptionLinger, so that a goroutine that locks
// again soon after (the usual case under contention) finds it still active
// and the store is not asked to subscribe and unsubscribe at every wait.
type hub struct {
	mu     sync.Mutex
	topics map[topicKey]*topic
	closed bool
}

// topicKey names a subscription: to the releases of a lock (owner "") or
// to owner's turns in its queue.
type topicKey struct{ name, owner string }

// subscriptionLinger is how long a subscription stays after its last
// waiter left.
const subscriptionLinger = 250 * time.Millisecond

// topic is one shared subscription. Each event closes gen and replaces it,
// so a waiter that took gen before its attempt cannot miss an event that
// happens after. A turn's event may carry a grant (see driver.Queuer):
// the topic keeps the one with the highest token, for the waiter to take.
type topic struct {
	h     *hub
	key   topicKey
	ready chan struct{} // closed once the watch has returned
	stop  func()        // set before ready closes; nil if the watch failed
	refs  int           // guarded by h.mu
	idle  *time.Timer   // guarded by h.mu: stops a topic nobody uses

	mu    sync.Mutex
	gen   chan struct{}
	grant driver.Grant // the highest grant heard, if any
}

func newTopic(h *hub, key topicKey) *topic {
	return &topic{h: h, key: key, ready: make(chan struct{}), gen: make(chan struct{})}
}

// fire records an event, and g if it is a grant above the one kept.
func (t *topic) fire(g driver.Grant) {
	t.mu.Lock()
	if g.Acquired && g.Token > t.grant.Token {
		t.grant = g
	}
	close(t.gen)
	t.gen = make(chan struct{})
	t.mu.Unlock()
}

// watchFunc starts a store subscription that calls fire at each event.
type watchFunc func(ctx context.Context, fire func(driver.Grant)) (stop func(), err error)

// subscription is one waiter's share of a topic. A nil *subscription is
// valid and never wakes.
type subscription struct {
	t *topic
}

// subscribe returns a waiter's subscription to the lock name on s: to its
// releases when owner is "", else to owner's turns in its queue (which a
// Mutex only asks for when s has one). If the lock cannot be watched, or
// the Store is closed, the subscription is inactive. The store's watch is
// set up in a goroutine of its own, as it outlives this waiter; the waiter
// waits for it within ctx, and until the Store closes, and otherwise goes
// on with the subscription inactive until the watch is ready.
func (h *hub) subscribe(ctx context.Context, s *Store, name, owner string) *subscription {
	key := topicKey{name, owner}
	start := watchFunc(func(ctx context.Context, fire func(driver.Grant)) (func(), error) {
		return s.notifier.Watch(ctx, name, func() { fire(driver.Grant{}) })
	})
	if owner != "" {
		start = func(ctx context.Context, fire func(driver.Grant)) (func(), error) {
			return s.queuer.WatchTurn(ctx, name, owner, fire)
		}
	}
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil
	}
	t, ok := h.topics[key]
	if !ok {
		t = newTopic(h, key)
		if h.topics == nil {
			h.topics = make(map[topicKey]*topic)
		}
		h.topics[key] = t
	}
	t.use()
	h.mu.Unlock()
	if !ok {
		go t.watch(context.WithoutCancel(ctx), start)
	}
	select {
	case <-t.ready:
	case <-ctx.Done():
	case <-s.done:
	}
	return &subscription{t: t}
}

// rejoin returns a share of the subscription subscribe would return if it
// is already active, else nil. A waiter that rejoins before its first
// attempt needs no second attempt after subscribing.
func (h *hub) rejoin(name, owner string) *subscription {
	h.mu.Lock()
	defer h.mu.Unlock()
	t, ok := h.topics[topicKey{name, owner}]
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

// close stops every subscription, for Store.Close. It does not wait for a
// watch still being set up (the store may not answer): that one stops
// itself when it is (see watch). Waiters still holding a share find their
// topic retired when they leave it.
func (h *hub) close() {
	h.mu.Lock()
	h.closed = true
	var ready []*topic
	for _, t := range h.topics {
		select {
		case <-t.ready:
			ready = append(ready, t)
		default:
		}
	}
	h.topics = nil
	h.mu.Unlock()
	for _, t := range ready {
		t.unwatch()
	}
}

// use counts one more waiter of t; the caller holds t.h.mu.
func (t *topic) use() {
	t.refs++
	if t.idle != nil {
		t.idle.Stop() // if it already fired, it finds refs > 0
		t.idle = nil
	}
}

// watch starts the store's subscription for t. A failed watch leaves t
// inactive, and its waiters poll; so does one that returns after the hub
// closed or retired t (its waiters gave up while the store did not
// answer), which it stops at once. The outcome is settled under the hub's
// lock, so that close and retire either find t ready and stop it or leave
// it to stop itself.
func (t *topic) watch(ctx context.Context, start watchFunc) {
	stop, err := start(ctx, t.fire)
	t.h.mu.Lock()
	late := err == nil && (t.h.closed || t.h.topics[t.key] != t)
	if err == nil && !late {
		t.stop = stop
	}
	close(t.ready)
	t.h.mu.Unlock()
	if late {
		stop()
	}
}

// active reports whether the subscription delivers events: its watch is
// set up and did not fail.
func (s *subscription) active() bool {
	if s == nil {
		return false
	}
	select {
	case <-s.t.ready:
		return s.t.stop != nil
	default:
		return false
	}
}

// next returns a channel closed at the next event.
func (s *subscription) next() <-chan struct{} {
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	return s.t.gen
}

// granted returns the highest grant the subscription heard, if its token
// is above above: a grant made after the refusal that reported above.
func (s *subscription) granted(above uint64) (driver.Grant, bool) {
	if s == nil {
		return driver.Grant{}, false
	}
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	g := s.t.grant
	return g, g.Acquired && g.Token > above
}

// heard returns the token of the highest grant the subscription heard so
// far, 0 if none.
func (s *subscription) heard() uint64 {
	if s == nil {
		return 0
	}
	s.t.mu.Lock()
	defer s.t.mu.Unlock()
	return s.t.grant.Token
}

// close leaves the subscription. The store's watch stops
// subscriptionLinger after the last waiter left, unless another joined.
func (s *subscription) close() {
	if s == nil {
		return
	}
	t := s.t
	h := t.h
	h.mu.Lock()
	defer h.mu.Unlock()
	t.refs--
	if t.refs == 0 && h.topics[t.key] == t {
		t.idle = time.AfterFunc(subscriptionLinger, t.retire)
	}
}

// retire stops t's watch if it is still unused.
func (t *topic) retire() {
	h := t.h
	h.mu.Lock()
	if t.refs > 0 || h.topics[t.key] != t {
		h.mu.Unlock()
		return
	}
	delete(h.topics, t.key)
	h.mu.Unlock()
	t.unwatch()
}

func (t *topic) unwatch() {
	if t.stop != nil {
		t.stop()
	}
}
