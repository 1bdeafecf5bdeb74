package etcdlocker

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/distlock/distlock/driver"
)

// watchStartTimeout bounds how long Watch waits for etcd to confirm the
// watch, whatever the caller's context says: a waiter whose Watch fails
// polls instead.
const watchStartTimeout = 5 * time.Second

// rewatchDelay is the pause before a watch that ended is started again.
const rewatchDelay = 100 * time.Millisecond

// watchTarget is what an etcd watch follows: one etcd key, a mutex's, or
// every key under a prefix, a shared lock's.
type watchTarget struct {
	key    string
	prefix bool
}

// keyWatch is the one etcd watch of a target, shared by every Watch call on
// it.
type keyWatch struct {
	target watchTarget
	cancel context.CancelFunc
	done   chan struct{} // closed when run returns
	ready  chan struct{} // closed when the first watch is confirmed, or failed
	err    error         // set before ready closes: why it failed

	mu   sync.Mutex
	subs map[*driver.Callback]struct{}
}

// Watch implements driver.Notifier. One etcd watch per key serves all of the
// backend's watchers of that key; it reports deletions (releases, expiries,
// force unlocks). When the watch has to be started again (the server
// cancelled it, or history it needed was compacted), every watcher is
// called once, since a release may have been missed. Watch returns once
// etcd has confirmed the watch, or fails after 5 s (or when ctx ends)
// without one. fn runs on the watch's goroutine: it must not block, nor
// call stop.
func (b *Backend) Watch(ctx context.Context, key string, fn func()) (func(), error) {
	if err := driver.CheckKey(key); err != nil {
		return nil, err
	}
	return b.watch(ctx, watchTarget{key: b.etcdKey(key)}, fn)
}

// watch is Watch on target, whose deletions call fn.
func (b *Backend) watch(ctx context.Context, target watchTarget, fn func()) (func(), error) {
	if fn == nil {
		return nil, driver.Invalid("nil callback")
	}
	if err := b.guard.Enter(); err != nil {
		return nil, err
	}
	defer b.guard.Exit()
	s := driver.NewCallback(fn)
	b.mu.Lock()
	w := b.watches[target]
	if w == nil {
		wctx, cancel := context.WithCancel(context.Background())
		w = &keyWatch{
			target: target,
			cancel: cancel,
			done:   make(chan struct{}),
			ready:  make(chan struct{}),
			subs:   make(map[*driver.Callback]struct{}),
		}
		b.watches[target] = w
		go b.run(wctx, w)
	}
	w.mu.Lock()
	w.subs[s] = struct{}{}
	w.mu.Unlock()
	b.mu.Unlock()

	var once sync.Once
	stop := func() { once.Do(func() { b.unsubscribe(w, s) }) }

	timer := time.NewTimer(watchStartTimeout)
	defer timer.Stop()
	select {
	case <-w.ready:
		if w.err != nil {
			stop()
			return nil, failed(w.err)
		}
		return stop, nil
	case <-ctx.Done():
		stop()
		return nil, failed(ctx.Err())
	case <-b.guard.Halted():
		// Close is waiting for this call: the watch would end with it.
		stop()
		return nil, driver.ErrClosed
	case <-timer.C:
		stop()
		return nil, failed(fmt.Errorf("etcd did not confirm the watch within %v", watchStartTimeout))
	}
}

// unsubscribe removes s from w, and stops w with its last subscriber.
func (b *Backend) unsubscribe(w *keyWatch, s *driver.Callback) {
	s.Stop()

	b.mu.Lock()
	w.mu.Lock()
	delete(w.subs, s)
	last := len(w.subs) == 0
	w.mu.Unlock()
	if last && b.watches != nil && b.watches[w.target] == w {
		delete(b.watches, w.target)
	}
	b.mu.Unlock()
	if last {
		w.cancel()
		<-w.done
	}
}

// notify calls every subscriber of w.
func (w *keyWatch) notify() {
	w.mu.Lock()
	subs := make([]*driver.Callback, 0, len(w.subs))
	for s := range w.subs {
		subs = append(subs, s)
	}
	w.mu.Unlock()
	for _, s := range subs {
		s.Call()
	}
}

// run keeps an etcd watch on w's target until ctx ends, calling the
// subscribers on every deletion.
func (b *Backend) run(ctx context.Context, w *keyWatch) {
	defer close(w.done)
	readyOnce := sync.OnceFunc(func() { close(w.ready) })
	confirmed := false
	defer func() {
		if !confirmed && w.err == nil {
			w.err = errors.New("the watch stopped before etcd confirmed it")
		}
		readyOnce()
	}()
	opts := []clientv3.OpOption{clientv3.WithFilterPut(), clientv3.WithCreatedNotify()}
	if w.target.prefix {
		opts = append(opts, clientv3.WithPrefix())
	}
	for {
		// A context per watch, so that a watch left after an error is
		// cancelled before the next one starts.
		wctx, cancel := context.WithCancel(ctx)
		wch := b.cli.Watch(wctx, w.target.key, opts...)
		b.follow(wch, w, &confirmed, readyOnce)
		cancel()
		if ctx.Err() != nil {
			return
		}
		if err := b.cli.Ctx().Err(); err != nil {
			if !confirmed {
				w.err = errors.New("the etcd client is closed")
				readyOnce()
			}
			// The client is closed: no watch can start again, and waiters
			// fall back to their safety-net polling.
			w.notify()
			<-ctx.Done()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(rewatchDelay):
		}
	}
}

// follow delivers one watch's responses until it ends: the first creation
// confirms the watch, later ones (after the watch had to start again) and
// deletions call the subscribers.
func (b *Backend) follow(wch clientv3.WatchChan, w *keyWatch, confirmed *bool, ready func()) {
	for resp := range wch {
		if resp.Created {
			if *confirmed {
				// A new watch after the old one ended: releases in the gap
				// may have been missed.
				w.notify()
			}
			*confirmed = true
			ready()
			continue
		}
		if resp.Canceled || resp.Err() != nil {
			return
		}
		if len(resp.Events) > 0 {
			w.notify()
		}
	}
}
