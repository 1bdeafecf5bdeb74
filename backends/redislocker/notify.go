package redislocker

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/distlock/driver"
)

// subscribeTimeout bounds a SUBSCRIBE or UNSUBSCRIBE sent for a watcher.
const subscribeTimeout = 5 * time.Second

// Watch implements driver.Notifier. fn is called at every release of key
// (Unlock's last hold, ForceUnlock), and also each time the subscription
// becomes active: once soon after Watch, and again after every
// reconnection, since releases may have been missed while it was down.
// A lease that simply runs out publishes nothing; waiters bound their
// sleep by the holder's remaining lease for that. A release that hands the
// lock to a waiter in its queue tells only that waiter (WatchTurn).
//
// All watchers of a backend share one pub/sub connection (on a Cluster, one
// per hash slot in use, subscribed with SSUBSCRIBE). fn must not block and
// must not call stop; after stop returns, fn is not called again.
func (b *Backend) Watch(ctx context.Context, key string, fn func()) (stop func(), err error) {
	if err := driver.CheckKey(key); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, driver.Invalid("nil callback")
	}
	k := b.keys(key)
	return b.watchChannel(ctx, k.channel, k.slot, driver.NewCallback(fn))
}

// watchChannel subscribes w to channel, whose hash tag is in slot.
func (b *Backend) watchChannel(ctx context.Context, channel string, slot int, w *driver.Callback) (stop func(), err error) {
	// A subscription waits on its connection and on the subscriber's
	// order: bound to Close, so that Close does not wait that out.
	ctx, call, err := b.guard.Start(ctx, 0)
	if err != nil {
		return nil, err
	}
	defer call.End()
	if b.cluster == nil {
		slot = 0
	}
	stop, err = b.notify.watch(ctx, channel, slot, w)
	if err != nil && err != driver.ErrClosed {
		return nil, fmt.Errorf("redislocker: %w", err)
	}
	return stop, err
}

// notifier serves every Watch of a backend: one subscriber on a standalone
// server, one per hash slot in use on a Cluster.
type notifier struct {
	b *Backend
	// opMu orders the subscribe and unsubscribe commands and the birth and
	// death of subscribers, so they reach each connection in the order the
	// watcher sets changed.
	// It is a channel, not a sync.Mutex, so that a Watch waiting for it
	// gives up when its context ends.
	opMu chan struct{}
	// pending counts the goroutines of stopped watches (see unwatch).
	pending sync.WaitGroup
	// mu guards subs, closed and every subscriber's channels.
	mu     sync.RWMutex
	subs   map[int]*subscriber
	closed bool
}

func newNotifier(b *Backend) *notifier {
	return &notifier{b: b, opMu: make(chan struct{}, 1), subs: make(map[int]*subscriber)}
}

func (n *notifier) watch(ctx context.Context, channel string, slot int, w *driver.Callback) (func(), error) {
	select {
	case n.opMu <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer n.unlockOps()
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return nil, driver.ErrClosed
	}
	sub := n.subs[slot]
	if sub == nil {
		sub = newSubscriber(n, slot)
		n.subs[slot] = sub
	}
	ws := sub.channels[channel]
	first := ws == nil
	if first {
		ws = make(map[*driver.Callback]struct{})
		sub.channels[channel] = ws
	}
	ws[w] = struct{}{}
	n.mu.Unlock()

	if first {
		// A failure here is a connection problem; the subscriber's loop
		// reconnects and resubscribes, and the confirmation calls fn. The
		// caller's context bounds it, as every call: the subscription is
		// registered either way.
		sctx, cancel := context.WithTimeout(ctx, subscribeTimeout)
		sub.subscribe(sctx, channel)
		cancel()
	}
	sub.start()
	return sync.OnceFunc(func() { n.unwatch(sub, channel, w) }), nil
}

// lockOps takes opMu, waiting as long as it takes.
func (n *notifier) lockOps() { n.opMu <- struct{}{} }

func (n *notifier) unlockOps() { <-n.opMu }

// unwatch stops w at once, so fn is not called after stop returns, and
// leaves the bookkeeping and the UNSUBSCRIBE to a goroutine: stop takes no
// context, and a store that does not answer must not hold its caller.
// Whenever the goroutine runs it decides from the watcher sets as they are
// then, under opMu, so a Watch of the same channel meanwhile keeps its
// subscription. close waits for these goroutines.
func (n *notifier) unwatch(sub *subscriber, channel string, w *driver.Callback) {
	w.Stop()
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.closed { // closing: close ends the subscribers anyway
		n.pending.Go(func() { n.forget(sub, channel, w) })
	}
}

// forget takes w out of sub's watchers of channel, and unsubscribes the
// channel, or retires sub, when nobody watches it any more.
func (n *notifier) forget(sub *subscriber, channel string, w *driver.Callback) {
	n.lockOps()
	defer n.unlockOps()
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		return
	}
	ws := sub.channels[channel]
	delete(ws, w)
	last := ws != nil && len(ws) == 0
	if last {
		delete(sub.channels, channel)
	}
	// On a Cluster, a slot nobody watches gives up its connection; the
	// standalone subscriber stays for the next waiter.
	retire := n.b.cluster != nil && len(sub.channels) == 0 && n.subs[sub.slot] == sub
	if retire {
		delete(n.subs, sub.slot)
	}
	n.mu.Unlock()
	switch {
	case retire:
		sub.close()
	case last:
		ctx, cancel := context.WithTimeout(context.Background(), subscribeTimeout)
		sub.unsubscribe(ctx, channel)
		cancel()
	}
}

// fire calls the watchers of channel, telling them t.
func (n *notifier) fire(sub *subscriber, channel string, t driver.Turn) {
	n.mu.RLock()
	ws := make([]*driver.Callback, 0, len(sub.channels[channel]))
	for w := range sub.channels[channel] {
		ws = append(ws, w)
	}
	n.mu.RUnlock()
	for _, w := range ws {
		w.Tell(t)
	}
}

// unsolicited records an unsubscribe confirmation for channel and reports
// whether the server dropped a channel that still has watchers, rather than
// confirming an unsubscribe of ours.
func (n *notifier) unsolicited(sub *subscriber, channel string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if sub.unsubscribing[channel] > 0 {
		sub.unsubscribing[channel]--
		if sub.unsubscribing[channel] == 0 {
			delete(sub.unsubscribing, channel)
		}
		return false
	}
	return len(sub.channels[channel]) > 0
}

// channelsOf lists sub's channels.
func (n *notifier) channelsOf(sub *subscriber) []string {
	n.mu.RLock()
	defer n.mu.RUnlock()
	chs := make([]string, 0, len(sub.channels))
	for ch := range sub.channels {
		chs = append(chs, ch)
	}
	return chs
}

// close stops every subscriber and waits for their goroutines. Watchers
// are not called after it returns. It marks the notifier closed first, so
// that no stopped watch starts a goroutine, and waits for those running,
// which then see it closed; a Watch under way holds opMu and has put its
// subscriber in subs by the time close takes opMu.
func (n *notifier) close() {
	n.mu.Lock()
	n.closed = true
	n.mu.Unlock()
	n.pending.Wait()
	n.lockOps()
	defer n.unlockOps()
	n.mu.Lock()
	subs := n.subs
	n.subs = nil
	n.mu.Unlock()
	for _, sub := range subs {
		sub.close()
	}
}

// newPubSub returns an unconnected pub/sub of the backend's client.
func (n *notifier) newPubSub() *redis.PubSub {
	if n.b.cluster != nil {
		return n.b.cluster.SSubscribe(context.Background())
	}
	return n.b.client.Subscribe(context.Background())
}
