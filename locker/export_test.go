package locker

// WaitCleanups waits for the Store's background cleanups in progress.
func (s *Store) WaitCleanups() { s.cleanups.Wait() }
