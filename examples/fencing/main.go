// Command fencing shows why a lock alone cannot protect a resource from a
// holder that was paused past its lease, and how fencing tokens do: the
// resource remembers the highest token it has seen and refuses writes
// carrying a lower one.
//
//	go run ./examples/fencing                                     # in-memory store
//	go run ./examples/fencing -backend redis://127.0.0.1:6379     # any backend spec
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	_ "github.com/distlock/distlock/backends/etcdlocker"
	_ "github.com/distlock/distlock/backends/memcachelocker"
	_ "github.com/distlock/distlock/backends/memlocker"
	_ "github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/lockconfig"
	"github.com/distlock/distlock/locker"
)

func main() {
	backend := flag.String("backend", "mem://fencing", "lock store: a URL or a lockconfig spec such as \"redlock: URL URL URL\"")
	lease := flag.Duration("lease", 300*time.Millisecond, "the first holder's lease")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *backend, *lease); err != nil {
		log.Fatal(err)
	}
}

// run plays the scenario on the store spec names, printing to w.
func run(ctx context.Context, w io.Writer, spec string, lease time.Duration) error {
	// Two Stores, as two processes would have.
	a, err := open(ctx, spec)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := open(ctx, spec)
	if err != nil {
		return err
	}
	defer b.Close()
	name := "fencing-demo/" + locker.NewOwner()[:6]
	ma, err := a.Mutex(name)
	if err != nil {
		return err
	}
	mb, err := b.Mutex(name)
	if err != nil {
		return err
	}
	res := &resource{}

	la, err := ma.Lock(ctx, locker.WithLease(lease))
	if err != nil {
		return err
	}
	defer la.Unlock(context.WithoutCancel(ctx))
	fmt.Fprintf(w, "A holds the lock with token %d for %v\n", la.Token(), lease)
	report(w, "A", la.Token(), res.write(la.Token(), "A: part 1"))

	fmt.Fprintln(w, "A pauses (a long garbage collection, a stopped VM, a swap storm)...")
	lb, err := mb.Lock(ctx) // waits until A's lease has run out on the store
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "B took the lock after A's lease ran out, with token %d\n", lb.Token())
	report(w, "B", lb.Token(), res.write(lb.Token(), "B: the whole file"))
	if err := lb.Unlock(ctx); err != nil {
		return err
	}

	fmt.Fprintln(w, "A wakes up and, without looking at its lease, writes again:")
	report(w, "A", la.Token(), res.write(la.Token(), "A: part 2"))
	select {
	case <-la.Done():
		fmt.Fprintf(w, "had A looked, lease.Done() was closed: %v\n", la.Err())
	case <-time.After(10 * time.Second):
		return errors.New("the lease of A should have ended before B could take the lock")
	}
	fmt.Fprintf(w, "the resource holds %q\n", res.contents())
	return nil
}

// open opens the Store spec describes: one URL, or a combinator of several.
func open(ctx context.Context, spec string) (*locker.Store, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return lockconfig.OpenSpec(ctx, spec)
}

func report(w io.Writer, who string, token uint64, err error) {
	if err != nil {
		fmt.Fprintf(w, "%s writes with token %d: REFUSED: %v\n", who, token, err)
		return
	}
	fmt.Fprintf(w, "%s writes with token %d: accepted\n", who, token)
}
