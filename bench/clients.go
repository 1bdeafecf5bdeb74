package main

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

// Every implementation gets the same client settings: go-redis defaults
// (RESP3, pool of 10 connections per CPU, 3 s read timeout) with context
// deadlines honoured, for distlock, redsync and redislock; rueidis defaults
// for rueidislock, which needs rueidis; the etcd client defaults for both
// etcd locks.

// newRedisClient returns a go-redis client of addr.
func newRedisClient(addr string) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true})
}

// rueidisOptions returns rueidis client options for addr.
func rueidisOptions(addr string) rueidis.ClientOption {
	return rueidis.ClientOption{InitAddress: []string{addr}}
}

// newEtcdClient returns an etcd client of endpoint.
func newEtcdClient(endpoint string) (*clientv3.Client, error) {
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   []string{endpoint},
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd client of %s: %w", endpoint, err)
	}
	return cli, nil
}

// pingRTT measures the round trip of PING with a go-redis client: the
// smallest cost of any call to the server. With idle > 0 each PING
// follows a sleep of idle, as the release that ends a hold does: on a
// virtual machine whose CPUs doze off while nothing runs, that round trip
// is much slower than one sent right after the last.
func pingRTT(ctx context.Context, addr string, n int, idle time.Duration) (latencies, error) {
	c := newRedisClient(addr)
	defer c.Close()
	for range 100 { // warm the connection
		if err := c.Ping(ctx).Err(); err != nil {
			return latencies{}, fmt.Errorf("PING %s: %w", addr, err)
		}
	}
	d := make([]time.Duration, n)
	for i := range d {
		if idle > 0 {
			sleepHold(idle)
		}
		start := time.Now()
		if err := c.Ping(ctx).Err(); err != nil {
			return latencies{}, fmt.Errorf("PING %s: %w", addr, err)
		}
		d[i] = time.Since(start)
	}
	return summarize(d), nil
}
