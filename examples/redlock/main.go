// Command redlock takes one lock on a majority of five independent stores
// (the Redlock algorithm): it shows two clients contending, the lock
// standing while a minority of the stores refuses, and failing when a
// majority does.
//
//	go run ./examples/redlock                                   # five in-memory stores
//	go run ./examples/redlock redis://h1:6379 redis://h2:6379 redis://h3:6379 redis://h4:6379 redis://h5:6379
//	go run ./examples/redlock redis://h1:6379 redis://h2:6379 etcd://h3:2379   # mixed stores
//
// A RedLock is a driver over member drivers: redlock.New combines the
// stores and locker.NewStore makes the result the Store a program holds
// (lockconfig.OpenSpec does both from a spec such as "redlock: URL URL URL").
//
// Stores that started less than the restart guard (30s) ago do not count
// toward the quorum; -restart-guard 0s turns the guard off for a try-out on
// fresh servers.
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
	"github.com/distlock/distlock/combine"
	"github.com/distlock/distlock/driver"
	"github.com/distlock/distlock/locker"
	"github.com/distlock/distlock/redlock"
)

func main() {
	guard := flag.Duration("restart-guard", combine.DefaultRestartGuard, "a store that restarted less than this ago does not count toward the quorum (0s: off)")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: redlock [-restart-guard D] [URL...]   (no URL: five in-memory stores)")
		flag.PrintDefaults()
	}
	flag.Parse()
	urls := flag.Args()
	if len(urls) == 0 {
		for i := 1; i <= 5; i++ {
			urls = append(urls, fmt.Sprintf("mem://redlock-%d", i))
		}
	}
	if err := run(context.Background(), os.Stdout, urls, combine.WithRestartGuard(*guard)); err != nil {
		log.Fatal(err)
	}
}

// run plays the scenario on a RedLock of the stores at urls, made with
// opts, printing to w.
func run(ctx context.Context, w io.Writer, urls []string, opts ...combine.Option) error {
	n := len(urls)
	quorum := n/2 + 1
	fmt.Fprintf(w, "a RedLock of %d stores needs %d of them\n", n, quorum)
	name := "examples/redlock/" + locker.NewOwner()[:6]

	// Two clients, as two processes would have: each opens every store.
	a, err := openRedLock(ctx, urls, opts)
	if err != nil {
		return err
	}
	defer a.Close()
	b, err := openRedLock(ctx, urls, opts)
	if err != nil {
		return err
	}
	defer b.Close()
	ma, err := a.Mutex(name)
	if err != nil {
		return err
	}
	mb, err := b.Mutex(name)
	if err != nil {
		return err
	}

	la, err := ma.TryLock(ctx)
	if errors.Is(err, locker.ErrUnavailable) {
		return fmt.Errorf("%w (stores that started less than the restart guard ago do not count; try -restart-guard 0s on fresh servers)", err)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "A holds the lock with token %d\n", la.Token())
	_, err = mb.TryLock(ctx)
	fmt.Fprintf(w, "B's attempt: not acquired: %v\n", errors.Is(err, locker.ErrNotAcquired))
	if err := la.Unlock(ctx); err != nil {
		return err
	}
	lb, err := mb.TryLock(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "after A's unlock B holds it with token %d (higher: %v)\n", lb.Token(), lb.Token() > la.Token())
	if err := lb.Unlock(ctx); err != nil {
		return err
	}

	// A third party holds the key on some stores directly, as a store that
	// lost its data and granted it again, or a stuck old holder, would.
	for _, refusing := range []int{quorum - 1, quorum} {
		release, err := occupy(ctx, urls[:refusing], name)
		if err != nil {
			return err
		}
		l, err := ma.TryLock(ctx)
		switch {
		case err == nil:
			fmt.Fprintf(w, "%d of %d stores refuse: A still gets the lock (%d agree)\n", refusing, n, n-refusing)
			err = l.Unlock(ctx)
		case errors.Is(err, locker.ErrNotAcquired):
			fmt.Fprintf(w, "%d of %d stores refuse: A does not get the lock (only %d agree)\n", refusing, n, n-refusing)
			err = nil
		}
		if rerr := release(); err == nil {
			err = rerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// openRedLock opens every store at urls and returns a Store over a RedLock
// of them. The Store owns the RedLock, and the RedLock its members: closing
// the Store closes them all.
func openRedLock(ctx context.Context, urls []string, opts []combine.Option) (*locker.Store, error) {
	var members []driver.Backend
	closeMembers := func() {
		for _, m := range members {
			_ = m.Close()
		}
	}
	for _, u := range urls {
		d, err := driver.Open(ctx, u)
		if err != nil {
			closeMembers()
			return nil, err
		}
		members = append(members, d)
	}
	rl, err := redlock.New(members, opts...)
	if err != nil {
		closeMembers()
		return nil, err
	}
	return locker.NewStore(rl), nil
}

// occupy takes key on each store of urls for a stranger, straight on the
// drivers, and returns how to give it back.
func occupy(ctx context.Context, urls []string, key string) (release func() error, err error) {
	const stranger = "someone-else"
	var held []driver.Backend
	release = func() error {
		var errs []error
		for _, b := range held {
			if err := b.Unlock(ctx, key, stranger); err != nil {
				errs = append(errs, err)
			}
			errs = append(errs, b.Close())
		}
		return errors.Join(errs...)
	}
	for _, u := range urls {
		b, err := driver.Open(ctx, u)
		if err != nil {
			return nil, errors.Join(err, release())
		}
		held = append(held, b)
		g, err := b.TryLock(ctx, driver.Request{Key: key, Owner: stranger, TTL: time.Minute})
		if err == nil && !g.Acquired {
			err = fmt.Errorf("%s: the key is already held", u)
		}
		if err != nil {
			return nil, errors.Join(err, release())
		}
	}
	return release, nil
}
