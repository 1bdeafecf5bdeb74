package memlocker

import "github.com/distlock/distlock/driver"

// watched is what a watcher hears of: the releases of key (owner "",
// Watch) or its reservations for owner (WatchTurn).
type watched struct {
	key, owner string
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
