package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/distlock/distlock/backends/pglocker"
	"github.com/distlock/distlock/locker"
)

// pgImpls are the PostgreSQL locks, distlock first; addrs holds the
// server's URL.
var pgImpls = []implementation{
	{"distlock postgres", openDistlockPG},
	{"pg_advisory_lock, pooled connection", openAdvisory},
}

// distlockPGHandle is a locker.Mutex from a Store over pglocker, with a
// fixed lease.
type distlockPGHandle struct {
	pool  *pgxpool.Pool
	store *locker.Store
	m     *locker.Mutex
}

func openDistlockPG(addrs []string, key string) (handle, error) {
	pool, err := pgxpool.New(context.Background(), addrs[0])
	if err != nil {
		return nil, err
	}
	b, err := pglocker.New(pool)
	if err != nil {
		pool.Close()
		return nil, err
	}
	store := locker.NewStore(b)
	m, err := store.Mutex(key)
	if err != nil {
		_ = store.Close()
		pool.Close()
		return nil, err
	}
	return &distlockPGHandle{pool: pool, store: store, m: m}, nil
}

func (h *distlockPGHandle) acquire(ctx context.Context) (func(context.Context) error, error) {
	l, err := h.m.Lock(ctx, locker.WithLease(benchLease))
	if err != nil {
		return nil, err
	}
	return l.Unlock, nil
}

func (h *distlockPGHandle) warm(ctx context.Context) error { return h.pool.Ping(ctx) }

func (h *distlockPGHandle) close() {
	_ = h.store.Close()
	h.pool.Close()
}

// advisoryHandle is the lock users write by hand: a session advisory lock
// on a connection taken from the pool and kept for as long as the lock is
// held (the lock lives and dies with the session), no lease, no token.
type advisoryHandle struct {
	pool *pgxpool.Pool
	key  string
}

func openAdvisory(addrs []string, key string) (handle, error) {
	pool, err := pgxpool.New(context.Background(), addrs[0])
	if err != nil {
		return nil, err
	}
	return &advisoryHandle{pool: pool, key: key}, nil
}

func (h *advisoryHandle) acquire(ctx context.Context) (func(context.Context) error, error) {
	conn, err := h.pool.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock(hashtextextended($1, 0))", h.key); err != nil {
		conn.Release()
		return nil, err
	}
	return func(ctx context.Context) error {
		defer conn.Release()
		_, err := conn.Exec(ctx, "SELECT pg_advisory_unlock(hashtextextended($1, 0))", h.key)
		return err
	}, nil
}

func (h *advisoryHandle) warm(ctx context.Context) error { return h.pool.Ping(ctx) }

func (h *advisoryHandle) close() { h.pool.Close() }

// pgRTT measures the round trip of a trivial statement on a pooled
// connection, the unit of both locks.
func pgRTT(ctx context.Context, url string, n int) (latencies, error) {
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		return latencies{}, err
	}
	defer pool.Close()
	d := make([]time.Duration, n)
	for i := -100; i < n; i++ {
		start := time.Now()
		if _, err := pool.Exec(ctx, "SELECT 1"); err != nil {
			return latencies{}, fmt.Errorf("postgres: %w", err)
		}
		if i >= 0 {
			d[i] = time.Since(start)
		}
	}
	return summarize(d), nil
}
