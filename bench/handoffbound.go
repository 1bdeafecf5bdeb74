package main

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// quorumMessageRTT measures the shortest fair hand-off a lock over the
// servers addrs allows, n times: after a sleep of idle (a hold), a release
// that tells every server at once (a goroutine each, as a release round
// is) with the least a server can be asked, a PUBLISH, until a waiter
// subscribed on every server (a connection and a reading goroutine each,
// as a waiter's store has) has heard a majority of them. A fair lock
// cannot hand over faster: the next holder holds a majority of the
// servers only once each has heard of the release, and it knows only when
// they tell it. (A lock whose releaser takes it again, as redsync's mostly
// does, needs no message.)
func quorumMessageRTT(ctx context.Context, addrs []string, n int, idle time.Duration) (latencies, error) {
	const channel = "bench/handoff"
	quorum := len(addrs)/2 + 1
	heard := make(chan int, 4*len(addrs))
	var readers sync.WaitGroup
	defer readers.Wait()
	pubs := make([]*redis.Client, len(addrs))
	for i, addr := range addrs {
		pubs[i] = newRedisClient(addr)
		defer pubs[i].Close()
		sub := newRedisClient(addr)
		defer sub.Close()
		ps := sub.Subscribe(ctx, channel)
		defer ps.Close()
		if _, err := ps.Receive(ctx); err != nil { // the subscription's confirmation
			return latencies{}, fmt.Errorf("SUBSCRIBE %s: %w", addr, err)
		}
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				m, err := ps.ReceiveMessage(ctx)
				if err != nil {
					return // closed
				}
				round, _ := strconv.Atoi(m.Payload)
				heard <- round
			}
		}()
	}
	// wait collects the messages of round until want of them have come.
	wait := func(round, want int, got *int) error {
		timeout := time.NewTimer(time.Second)
		defer timeout.Stop()
		for *got < want {
			select {
			case r := <-heard:
				if r == round {
					*got++
				}
			case <-timeout.C:
				return fmt.Errorf("round %d: %d of %d messages heard in a second", round, *got, want)
			}
		}
		return nil
	}
	d := make([]time.Duration, n)
	errs := make([]error, len(pubs))
	for round := -n / 10; round < n; round++ { // the first tenth warms up
		sleepHold(idle)
		payload := strconv.Itoa(round)
		start := time.Now()
		var release sync.WaitGroup
		for i, c := range pubs {
			release.Add(1)
			go func() {
				defer release.Done()
				errs[i] = c.Publish(ctx, channel, payload).Err()
			}()
		}
		got := 0
		err := wait(round, quorum, &got)
		took := time.Since(start)
		release.Wait()
		for i, e := range errs {
			if e != nil {
				return latencies{}, fmt.Errorf("PUBLISH %s: %w", addrs[i], e)
			}
		}
		if err == nil {
			err = wait(round, len(addrs), &got) // the rest, before the next round
		}
		if err != nil {
			return latencies{}, err
		}
		if round >= 0 {
			d[round] = took
		}
	}
	return summarize(d), nil
}
