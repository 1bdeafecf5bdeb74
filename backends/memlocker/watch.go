package memlocker

import "github.com/distlock/distlock/locker"

// watchersOf returns a snapshot of key's watchers. s.mu must be held.
func (s *Store) watchersOf(key string) []*locker.Callback {
	ws := make([]*locker.Callback, 0, len(s.watchers[key]))
	for w := range s.watchers[key] {
		ws = append(ws, w)
	}
	return ws
}

// notify calls the watchers, outside the store's lock.
func notify(ws []*locker.Callback) {
	for _, w := range ws {
		w.Call()
	}
}

func (s *Store) addWatcher(key string, w *locker.Callback) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.watchers[key] == nil {
		s.watchers[key] = make(map[*locker.Callback]struct{})
	}
	s.watchers[key][w] = struct{}{}
}

func (s *Store) removeWatcher(key string, w *locker.Callback) {
	s.mu.Lock()
	delete(s.watchers[key], w)
	if len(s.watchers[key]) == 0 {
		delete(s.watchers, key)
	}
	s.mu.Unlock()
	w.Stop()
}
