package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/distlock/distlock/locker"
)

// kind says which of the store's locks NAME is: a mutex, a read-write lock
// or a semaphore. The three are apart: one NAME names three locks.
type kind struct {
	rw      bool // a read-write lock
	read    bool // run: its read hold (else its write hold)
	permits int  // a semaphore of this many permits; 0: not one
}

// registerInspect adds the flags that pick the lock of status and unlock.
func (k *kind) registerInspect(fs *flag.FlagSet) {
	fs.BoolVar(&k.rw, "rw", false, "NAME is a read-write lock (as taken by run --read and --write)")
	fs.IntVar(&k.permits, "permits", 0, "NAME is a semaphore of `N` permits (as taken by run --permits N)")
}

// problem returns what is wrong with the flags, or nil.
func (k *kind) problem() error {
	switch {
	case k.permits < 0:
		return fmt.Errorf("--permits %d: a semaphore has at least one permit", k.permits)
	case k.rw && k.permits > 0:
		return errors.New("a read-write lock (--read, --write, --rw) and a semaphore (--permits) exclude each other")
	}
	return nil
}

// lock is NAME as a command uses it.
type lock struct {
	inspect func(context.Context) (locker.State, error)
	force   func(context.Context) (bool, error)
	// take waits for a hold: the read or write hold of a read-write lock,
	// one permit of a semaphore.
	take func(context.Context, ...locker.LockOption) (*locker.Lease, error)
}

// open returns the lock k names on store.
func (k kind) open(store *locker.Store, name string, opts ...locker.MutexOption) (lock, error) {
	switch {
	case k.rw:
		rw, err := store.RWMutex(name, opts...)
		if err != nil {
			return lock{}, err
		}
		l := lock{inspect: rw.Inspect, force: rw.ForceUnlock, take: rw.Lock}
		if k.read {
			l.take = rw.RLock
		}
		return l, nil
	case k.permits > 0:
		sem, err := store.Semaphore(name, k.permits, opts...)
		if err != nil {
			return lock{}, err
		}
		return lock{inspect: sem.Inspect, force: sem.ForceUnlock, take: func(ctx context.Context, o ...locker.LockOption) (*locker.Lease, error) {
			return sem.Acquire(ctx, 1, o...)
		}}, nil
	}
	m, err := store.Mutex(name, opts...)
	if err != nil {
		return lock{}, err
	}
	return lock{inspect: m.Inspect, force: m.ForceUnlock, take: m.Lock}, nil
}
