package memlocker

import (
	"context"
	"sync"

	"github.com/distlock/distlock/driver"
)

// watched is what a watcher hears of: the releases of key (owner "",
// Watch) or its grants to owner (WatchTurn), in the namespace of
// the mutexes or of a kind of shared lock (see Client.Share).
type watched struct {
	space      space
	key, owner string
}

// Watch implements driver.Notifier. While the client is partitioned its
// watchers hear nothing; when it heals they are all called, as after a
// reconnection.
func (c *Client) Watch(ctx context.Context, key string, fn func()) (func(), error) {
	if err := driver.CheckKey(key); err != nil {
		return nil, err
	}
	return c.watchReleases(ctx, watched{key: key}, fn)
}

// watchReleases registers fn as a watcher of releases, of a mutex or of a
// shared lock.
func (c *Client) watchReleases(ctx context.Context, what watched, fn func()) (func(), error) {
	if fn == nil {
		return nil, driver.Invalid("nil callback")
	}
	return c.watch(ctx, "watch", what, func(driver.Turn) { fn() })
}

// watch registers fn, not nil, as a watcher of what with the store. The
// watcher is registered inside the call, so Close, which waits for calls in
// flight, finds it and stops it.
func (c *Client) watch(ctx context.Context, op string, what watched, fn func(driver.Turn)) (func(), error) {
	w := driver.NewTurnsCallback(func(t driver.Turn) {
		if !c.isPartitioned() {
			fn(t)
		}
	})
	err := c.call(ctx, op, func() {
		c.mu.Lock()
		c.watchers[w] = what
		c.mu.Unlock()
		c.store.addWatcher(what, w)
	})
	if err != nil {
		return nil, err
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			delete(c.watchers, w)
			c.mu.Unlock()
			c.store.removeWatcher(what, w)
		})
	}, nil
}

// watchersOf returns a snapshot of the watchers of what. s.mu must be held.
func (s *Store) watchersOf(what watched) []*driver.Callback {
	ws := make([]*driver.Callback, 0, len(s.watchers[what]))
	for w := range s.watchers[what] {
		ws = append(ws, w)
	}
	return ws
}

// notify calls the watchers, outside the store's lock.
func notify(ws []*driver.Callback) {
	for _, w := range ws {
		w.Call()
	}
}

func (s *Store) addWatcher(what watched, w *driver.Callback) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watchers[what] == nil {
		s.watchers[what] = make(map[*driver.Callback]struct{})
	}
	s.watchers[what][w] = struct{}{}
}

func (s *Store) removeWatcher(what watched, w *driver.Callback) {
	s.mu.Lock()
	delete(s.watchers[what], w)
	if len(s.watchers[what]) == 0 {
		delete(s.watchers, what)
	}
	s.mu.Unlock()
	w.Stop()
}
