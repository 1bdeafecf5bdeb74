package main

import (
	"context"
	"errors"
	"os"
	"sync"

	"github.com/distlock/distlock/locker"
)

// acquire opens the Store and waits for the lock, giving up at the end of
// --wait or on the first signal. On success it returns the lease and the
// Store, which the caller closes; otherwise the exit status.
func (a *app) acquire(ctx context.Context, f *runFlags, name string, sigs <-chan os.Signal) (*locker.Lease, *locker.Store, int) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopped := make(chan struct{})
	watching := make(chan struct{})
	go func() {
		defer close(watching)
		select {
		case sig := <-sigs:
			cancel(signalled{sig})
		case <-stopped:
		}
	}()
	var stopOnce sync.Once
	stopWatching := func() { stopOnce.Do(func() { close(stopped); <-watching }) }
	defer stopWatching()

	interrupted := func() (int, bool) {
		var s signalled
		if errors.As(context.Cause(ctx), &s) {
			a.errorf("run %s: %v while waiting for the lock", name, s)
			return exitStatusFor(s.sig), true
		}
		return 0, false
	}

	store, code := f.open(ctx, a)
	if code != exitOK {
		if sc, ok := interrupted(); ok {
			return nil, nil, sc
		}
		return nil, nil, code
	}
	opts := []locker.MutexOption{locker.WithWatchdogLease(f.watchdog)}
	if f.label != "" {
		opts = append(opts, locker.WithLabel(f.label))
	}
	m, err := f.kind().open(store, name, opts...)
	if err != nil {
		store.Close()
		a.errorf("%v", err)
		return nil, nil, exitUsage
	}
	if code := a.probe(ctx, f, m); code != exitOK {
		store.Close()
		if sc, ok := interrupted(); ok {
			return nil, nil, sc
		}
		return nil, nil, code
	}
	f.logf(a, "waiting for lock %q", name)
	lease, err := m.take(ctx, f.lockOptions()...)
	// From here on supervise reads the signals; one that came before is
	// seen by interrupted.
	stopWatching()
	if sc, ok := interrupted(); ok {
		if err == nil {
			a.release(lease, name, f)
		}
		store.Close()
		return nil, nil, sc
	}
	if err != nil {
		store.Close()
		a.errorf("%v", err)
		switch {
		case errors.Is(err, locker.ErrNotAcquired):
			return nil, nil, exitNotAcquired
		case errors.Is(err, locker.ErrInvalid):
			return nil, nil, exitUsage
		}
		return nil, nil, exitUnavailable
	}
	f.logf(a, "acquired lock %q with token %d", name, lease.Token())
	return lease, store, exitOK
}

// logf reports progress on stderr when --verbose is given.
func (f *runFlags) logf(a *app, format string, args ...any) {
	if f.verbose {
		a.errorf(format, args...)
	}
}

// release unlocks lease within --timeout and reports whether the store
// still held it for us when CMD finished. A failure to reach the store is
// reported but is not a loss: the lock then ends with its lease.
func (a *app) release(lease *locker.Lease, name string, f *runFlags) (stillHeld bool) {
	ctx, cancel := context.WithTimeout(context.Background(), f.timeout)
	defer cancel()
	err := lease.Unlock(ctx)
	switch {
	case err == nil:
		f.logf(a, "released lock %q", name)
		return true
	case errors.Is(err, locker.ErrLost), errors.Is(err, locker.ErrNotHeld):
		return false
	}
	a.errorf("warning: releasing the lock: %v (it ends with its lease)", err)
	return true
}

// probe checks, within --timeout, that the store answers before the wait
// begins: some clients (etcd's) wait for a connection as long as their
// context lasts, and the wait for the lock may have no end. Stores that
// cannot be inspected are not probed: their Inspect fails at once, without
// a call to the store.
func (a *app) probe(ctx context.Context, f *runFlags, m lock) int {
	ctx, cancel := context.WithTimeout(ctx, f.timeout)
	defer cancel()
	if _, err := m.inspect(ctx); err != nil {
		switch {
		case errors.Is(err, errors.ErrUnsupported):
			return exitOK
		case errors.Is(err, locker.ErrInvalid):
			// The store answered: it is misconfigured (a wrong password,
			// a TLS mismatch), which no retry fixes.
			a.errorf("%v", err)
			return exitUsage
		}
		a.errorf("cannot reach the lock store: %v", err)
		return exitUnavailable
	}
	return exitOK
}
