package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	redsyncredis "github.com/go-redsync/redsync/v4/redis"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis/rueidislock"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/redlock"
)

// benchLease is the lease every implementation takes.
const benchLease = 10 * time.Second

// handle is one client's lock on one key, as a library under test offers
// it. acquire waits for the lock until ctx ends and returns the function
// that releases it.
type handle interface {
	acquire(ctx context.Context) (release func(context.Context) error, err error)
	// warm makes the client connect, so that dialling is not measured.
	warm(ctx context.Context) error
	close()
}

// implementation makes handles for one library: each handle on new clients
// of the servers at addrs.
type implementation struct {
	name string
	open func(addrs []string, key string) (handle, error)
}

// redisImpls are the single-Redis implementations, distlock first.
var redisImpls = []implementation{
	{"distlock", func(a []string, k string) (handle, error) { return openDistlock(a, k, false) }},
	{"redsync", openRedsync},
	{"redislock", openRedislock},
	{"rueidislock", openRueidislock},
}

// redlockImpls are the implementations of RedLock over several Redis
// servers, distlock first.
var redlockImpls = []implementation{
	{"distlock redlock", func(a []string, k string) (handle, error) { return openDistlock(a, k, false) }},
	{"redsync", openRedsync},
}

// watchdogImpl is distlock with a renewed (watchdog) lease instead of a
// fixed one, the mode rueidislock always runs in.
var watchdogImpl = implementation{"distlock watchdog", func(a []string, k string) (handle, error) { return openDistlock(a, k, true) }}

// distlockHandle is a locker.Mutex from a Store over one Redis
// (redislocker) or a RedLock of several.
type distlockHandle struct {
	m       *locker.Mutex
	store   *locker.Store
	clients []*redis.Client
	opts    []locker.LockOption
}

func openDistlock(addrs []string, key string, watchdog bool) (handle, error) {
	h := &distlockHandle{}
	var members []driver.Backend
	for _, a := range addrs {
		c := newRedisClient(a)
		b, err := redislocker.New(c, redislocker.WithOwnedClient())
		if err != nil {
			return nil, err
		}
		h.clients = append(h.clients, c)
		members = append(members, b)
	}
	d := members[0]
	if len(members) > 1 {
		// The servers have just started: the restart guard would keep
		// every member out of the quorum for its first 30 s. redsync has
		// no guard; the guard costs nothing per attempt.
		rl, err := redlock.New(members, combine.WithRestartGuard(0))
		if err != nil {
			return nil, err
		}
		d = rl
	}
	h.store = locker.NewStore(d)
	m, err := h.store.Mutex(key, locker.WithWatchdogLease(benchLease))
	if err != nil {
		_ = h.store.Close()
		return nil, err
	}
	h.m = m
	if !watchdog {
		h.opts = []locker.LockOption{locker.WithLease(benchLease)}
	}
	return h, nil
}

func (h *distlockHandle) acquire(ctx context.Context) (func(context.Context) error, error) {
	l, err := h.m.Lock(ctx, h.opts...)
	if err != nil {
		return nil, err
	}
	return l.Unlock, nil
}

func (h *distlockHandle) warm(ctx context.Context) error { return pingAll(ctx, h.clients) }
func (h *distlockHandle) close()                         { _ = h.store.Close() }

// redsyncHandle is a redsync Mutex: one attempt per try, tries without
// limit, its default retry delay (random, 50–250 ms).
type redsyncHandle struct {
	m       *redsync.Mutex
	clients []*redis.Client
}

func openRedsync(addrs []string, key string) (handle, error) {
	h := &redsyncHandle{}
	var pools []redsyncredis.Pool
	for _, a := range addrs {
		c := newRedisClient(a)
		h.clients = append(h.clients, c)
		pools = append(pools, goredis.NewPool(c))
	}
	h.m = redsync.New(pools...).NewMutex(key, redsync.WithExpiry(benchLease), redsync.WithTries(math.MaxInt32))
	return h, nil
}

func (h *redsyncHandle) acquire(ctx context.Context) (func(context.Context) error, error) {
	if err := h.m.LockContext(ctx); err != nil {
		return nil, err
	}
	return func(ctx context.Context) error {
		ok, err := h.m.UnlockContext(ctx)
		if err == nil && !ok {
			err = errors.New("redsync: unlock found the lock gone")
		}
		return err
	}, nil
}

func (h *redsyncHandle) warm(ctx context.Context) error { return pingAll(ctx, h.clients) }
func (h *redsyncHandle) close() {
	for _, c := range h.clients {
		_ = c.Close()
	}
}

// redislockHandle is a bsm/redislock client retrying with its exponential
// backoff from 16 ms (the minimum its documentation recommends) to 256 ms.
type redislockHandle struct {
	c      *redislock.Client
	client *redis.Client
	key    string
}

func openRedislock(addrs []string, key string) (handle, error) {
	c := newRedisClient(addrs[0])
	return &redislockHandle{c: redislock.New(c), client: c, key: key}, nil
}

func (h *redislockHandle) acquire(ctx context.Context) (func(context.Context) error, error) {
	l, err := h.c.Obtain(ctx, h.key, benchLease, &redislock.Options{
		RetryStrategy: redislock.ExponentialBackoff(16*time.Millisecond, 256*time.Millisecond),
	})
	if err != nil {
		return nil, err
	}
	return l.Release, nil
}

func (h *redislockHandle) warm(ctx context.Context) error {
	return pingAll(ctx, []*redis.Client{h.client})
}
func (h *redislockHandle) close() { _ = h.client.Close() }

// rueidislockHandle is a rueidislock Locker with one key per lock
// (KeyMajority 1, for one server); it renews its locks itself and wakes
// waiters through client-side caching invalidations.
type rueidislockHandle struct {
	l   rueidislock.Locker
	key string
}

func openRueidislock(addrs []string, key string) (handle, error) {
	l, err := rueidislock.NewLocker(rueidislock.LockerOption{
		ClientOption:   rueidisOptions(addrs[0]),
		KeyMajority:    1,
		KeyValidity:    benchLease,
		NoLoopTracking: true, // the servers are Redis 7 (>= 7.0.5)
	})
	if err != nil {
		return nil, fmt.Errorf("rueidislock: %w", err)
	}
	return &rueidislockHandle{l: l, key: key}, nil
}

func (h *rueidislockHandle) acquire(ctx context.Context) (func(context.Context) error, error) {
	_, cancel, err := h.l.WithContext(ctx, h.key)
	if err != nil {
		return nil, err
	}
	return func(context.Context) error { cancel(); return nil }, nil
}

func (h *rueidislockHandle) warm(ctx context.Context) error {
	c := h.l.Client()
	return c.Do(ctx, c.B().Ping().Build()).Error()
}
func (h *rueidislockHandle) close() { h.l.Close() }

// pingAll pings every client once.
func pingAll(ctx context.Context, clients []*redis.Client) error {
	for _, c := range clients {
		if err := c.Ping(ctx).Err(); err != nil {
			return err
		}
	}
	return nil
}
