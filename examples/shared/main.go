// Command shared shows the two shared locks: a read-write lock that lets
// readers of a catalog in together while a writer publishes a new version
// alone, and a semaphore that lets at most three encoders run at once
// across every process that uses it.
//
//	go run ./examples/shared                                   # in-memory store
//	go run ./examples/shared -backend redis://127.0.0.1:6379   # any store with shared locks
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/distlock/distlock/backends/etcdlocker"
	_ "github.com/distlock/distlock/backends/memlocker"
	_ "github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/lockconfig"
	"github.com/distlock/distlock/locker"
)

func main() {
	backend := flag.String("backend", "mem://shared", "lock store: a URL or a lockconfig spec such as \"multilock: URL URL\"")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *backend); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, w io.Writer, spec string) error {
	store, err := lockconfig.OpenSpec(ctx, spec)
	if err != nil {
		return err
	}
	defer store.Close()
	suffix := locker.NewOwner()[:6] // names of this run's own
	if err := catalog(ctx, w, store, "catalog/"+suffix); err != nil {
		return err
	}
	return encoders(ctx, w, store, "encoders/"+suffix)
}

// catalog has a writer publish two versions while readers read: each
// reader reports the version its read hold carries, the token of the last
// write.
func catalog(ctx context.Context, w io.Writer, store *locker.Store, name string) error {
	fmt.Fprintln(w, "== a read-write lock ==")
	rw, err := store.RWMutex(name)
	if err != nil {
		return err
	}
	var mu sync.Mutex // the catalog itself, in this process
	version := uint64(0)
	for range 2 {
		write, err := rw.Lock(ctx)
		if err != nil {
			return err
		}
		mu.Lock()
		version = write.Token()
		mu.Unlock()
		fmt.Fprintf(w, "writer publishes version %d, alone\n", write.Token())
		// Keep reading what it wrote, with no moment for another writer.
		read, err := rw.Downgrade(ctx, write)
		if err != nil {
			return err
		}
		var wg sync.WaitGroup
		var together atomic.Int32
		for i := range 3 {
			wg.Go(func() {
				r, err := rw.RLock(ctx)
				if err != nil {
					fmt.Fprintf(w, "reader %d: %v\n", i, err)
					return
				}
				together.Add(1)
				mu.Lock()
				seen := version
				mu.Unlock()
				if seen != r.Token() {
					fmt.Fprintf(w, "reader %d: read version %d under a hold of version %d\n", i, seen, r.Token())
				}
				time.Sleep(20 * time.Millisecond)
				_ = r.Unlock(ctx)
			})
		}
		wg.Wait()
		fmt.Fprintf(w, "3 readers read version %d beside the writer's read hold\n", read.Token())
		if err := read.Unlock(ctx); err != nil {
			return err
		}
	}
	return nil
}

// encoders runs eight jobs through a semaphore of three permits, and
// reports the most that ran at once.
func encoders(ctx context.Context, w io.Writer, store *locker.Store, name string) error {
	fmt.Fprintln(w, "== a semaphore ==")
	sem, err := store.Semaphore(name, 3)
	if err != nil {
		return err
	}
	var running, most atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			p, err := sem.Acquire(ctx, 1)
			if err != nil {
				errs <- err
				return
			}
			n := running.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(20 * time.Millisecond) // encoding
			running.Add(-1)
			errs <- p.Unlock(ctx)
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "8 jobs ran, at most %d at once, through %d permits\n", most.Load(), sem.Permits())
	return nil
}
