package memcachelocker_test

import (
	"context"
	"log"

	"github.com/bradfitz/gomemcache/memcache"

	"github.com/distlock/distlock/backends/memcachelocker"
	"github.com/distlock/distlock/locker"
)

// Open a store by URL; its backend owns its client. Read the package
// documentation first: memcached may evict or forget a lock.
func Example_open() {
	ctx := context.Background()
	store, err := locker.Open(ctx, "memcache://127.0.0.1:11211/?prefix=myapp:")
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	m, err := store.Mutex("orders/42")
	if err != nil {
		log.Fatal(err)
	}
	lease, err := m.Lock(ctx) // waiting polls: memcached cannot notify
	if err != nil {
		log.Fatal(err)
	}
	defer lease.Unlock(context.Background())
}

// Make a store over a client of your own.
func ExampleNew() {
	mc := memcache.New("127.0.0.1:11211")
	backend, err := memcachelocker.New(mc, memcachelocker.WithPrefix("myapp:"))
	if err != nil {
		log.Fatal(err)
	}
	store := locker.NewStore(backend)
	defer store.Close() // closes backend, and leaves mc open: it is the caller's
	_, _ = store.Mutex("orders/42")
}
