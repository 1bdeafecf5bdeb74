// Command redis holds a lock on one Redis server longer than its lease,
// while the watchdog renews it, and shows another client being refused
// until the holder lets go.
//
//	go run ./examples/redis                                 # redis://127.0.0.1:6379
//	go run ./examples/redis -url redis://10.0.0.1:6379/0
//	REDIS_URL=redis://10.0.0.1:6379 go run ./examples/redis
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	_ "github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/locker"
)

// defaultURL is where the example looks for Redis without -url or
// $REDIS_URL.
const defaultURL = "redis://127.0.0.1:6379"

func main() {
	def := defaultURL
	if env := os.Getenv("REDIS_URL"); env != "" {
		def = env
	}
	u := flag.String("url", def, "Redis URL (default $REDIS_URL, else "+defaultURL+")")
	flag.Parse()
	if err := run(context.Background(), os.Stdout, *u, 3*time.Second, 5*time.Second); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// run holds a lock with a watchdog lease of lease for work, printing to w.
func run(ctx context.Context, w io.Writer, rawURL string, lease, work time.Duration) error {
	store, err := locker.Open(ctx, rawURL)
	if err != nil {
		return err
	}
	defer store.Close()
	name := "examples/redis/" + locker.NewOwner()[:6]
	m, err := store.Mutex(name, locker.WithWatchdogLease(lease))
	if err != nil {
		return err
	}
	if err := reachable(ctx, m, rawURL); err != nil {
		return err
	}

	// No lease given: the watchdog renews it every third of its length.
	l, err := m.Lock(ctx)
	if err != nil {
		return err
	}
	defer l.Unlock(context.WithoutCancel(ctx))
	fmt.Fprintf(w, "holding %q with token %d; the lease is %v, renewed every %v\n", name, l.Token(), lease, lease/3)

	// Another process's Store, over a connection of its own.
	other, err := locker.Open(ctx, rawURL)
	if err != nil {
		return err
	}
	defer other.Close()
	rival, err := other.Mutex(name)
	if err != nil {
		return err
	}

	deadline := time.After(work)
	tick := time.NewTicker(work / 4)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case <-l.Done(): // never while the watchdog reaches Redis
			return fmt.Errorf("lost the lock: %w", l.Err())
		case <-deadline:
			done = true
		case <-tick.C:
			st, err := m.Inspect(ctx)
			if err != nil {
				return err
			}
			_, err = rival.TryLock(ctx)
			fmt.Fprintf(w, "still held, %v left of the lease; another client's attempt: %s\n",
				st.Remaining.Round(100*time.Millisecond), outcome(err))
		}
	}
	fmt.Fprintf(w, "worked %v, longer than the %v lease\n", work, lease)
	if err := l.Unlock(ctx); err != nil {
		return err
	}
	rl, err := rival.TryLock(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "released; the other client now holds it with token %d (higher: %v)\n", rl.Token(), rl.Token() > l.Token())
	return rl.Unlock(ctx)
}

func outcome(err error) string {
	switch {
	case err == nil:
		return "ACQUIRED (the lock failed!)"
	case errors.Is(err, locker.ErrNotAcquired):
		return "refused"
	}
	return err.Error()
}

// reachable checks that Redis answers, and explains what to do if not.
func reachable(ctx context.Context, m *locker.Mutex, rawURL string) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	if _, err := m.Inspect(ctx); err != nil {
		shown := rawURL
		if u, perr := url.Parse(rawURL); perr == nil {
			shown = u.Redacted()
		}
		return fmt.Errorf("cannot reach Redis at %s: %w\n"+
			"start one (apt-get install redis-server; redis-server), or point -url or $REDIS_URL at yours", shown, err)
	}
	return nil
}
