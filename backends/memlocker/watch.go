package memlocker

import "sync"

// watcher is one Watch registration.
type watcher struct {
	fn      func()
	mu      sync.Mutex
	stopped bool
}

// call runs fn unless the watcher was stopped; stop waits for a call in
// progress, so fn never runs after stop returns.
func (w *watcher) call() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.stopped {
		w.fn()
	}
}

func (w *watcher) stop() {
	w.mu.Lock()
	w.stopped = true
	w.mu.Unlock()
}

// watchersOf returns a snapshot of key's watchers. s.mu must be held.
func (s *Store) watchersOf(key string) []*watcher {
	ws := make([]*watcher, 0, len(s.watchers[key]))
	for w := range s.watchers[key] {
		ws = append(ws, w)
	}
	return ws
}

// notify calls the watchers, outside the store's lock.
func notify(ws []*watcher) {
	for _, w := range ws {
		w.call()
	}
}

func (s *Store) addWatcher(key string, w *watcher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watchers[key] == nil {
		s.watchers[key] = make(map[*watcher]struct{})
	}
	s.watchers[key][w] = struct{}{}
}

func (s *Store) removeWatcher(key string, w *watcher) {
	s.mu.Lock()
	delete(s.watchers[key], w)
	if len(s.watchers[key]) == 0 {
		delete(s.watchers, key)
	}
	s.mu.Unlock()
	w.stop()
}
