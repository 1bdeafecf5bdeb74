package main

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// roundTripCounter is a go-redis hook that counts the client's round trips
// (single commands and pipelines) and the lease renewals carried by the
// batch scripts in its pipelines, and times the pipelines.
type roundTripCounter struct {
	singles   atomic.Int64
	pipelines atomic.Int64
	renewals  atomic.Int64

	mu       sync.Mutex
	pipeTime []time.Duration
}

var _ redis.Hook = (*roundTripCounter)(nil)

func (h *roundTripCounter) DialHook(next redis.DialHook) redis.DialHook {
	return next
}

func (h *roundTripCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h.singles.Add(1)
		return next(ctx, cmd)
	}
}

func (h *roundTripCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		h.pipelines.Add(1)
		for _, c := range cmds {
			h.renewals.Add(int64(scriptKeys(c) / 2)) // a lock key and a fence key per renewal
		}
		start := time.Now()
		err := next(ctx, cmds)
		d := time.Since(start)
		h.mu.Lock()
		h.pipeTime = append(h.pipeTime, d)
		h.mu.Unlock()
		return err
	}
}

// scriptKeys returns the number of keys of an EVAL or EVALSHA command, 0
// for other commands.
func scriptKeys(c redis.Cmder) int {
	args := c.Args()
	if len(args) < 3 {
		return 0
	}
	if name, _ := args[0].(string); name != "evalsha" && name != "eval" {
		return 0
	}
	n, _ := args[2].(int)
	return n
}

// reset zeroes the counters and returns the pipeline times so far.
func (h *roundTripCounter) reset() []time.Duration {
	h.singles.Store(0)
	h.pipelines.Store(0)
	h.renewals.Store(0)
	h.mu.Lock()
	defer h.mu.Unlock()
	d := h.pipeTime
	h.pipeTime = nil
	return d
}
