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
	{"concurrency.Mutex", func(a []string, k string) (handle, error) { return openEtcdMutex(a, k, false) }},
	{"concurrency.Mutex, session per lock", func(a []string, k string) (handle, error) { return openEtcdMutex(a, k, true) }},
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

// etcdMutexHandle is etcd's own concurrency.Mutex, in its usual form (one
// session, and so one lease kept alive, for every lock of the client) or
// with a session per lock, which like distlock gives each hold a lease of
// its own.
type etcdMutexHandle struct {
	cli        *clientv3.Client
	key        string
	perLock    bool
	session    *concurrency.Session
	sharedLock *concurrency.Mutex
}

func openEtcdMutex(addrs []string, key string, perLock bool) (handle, error) {
	cli, err := newEtcdClient(addrs[0])
	if err != nil {
		return nil, err
	}
	h := &etcdMutexHandle{cli: cli, key: "/" + key, perLock: perLock}
	if !perLock {
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
	if !h.perLock {
		if err := h.sharedLock.Lock(ctx); err != nil {
			return nil, err
		}
		return h.sharedLock.Unlock, nil
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
