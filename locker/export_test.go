package locker

// WaitCleanups waits for the background cleanups in progress of the Store
// and of the Stores over its views.
func (s *Store) WaitCleanups() {
	s.mu.Lock()
	views := make([]*Store, 0, len(s.views))
	for _, v := range s.views {
		views = append(views, v)
	}
	s.mu.Unlock()
	for _, v := range views {
		v.WaitCleanups()
	}
	s.cleanups.Wait()
}
