package memlocker

import "github.com/distlock/distlock/locker"

// turn names the reservations of a key for one owner, which WatchTurn
// watches.
type turn struct {
	key, owner string
}

// turnWatchersOf returns a snapshot of t's watchers. s.mu must be held.
func (s *Store) turnWatchersOf(t turn) []*locker.Callback {
	ws := make([]*locker.Callback, 0, len(s.turnWatchers[t]))
	for w := range s.turnWatchers[t] {
		ws = append(ws, w)
	}
	return ws
}

func (s *Store) addTurnWatcher(t turn, w *locker.Callback) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.turnWatchers[t] == nil {
		s.turnWatchers[t] = make(map[*locker.Callback]struct{})
	}
	s.turnWatchers[t][w] = struct{}{}
}

func (s *Store) removeTurnWatcher(t turn, w *locker.Callback) {
	s.mu.Lock()
	delete(s.turnWatchers[t], w)
	if len(s.turnWatchers[t]) == 0 {
		delete(s.turnWatchers, t)
	}
	s.mu.Unlock()
	w.Stop()
}
