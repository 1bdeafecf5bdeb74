package locker

import (
	"context"
	"errors"
)

// Context returns a context derived from parent that is cancelled when the
// hold ends: context.Cause then returns the reason, ErrReleased after
// Unlock or an error wrapping ErrLost when the lock was lost. Work that
// must stop when the lock goes should run under it. Call the returned
// cancel function when the work is done, as with context.WithCancel; it
// cancels the context with context.Canceled.
func (l *Lease) Context(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	l.mu.Lock()
	if l.err != nil {
		err := l.err
		l.mu.Unlock()
		cancel(err)
		return ctx, func() { cancel(context.Canceled) }
	}
	id := l.nextWatcher
	l.nextWatcher++
	if l.watchers == nil {
		l.watchers = make(map[int]context.CancelCauseFunc)
	}
	l.watchers[id] = cancel
	l.mu.Unlock()
	return ctx, func() {
		l.mu.Lock()
		delete(l.watchers, id)
		l.mu.Unlock()
		cancel(context.Canceled)
	}
}

// Do takes the lock as Lock does, runs fn with a context that ends when the
// hold ends (see Lease.Context), and unlocks, also when fn panics (the
// panic then goes on). It returns the error of the lock call, or fn's
// error joined with Unlock's: an error wrapping ErrLost among them means
// the lock was lost while fn ran, and fn's context was cancelled then. The
// unlock is made even when ctx has ended by then, within the same grace
// as a failed call's cleanup.
func (m *Mutex) Do(ctx context.Context, fn func(ctx context.Context) error, opts ...LockOption) error {
	if fn == nil {
		return opError("do", m.Name(), invalid("nil function"))
	}
	l, err := m.Lock(ctx, opts...)
	if err != nil {
		return err
	}
	unlock := func() error {
		uctx, cancel := graced(ctx)
		defer cancel()
		return l.Unlock(uctx)
	}
	lctx, cancel := l.Context(ctx)
	done := false
	defer func() {
		cancel()
		if !done {
			_ = unlock()
		}
	}()
	ferr := fn(lctx)
	cancel()
	done = true
	return errors.Join(ferr, unlock())
}
