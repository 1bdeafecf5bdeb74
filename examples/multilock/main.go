// Command multilock moves money between two accounts, each guarded by its
// own lock, by locking both keys together (locker.Keys): concurrent
// transfers in opposite directions neither deadlock nor lose an update, and
// the total stays the same.
//
//	go run ./examples/multilock                                   # in-memory store
//	go run ./examples/multilock -backend redis://127.0.0.1:6379   # any backend URL
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"sync"
	"time"

	_ "github.com/distlock/distlock/backends/etcdlocker"
	_ "github.com/distlock/distlock/backends/memcachelocker"
	_ "github.com/distlock/distlock/backends/memlocker"
	_ "github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/locker"
)

func main() {
	backend := flag.String("backend", "mem://bank", "lock store URL")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *backend); err != nil {
		log.Fatal(err)
	}
}

// transfer is a standing order: move amount from one account to the other,
// times times.
type transfer struct {
	from, to string
	amount   int
	times    int
}

// run makes the transfers concurrently, each worker as a separate process
// would (a Store of its own), and prints the balances.
func run(ctx context.Context, w io.Writer, url string) error {
	accounts := newBank(map[string]int{"alice": 100, "bob": 100})
	// Lock names of their own, so that runs against a shared store do not
	// meet earlier runs.
	prefix := "examples/multilock/" + locker.NewOwner()[:6] + "/account:"
	fmt.Fprintf(w, "before: %s\n", accounts)

	orders := []transfer{
		{"alice", "bob", 10, 5}, // takes alice's lock and bob's...
		{"bob", "alice", 5, 5},  // ...and this one takes them in the other order
		{"alice", "bob", 1, 5},
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(orders))
	for _, o := range orders {
		wg.Go(func() {
			if err := worker(ctx, url, prefix, accounts, o); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := errors.Join(<-errs, <-errs, <-errs); err != nil {
		return err
	}
	fmt.Fprintf(w, "after:  %s (total %d)\n", accounts, accounts.total())

	// While a transfer holds both keys, each key is taken on its own too.
	return showBothHeld(ctx, w, url, prefix)
}

// worker carries out one standing order with a Mutex over both accounts'
// keys, listed in the order's own direction.
func worker(ctx context.Context, url, prefix string, accounts *bank, o transfer) error {
	store, err := open(ctx, url)
	if err != nil {
		return err
	}
	defer store.Close()
	m, err := pairMutex(store, prefix+o.from, prefix+o.to)
	if err != nil {
		return err
	}
	for range o.times {
		lease, err := m.Lock(ctx)
		if err != nil {
			return fmt.Errorf("transfer %s→%s: %w", o.from, o.to, err)
		}
		accounts.move(o.from, o.to, o.amount)
		if err := lease.Unlock(ctx); err != nil {
			return err
		}
	}
	return nil
}

// pairMutex returns a Mutex over two keys of store, held only while both
// are. The keys could as well be on different stores.
func pairMutex(store *locker.Store, first, second string) (*locker.Mutex, error) {
	return locker.Keys([]locker.Key{{Store: store, Name: first}, {Store: store, Name: second}})
}

func showBothHeld(ctx context.Context, w io.Writer, url, prefix string) error {
	store, err := open(ctx, url)
	if err != nil {
		return err
	}
	defer store.Close()
	pair, err := pairMutex(store, prefix+"alice", prefix+"bob")
	if err != nil {
		return err
	}
	lease, err := pair.TryLock(ctx)
	if err != nil {
		return err
	}
	defer lease.Unlock(ctx)
	fmt.Fprintf(w, "a transfer holds %s with token %d\n", pair.Name(), lease.Token())

	other, err := open(ctx, url)
	if err != nil {
		return err
	}
	defer other.Close()
	for _, name := range []string{"alice", "bob"} {
		single, err := other.Mutex(prefix + name)
		if err != nil {
			return err
		}
		_, err = single.TryLock(ctx)
		fmt.Fprintf(w, "meanwhile %s's account alone: %v\n", name, errors.Is(err, locker.ErrNotAcquired))
	}
	return nil
}

// open opens the Store at url, giving up after 10s.
func open(ctx context.Context, url string) (*locker.Store, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return locker.Open(ctx, url)
}
