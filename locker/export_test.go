package locker

// WaitCleanups waits for the background cleanups in progress.
func WaitCleanups() { cleanups.Wait() }
