// Command quickstart shows distlock with no server anywhere: workers contend
// for one lock on the in-memory backend, a resource checks fencing tokens,
// and a lease that runs out closes its Done channel.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	"github.com/distlock/distlock/backends/memlocker"
	"github.com/distlock/distlock/locker"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		log.Print(err)
		os.Exit(1)
	}
}

// run plays the demo, printing to w.
func run(ctx context.Context, w io.Writer) error {
	// One in-memory lock server; each client of it is a driver, and a
	// locker.Store over a driver is what a program holds.
	server := memlocker.NewStore()

	fmt.Fprintln(w, "== three workers, one lock ==")
	shared := ledger{w: w}
	var wg sync.WaitGroup
	errs := make(chan error, 3)
	for worker := 1; worker <= 3; worker++ {
		// Each worker has a Store of its own, as separate processes would.
		store := locker.NewStore(server.Client())
		defer store.Close()
		m, err := store.Mutex("ledger")
		if err != nil {
			return err
		}
		wg.Go(func() {
			for range 2 {
				lease, err := m.Lock(ctx)
				if err != nil {
					errs <- err
					return
				}
				shared.write(fmt.Sprintf("worker %d", worker), lease.Token())
				time.Sleep(10 * time.Millisecond)
				if err := lease.Unlock(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}

	fmt.Fprintln(w, "== a lease that runs out ==")
	slowStore := locker.NewStore(server.Client())
	defer slowStore.Close()
	slow, err := slowStore.Mutex("report")
	if err != nil {
		return err
	}
	lease, err := slow.Lock(ctx, locker.WithLease(100*time.Millisecond))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "slow worker holds %q with token %d for 100ms\n", slow.Name(), lease.Token())
	<-lease.Done()
	fmt.Fprintf(w, "slow worker's Done fired: %v\n", lease.Err())

	fastStore := locker.NewStore(server.Client())
	defer fastStore.Close()
	fast, err := fastStore.Mutex("report")
	if err != nil {
		return err
	}
	next, err := fast.TryLock(ctx, locker.WithLease(time.Second))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "fast worker took %q with token %d\n", fast.Name(), next.Token())
	report := ledger{w: w}
	report.write("fast worker", next.Token())
	// The slow worker did not look at Done before writing: the token saves us.
	report.write("slow worker", lease.Token())
	if err := lease.Unlock(ctx); err != nil {
		fmt.Fprintf(w, "slow worker's Unlock: %v\n", err)
	}
	return next.Unlock(ctx)
}

// ledger is a resource that accepts a write only with a fencing token higher
// than any it has seen.
type ledger struct {
	w    io.Writer
	mu   sync.Mutex
	last uint64
}

func (l *ledger) write(who string, token uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	verdict := "accepted"
	if token <= l.last {
		verdict = "REJECTED (stale token)"
	} else {
		l.last = token
	}
	fmt.Fprintf(l.w, "%s writes with token %d: %s\n", who, token, verdict)
}
