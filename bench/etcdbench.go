package main

import (
	"context"
	"fmt"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"

	"github.com/distlock/distlock/backends/etcdlocker"
	"github.com/distlock/distlock/locker"
)

// etcdImpls are the etcd locks, distlock first. addrs holds the one etcd
// endpoint.
var etcdImpls = []implementation{
	{"distlock etcd", openDistlockEtcd},
	{"concurrency.Mutex", func(a []string, k string) (handle, error) { return openEtcdMutex(a, k, sharedSession) }},
	{"concurrency.Mutex, session per lock", func(a []string, k string) (handle, error) { return openEtcdMutex(a, k, sessionPerLock) }},
	{"concurrency.Mutex, calls that can be ended", func(a []string, k string) (handle, error) { return openEtcdMutex(a, k, endableCalls) }},
}

// distlockEtcdHandle is a locker.Mutex from a Store over etcdlocker, with
// a fixed lease.
type distlockEtcdHandle struct {
	cli   *clientv3.Client
	store *locker.Store
	m     *locker.Mutex
}

func openDistlockEtcd(addrs []string, key string) (handle, error) {
	cli, err := newEtcdClient(addrs[0])
	if err != nil {
		return nil, err
	}
	b, err := etcdlocker.New(cli)
	if err != nil {
		_ = cli.Close()
		return nil, err
	}
	store := locker.NewStore(b)
	m, err := store.Mutex(key)
	if err != nil {
		_ = store.Close()
		_ = cli.Close()
		return nil, err
	}
	return &distlockEtcdHandle{cli: cli, store: store, m: m}, nil
}

func (h *distlockEtcdHandle) acquire(ctx context.Context) (func(context.Context) error, error) {
	l, err := h.m.Lock(ctx, locker.WithLease(benchLease))
	if err != nil {
		return nil, err
	}
	return l.Unlock, nil
}

func (h *distlockEtcdHandle) warm(ctx context.Context) error {
	_, err := h.cli.Get(ctx, "warm")
	return err
}

func (h *distlockEtcdHandle) close() {
	_ = h.store.Close()
	_ = h.cli.Close()
}

// etcdMutexForm is how the benchmark uses concurrency.Mutex.
type etcdMutexForm int

const (
	// sharedSession is its usual form: one session, and so one lease kept
	// alive, for every lock of the client.
	sharedSession etcdMutexForm = iota
	// sessionPerLock gives each hold a lease of its own, as distlock does.
	sessionPerLock
	// endableCalls is sharedSession with each Lock and Unlock on a context
	// that can end (context.WithCancel of the caller's), as a call must be
	// for anything to end it: distlock ends every etcd call at its call
	// timeout or when the backend closes, and the caller's context here has
	// no deadline.
	endableCalls
)

// etcdMutexHandle is etcd's own concurrency.Mutex, in one of its forms.
type etcdMutexHandle struct {
	cli        *clientv3.Client
	key        string
	form       etcdMutexForm
	session    *concurrency.Session
	sharedLock *concurrency.Mutex
}

func openEtcdMutex(addrs []string, key string, form etcdMutexForm) (handle, error) {
	cli, err := newEtcdClient(addrs[0])
	if err != nil {
		return nil, err
	}
	h := &etcdMutexHandle{cli: cli, key: "/" + key, form: form}
	if form != sessionPerLock {
		s, err := concurrency.NewSession(cli, concurrency.WithTTL(int(benchLease.Seconds())))
		if err != nil {
			_ = cli.Close()
			return nil, fmt.Errorf("etcd session: %w", err)
		}
		h.session, h.sharedLock = s, concurrency.NewMutex(s, h.key)
	}
	return h, nil
}

func (h *etcdMutexHandle) acquire(ctx context.Context) (func(context.Context) error, error) {
	switch h.form {
	case sharedSession:
		if err := h.sharedLock.Lock(ctx); err != nil {
			return nil, err
		}
		return h.sharedLock.Unlock, nil
	case endableCalls:
		if err := endable(ctx, h.sharedLock.Lock); err != nil {
			return nil, err
		}
		return func(ctx context.Context) error { return endable(ctx, h.sharedLock.Unlock) }, nil
	}
	s, err := concurrency.NewSession(h.cli, concurrency.WithTTL(int(benchLease.Seconds())))
	if err != nil {
		return nil, fmt.Errorf("etcd session: %w", err)
	}
	m := concurrency.NewMutex(s, h.key)
	if err := m.Lock(ctx); err != nil {
		_ = s.Close()
		return nil, err
	}
	return func(ctx context.Context) error {
		err := m.Unlock(ctx)
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		return err
	}, nil
}

// endable runs call on a context of ctx that can end, and ends it after.
func endable(ctx context.Context, call func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	return call(ctx)
}

func (h *etcdMutexHandle) warm(ctx context.Context) error {
	_, err := h.cli.Get(ctx, "warm")
	return err
}

func (h *etcdMutexHandle) close() {
	if h.session != nil {
		_ = h.session.Close()
	}
	_ = h.cli.Close()
}
