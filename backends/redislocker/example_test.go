package redislocker_test

import (
	"context"
	"log"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/distlock/distlock/backends/redislocker"
	"github.com/distlock/distlock/locker"
)

// Open a store by URL; its backend owns its client.
func Example_open() {
	ctx := context.Background()
	store, err := locker.Open(ctx, "redis://127.0.0.1:6379/0?prefix=myapp")
	if err != nil {
		log.Fatal(err)
	}
	defer store.Close()
	m, err := store.Mutex("orders/42")
	if err != nil {
		log.Fatal(err)
	}
	lease, err := m.Lock(ctx) // renewed by the watchdog until Unlock
	if err != nil {
		log.Fatal(err)
	}
	defer lease.Unlock(context.Background())
	// ... work, passing lease.Token() to the resource ...
}

// Make a store over a client of your own, here with the acquisition
// acknowledged by one replica.
func ExampleNew() {
	client := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer client.Close()
	backend, err := redislocker.New(client,
		redislocker.WithPrefix("myapp"),
		redislocker.WithReplicaAck(1, 100*time.Millisecond))
	if err != nil {
		log.Fatal(err)
	}
	store := locker.NewStore(backend)
	defer store.Close() // closes backend, and leaves client open: it is the caller's
	_, _ = store.Mutex("orders/42")
}
