package memcachelocker_test

import (
	"context"
	"log"

	"github.com/bradfitz/gomemcache/memcache"

	"github.com/distlock/distlock/backends/memcachelocker"
	"github.com/distlock/distlock/locker"
)

// Open a backend by URL; the backend owns its client. Read the package
// documentation first: memcached may evict or forget a lock.
func Example_open() {
	ctx := context.Background()
	backend, err := locker.Open(ctx, "memcache://127.0.0.1:11211/?prefix=myapp:")
	if err != nil {
		log.Fatal(err)
	}
	defer backend.Close()
	m, err := locker.New(backend, "orders/42")
	if err != nil {
		log.Fatal(err)
	}
	lease, err := m.Lock(ctx) // waiting polls: memcached cannot notify
	if err != nil {
		log.Fatal(err)
	}
	defer lease.Unlock(context.Background())
}

// Make a backend over a client of your own.
func ExampleNew() {
	mc := memcache.New("127.0.0.1:11211")
	backend, err := memcachelocker.New(mc, memcachelocker.WithPrefix("myapp:"))
	if err != nil {
		log.Fatal(err)
	}
	defer backend.Close() // leaves mc open: it is the caller's
	_, _ = locker.New(backend, "orders/42")
}
